package setting

import (
	"cmp"
	"encoding/json"
	"flag"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/evalmd/evalmd/model"
)

// Layer is what one source says: values as text by setting name (other
// keys, such as a meta section's data, are left alone).
type Layer struct {
	Source Source            // one source, not a set
	File   string            // the config file or the sheet; "" for flags
	Values map[string]string // by setting name
	Lines  map[string]int    // the line of each value in File
	// Ceilings set settings' ceilings, by name (--ceiling, the ceilings
	// member of a config file); only the user's own sources' count.
	Ceilings map[string]string
}

// Only is l with the values of the settings named alone (the lines and
// the rest kept), for resolving those settings apart.
func (l Layer) Only(names ...string) Layer {
	values := l.Values
	l.Values = nil
	for _, n := range names {
		if v, ok := values[n]; ok {
			if l.Values == nil {
				l.Values = map[string]string{}
			}
			l.Values[n] = v
		}
	}
	return l
}

// Error is a value that is not one of its setting's, naming where it came
// from.
type Error struct {
	Origin   Origin
	Question string // the question resolved, when one is
	Name     string // the setting
	Value    string
	Why      string // what was wanted
}

func (e *Error) Error() string {
	switch {
	case e.Origin.Source == Flag:
		return fmt.Sprintf("--%s %q: %s", strings.ReplaceAll(e.Name, "_", "-"), e.Value, e.Why)
	case e.Origin.Source&Config != 0:
		return fmt.Sprintf("config %s: %s %q: %s", e.Origin, e.Name, e.Value, e.Why)
	}
	q := ""
	if e.Question != "" {
		q = fmt.Sprintf("question %q: ", e.Question)
	}
	return fmt.Sprintf("%s: %smeta %s: %q %s", e.Origin, q, e.Name, e.Value, e.Why)
}

// Errors are the values Resolve refuses, each an *Error: said as the
// first, one line at which a run stops; all of them (Unwrap) for a check
// that says every problem.
type Errors []error

func (e Errors) Error() string   { return e[0].Error() }
func (e Errors) Unwrap() []error { return e }

// Resolve lays layers over each other, default < user's config <
// workspace config < sheet meta < question meta < flag (layers of one
// source in the order given, the later winning), into one question's
// Values; question names it in errors ("" for the run's own settings). A
// Sent setting's meta value that cannot be read is ignored and said to
// warn, "FILE:LINE: meta KEY: ..."; any other bad value is an *Error, and
// so is a value from a source the setting's From leaves out (a sheet's
// sandbox), and a value in force from a workspace file or a sheet above
// the setting's ceiling (Setting.Ceiling, or the user's --ceiling); with
// more than one such value, the error is Errors, all of them.
//
// A question's meta holds its sheet's (LIME's cascade), with the lines of
// the sheet's keys: a value the question shares with the sheet, on the
// sheet's line, is recorded as the sheet's.
func Resolve(question string, warn func(string), layers ...Layer) (Values, error) {
	v := Values{}
	sorted := make([]Layer, len(layers))
	copy(sorted, layers)
	sort.SliceStable(sorted, func(i, j int) bool { return rankOf(sorted[i].Source) < rankOf(sorted[j].Source) })
	sheetLine := map[string]int{}
	texts := map[string]string{} // the text of each value in force
	var errs []error
	for _, l := range sorted {
		for _, s := range All {
			text, ok := l.Values[s.Name]
			text = strings.TrimSpace(text)
			if !ok || text == "" {
				continue
			}
			o := Origin{Source: l.Source, File: l.File, Line: l.Lines[s.Name]}
			if l.Source == SheetMeta {
				sheetLine[s.Name] = o.Line
			} else if l.Source == QuestionMeta && o.Line != 0 && sheetLine[s.Name] == o.Line {
				continue // the sheet's, copied into the question's meta
			}
			if s.From&l.Source == 0 {
				errs = append(errs, &Error{Origin: o, Question: question, Name: s.Name, Value: text,
					Why: fmt.Sprintf("cannot come from %s; only %s sets it", sourceWords[l.Source], orList(s.where(func(f string) string { return f })))})
				continue
			}
			if err := s.set(&v, text); err != nil {
				if s.Sent && l.Source&Meta != 0 {
					if warn != nil {
						warn(fmt.Sprintf("%s: meta %s: %q %s; ignored, as LIME ignores a setting it cannot read", o, s.Name, text, err))
					}
					continue
				}
				errs = append(errs, &Error{Origin: o, Question: question, Name: s.Name, Value: text, Why: err.Error()})
				continue
			}
			if v.From == nil {
				v.From = map[string]Origin{}
			}
			v.From[s.Name] = o
			texts[s.Name] = text
		}
	}
	switch errs = append(errs, checkCeilings(&v, question, sorted, texts)...); len(errs) {
	case 0:
	case 1:
		return Values{}, errs[0]
	default:
		return Values{}, Errors(errs)
	}
	switch v.Solve.Mode {
	case model.ModeCode:
		if v.Solve.Extract == "" {
			v.Solve.Extract = "lenient"
		}
	case model.ModeAgent:
		if v.Solve.Style == "" {
			v.Solve.Style = "tools"
		}
	}
	if v.Reformat && question != "" { // the run's own settings hold no question's text
		r, err := reformatText(question, sorted, v.From["reformat"])
		if err != nil {
			return Values{}, err
		}
		v.Solve.Reformat = r
	}
	return v, nil
}

// Resolved is one question's settings resolved once (ResolveKept), for
// whoever builds the question's request: the values, the warnings
// resolving them gave, to be said there, and its error.
type Resolved struct {
	Values   Values
	Warnings []string
	Err      error
}

// ResolveKept is Resolve keeping its warnings, in order, in the result
// instead of saying them.
func ResolveKept(question string, layers ...Layer) *Resolved {
	r := &Resolved{}
	r.Values, r.Err = Resolve(question, func(w string) { r.Warnings = append(r.Warnings, w) }, layers...)
	return r
}

// orList is a list "a, b, c" said "a, b or c".
func orList(list string) string {
	if i := strings.LastIndex(list, ", "); i >= 0 {
		return list[:i] + " or " + list[i+2:]
	}
	return list
}

// sourceWords name a source in a refusal.
var sourceWords = map[Source]string{
	UserConfig: "a config file", Workspace: "a workspace evalmd.yaml (it may have come with the sheets)",
	SheetMeta: "a sheet", QuestionMeta: "a sheet", Flag: "a flag",
}

// checkCeilings refuses each value in v that a source other than the
// user's own set above its setting's ceiling: the setting's Ceiling, or
// the one the user's own layers give (the strongest's). texts are the
// values in force as given.
func checkCeilings(v *Values, question string, layers []Layer, texts map[string]string) []error {
	var errs []error
	raised := map[string]string{}
	for _, l := range layers {
		if l.Source&Own != 0 {
			for k, t := range l.Ceilings {
				raised[k] = strings.TrimSpace(t)
			}
		}
	}
	for _, s := range All {
		o, ok := v.From[s.Name]
		if s.Ceiling == "" || !ok || o.Source&Own != 0 {
			continue
		}
		ceiling := cmp.Or(raised[s.Name], s.Ceiling)
		if !s.over(v, ceiling) {
			continue
		}
		errs = append(errs, &Error{Origin: o, Question: question, Name: s.Name, Value: texts[s.Name],
			Why: fmt.Sprintf("is over %s, the most a sheet or a workspace evalmd.yaml may ask; to allow it, run with --ceiling %s=%s (or ceilings: in your own config file), or set it yourself with --%s",
				ceiling, s.Name, texts[s.Name], s.FlagName())})
	}
	return errs
}

func rankOf(s Source) int {
	for i, r := range rank {
		if s == r {
			return i
		}
	}
	return len(rank)
}

// reformatText reads what InfiAgent's reformat step shows its model: the
// reformat_question and reformat_format meta, JSON strings, the
// strongest layer's. A missing one is reported at required, the
// reformat meta's origin.
func reformatText(question string, layers []Layer, required Origin) (*model.Reformat, error) {
	r := &model.Reformat{}
	for key, dst := range map[string]*string{"reformat_question": &r.Question, "reformat_format": &r.Format} {
		text, o := "", Origin{}
		for _, l := range layers {
			if t, ok := l.Values[key]; ok && l.Source&Meta != 0 {
				text, o = t, Origin{Source: l.Source, File: l.File, Line: l.Lines[key]}
			}
		}
		if err := json.Unmarshal([]byte(text), dst); err != nil {
			if o.File == "" {
				o = required
			}
			return nil, &Error{Origin: o, Question: question, Name: key, Value: fmt.Sprintf("%.40s", text),
				Why: "(reformat: required): want the text as a JSON string"}
		}
	}
	return r, nil
}

// Solving is the answer mode as a request carries it: nil for chat.
func (v *Values) Solving() *model.Solve {
	if v.Solve.Mode == "" || v.Solve.Mode == model.ModeChat {
		return nil
	}
	s := v.Solve
	return &s
}

// Record is what an output file records of the answer mode's settings
// beside its "settings" (the Sent ones): every other setting a source
// set, by name, as text. In chat mode only those that act on a chat
// answer (think_tags) are recorded, and nil when none was set.
func (v *Values) Record() map[string]string {
	chat := v.Solving() == nil
	var out map[string]string
	for _, s := range All {
		if t := s.get(v); t != "" && !s.Sent && !s.Apart && (s.Chat || !chat) {
			if out == nil {
				out = map[string]string{}
			}
			out[s.Name] = t
		}
	}
	if out == nil && !chat {
		out = map[string]string{}
	}
	return out
}

// Bind registers on fs a flag for every setting a flag may set (or for
// those named, when names are given), named as the setting with '-' for
// '_', and, binding every setting, --ceiling. The flags given make the
// returned Layer; a bad value is the flag's error (a usage error).
func Bind(fs *flag.FlagSet, names ...string) *Layer {
	l := &Layer{Source: Flag, Values: map[string]string{}, Ceilings: map[string]string{}}
	for _, s := range All {
		if len(names) > 0 && !slices.Contains(names, s.Name) {
			continue
		}
		if name := s.FlagName(); name != "" {
			fs.Var(flagValue{s, l}, name, fmt.Sprintf("`%s` %s (%s)", s.Arg, s.Doc, s.flagNote()))
		}
	}
	if len(names) > 0 {
		return l
	}
	fs.Func("ceiling", "`NAME=VALUE` the most a sheet or a workspace evalmd.yaml may set NAME to (repeatable; "+
		"the defaults: "+ceilings()+"); your own flags and config are not bounded", func(text string) error {
		name, value, ok := strings.Cut(text, "=")
		if !ok {
			return fmt.Errorf("want NAME=VALUE, such as tool_memory=8G")
		}
		name = strings.ReplaceAll(strings.TrimSpace(name), "-", "_")
		if err := CheckCeiling(name, value); err != nil {
			return err
		}
		l.Ceilings[name] = value
		return nil
	})
	return l
}

// flagNote is what a setting's flag says after its doc: the default, and
// the meta it wins over, with that meta's ceiling.
func (s *Setting) flagNote() string {
	note := "default " + s.Default
	if s.From&Meta != 0 {
		note += "; over the " + s.Name + " meta"
	}
	if s.Ceiling != "" {
		note += ", which may ask at most " + s.Ceiling + " (--ceiling)"
	}
	return note
}

// ceilings lists the settings' ceilings, "name=CEILING, ...".
func ceilings() string {
	var out []string
	for _, s := range All {
		if s.Ceiling != "" {
			out = append(out, s.Name+"="+s.Ceiling)
		}
	}
	return strings.Join(out, ", ")
}

type flagValue struct {
	s *Setting
	l *Layer
}

func (f flagValue) String() string {
	if f.l == nil {
		return ""
	}
	return f.l.Values[f.s.Name]
}

func (f flagValue) Set(text string) error {
	if err := f.s.Check(strings.TrimSpace(text)); err != nil {
		return err
	}
	f.l.Values[f.s.Name] = text
	return nil
}
