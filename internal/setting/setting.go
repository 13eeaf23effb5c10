// Package setting declares each setting of a run once: its name (the meta
// key and the config member), its flag, type, default, a one-line doc and
// where it may come from (flag, config, sheet meta, question meta). Resolve
// lays the sources over each other, default < config < sheet meta <
// question meta < flag, into one typed Values per question, which every
// consumer reads: the request's generation settings, the answer mode and
// its limits (solve, agent, sandbox), the output file and the Inspect log.
//
// A new setting is one entry in All (with a field of model.Settings or
// model.Solve to hold it); its flag, config member, meta key, warning for a
// misspelt key, README row and the record in each output follow from it.
package setting

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/evalmd/evalmd/model"
	"github.com/evalmd/evalmd/result"
)

// Source is where a setting's value may come from; a Setting's From is a
// set of them.
type Source uint8

// The sources, from the weakest to the strongest.
const (
	UserConfig   Source = 1 << iota // the user's own config file (~/.config/evalmd/config.yaml)
	Workspace                       // a workspace's evalmd.yaml, which may have come with the sheets
	SheetMeta                       // the sheet's meta
	QuestionMeta                    // the question's meta
	Flag                            // the command line

	Config   = UserConfig | Workspace
	Meta     = SheetMeta | QuestionMeta
	Anywhere = Config | Meta | Flag
	// Own are the sources the user writes. The others, a workspace file
	// and a sheet, may have come from a stranger (a cloned repository):
	// what they set is bounded by a setting's Ceiling, and a setting only
	// the user may choose (the sandbox) has From Own.
	Own = UserConfig | Flag
)

// rank orders the sources: a stronger source wins.
var rank = []Source{UserConfig, Workspace, SheetMeta, QuestionMeta, Flag}

// String names the sources, "config" for either config file (as an
// output records where a setting came from: grading_from).
func (s Source) String() string {
	var out []string
	for _, n := range []struct {
		s    Source
		name string
	}{{Config, "config"}, {SheetMeta, "sheet meta"}, {QuestionMeta, "question meta"}, {Flag, "flag"}} {
		if s&n.s != 0 {
			out = append(out, n.name)
		}
	}
	return strings.Join(out, ", ")
}

// Values are one question's settings, resolved: what is sent (Gen), how
// the answer is made (Solve; Mode "" is chat), and where each setting that
// is not its default came from.
type Values struct {
	Gen   model.Settings
	Solve model.Solve
	// Reformat says the question's answer is rewritten by the reformat
	// model (the reformat meta is "required"); Solve.Reformat then holds
	// what that model is shown.
	Reformat bool
	// Prompt is how the question's prompt is made: cut to the model's
	// context, and its tables rendered.
	Prompt Prompt
	// Grader names the question's grader; "" is lime, LIME's rule.
	Grader string
	// Grading is how the grader reads an answer: strict or liberal
	// (result.GradingLiberal: LIME's -l, for the lime grader); "" when no
	// source set it, which is strict.
	Grading string
	// Epochs is how many times the question is asked (0: once), each
	// epoch a request of its own.
	Epochs int
	// Sandbox is where code runs (bwrap, docker, none; "": bwrap) and
	// SandboxImage docker's image: the user's own choice, never a
	// workspace file's or a sheet's.
	Sandbox, SandboxImage string
	// PromptCache is off when the run asks for no prompt caching; "" or
	// auto: the shared prefix of a sheet's questions is marked where the
	// model's provider caches one (model.Info.CacheMin).
	PromptCache string
	// From says where each setting set by some source came from, by name.
	From map[string]Origin
}

// Prompt is how a question's prompt is made.
type Prompt struct {
	// Truncate is keep-last (DSBench's rule: the prompt's end is kept, cut
	// to the model's context) or "" or none. Reserve is the tokens left
	// for the answer (nil: 6000), ContextLimit and Encoding the model's
	// context and tiktoken encoding (0, "": the model's).
	Truncate     string
	Reserve      *int
	ContextLimit int
	Encoding     string
	// TableRows are the rows {{.Table}} renders (nil: all), in
	// TableFormat (pandas, csv or markdown; "": pandas).
	TableRows   *int
	TableFormat string
}

// Origin is where a setting's value came from: a flag, or a file and line
// (a config file's or a sheet's).
type Origin struct {
	Source Source
	File   string
	Line   int
}

func (o Origin) String() string {
	if o.Source == Flag {
		return "flag"
	}
	if o.Line > 0 {
		return fmt.Sprintf("%s:%d", o.File, o.Line)
	}
	return o.File
}

// Setting is one setting's declaration.
type Setting struct {
	Name    string // the meta key and config member ("max_tokens"); the flag is Name with '-' for '_'
	Type    string // what a value is, as the settings table of docs/settings.md says it
	Default string // the value when no source sets it, as said to people
	Doc     string // one line
	From    Source
	// Arg names the value in the flag's synopsis (-max-tokens N).
	Arg string
	// Sent settings are LIME's generation settings, held in model.Settings:
	// sent with the request and recorded in the output's "settings". A
	// meta value of one that cannot be read (seed: None) is ignored with a
	// warning, as LIME's extract_gen_params ignores it, instead of
	// stopping the run.
	Sent bool
	// Apart settings are not the answer mode's: the output's
	// solve_settings leave them out (the prompt and the grader a
	// question records show them, the sandbox its versions).
	Apart bool
	// Chat settings that are not sent act on a chat answer too (the
	// others only in code and agent modes), so chat outputs record them.
	Chat bool
	// Ceiling is the most a source that is not the user's own (a
	// workspace evalmd.yaml, a sheet's meta) may set, as text ("": no
	// ceiling): settings that spend memory, time or money. The user
	// raises it with --ceiling NAME=VALUE or their own config's ceilings;
	// a flag's value, or the user's config's, is never bounded.
	Ceiling string
	// amount is a ceilinged setting's value in v, as a number to compare.
	amount func(v *Values) float64

	// reader parses a value given as text into v (set), and says what
	// text it takes (schema).
	reader
	// get is the value in v as text, "" when unset (the default).
	get func(v *Values) string
}

// FlagName is the setting's flag, without dashes: its name with '-' for
// '_'; "" when no flag sets it.
func (s *Setting) FlagName() string {
	if s.From&Flag == 0 {
		return ""
	}
	return strings.ReplaceAll(s.Name, "_", "-")
}

// Text is the value of s in v as text, "" when no source set it.
func (s *Setting) Text(v *Values) string { return s.get(v) }

// Check says whether text is a valid value of s.
func (s *Setting) Check(text string) error {
	var v Values
	return s.set(&v, text)
}

// where says which sources may set s, its flag named as flag writes it
// ("config, sheet meta, question meta, --tool-memory"; "your config,
// --sandbox" for a setting the workspace file may not set).
func (s *Setting) where(flag func(string) string) string {
	from := s.From.String()
	if s.From&Config == UserConfig {
		from = strings.Replace(from, "config", "your config", 1)
	}
	return strings.ReplaceAll(from, "flag", flag("--"+s.FlagName()))
}

// over says whether the value of s in v is above ceiling, a value of s as
// text; false when s has no ceiling or ceiling is no value of s.
func (s *Setting) over(v *Values, ceiling string) bool {
	var c Values
	if s.amount == nil || s.set(&c, ceiling) != nil {
		return false
	}
	return s.amount(v) > s.amount(&c)
}

// CheckCeiling says whether text may be the ceiling of the setting named
// name (run --ceiling, a config's ceilings member).
func CheckCeiling(name, text string) error {
	s := Lookup(name)
	if s == nil || s.Ceiling == "" {
		return fmt.Errorf("%s has no ceiling (these have, by default: %s)", name, ceilings())
	}
	if err := s.Check(strings.TrimSpace(text)); err != nil {
		return fmt.Errorf("%s ceiling %q %v", name, text, err)
	}
	return nil
}

// All are the settings, in the order docs/settings.md lists them.
var All = []*Setting{
	{Name: "temperature", Arg: "X", Type: "number >= 0", Default: "the provider's", From: Anywhere, Sent: true,
		Doc:    "sampling temperature",
		reader: floatPtr(func(v *Values) **float64 { return &v.Gen.Temperature }, 0),
		get:    func(v *Values) string { return fmtFloat(v.Gen.Temperature) }},
	{Name: "top_p", Arg: "P", Type: "number", Default: "the provider's", From: Anywhere, Sent: true,
		Doc:    "nucleus sampling: the probability mass sampled from",
		reader: floatPtr(func(v *Values) **float64 { return &v.Gen.TopP }, math.Inf(-1)),
		get:    func(v *Values) string { return fmtFloat(v.Gen.TopP) }},
	{Name: "max_tokens", Arg: "N", Type: "whole number", Default: "the provider's", From: Anywhere, Sent: true,
		Doc: "the longest completion, in tokens (0: the provider's)", Ceiling: "65536",
		reader: whole(func(v *Values) *int { return &v.Gen.MaxTokens }),
		get:    func(v *Values) string { return fmtInt(v.Gen.MaxTokens) },
		amount: func(v *Values) float64 { return float64(v.Gen.MaxTokens) }},
	{Name: "seed", Arg: "N", Type: "whole number", Default: "none", From: Anywhere, Sent: true,
		Doc: "the provider's sampling seed; the random model's picks take the run's (--seed, else the config's)",
		reader: reader{schema: numeric("integer", nil, nil, signedWhole), set: func(v *Values, text string) error {
			n, err := strconv.ParseInt(text, 10, 64)
			if err != nil {
				return fmt.Errorf("is not a whole number")
			}
			v.Gen.Seed = &n
			return nil
		}},
		get: func(v *Values) string {
			if v.Gen.Seed == nil {
				return ""
			}
			return strconv.FormatInt(*v.Gen.Seed, 10)
		}},
	{Name: "stop", Arg: "A|B", Type: `A|B or a JSON array`, Default: "none", From: Anywhere, Sent: true,
		Doc: `stop sequences: A|B, or a JSON array or string such as ["\n", "END"]`,
		reader: reader{schema: stopSchema(), set: func(v *Values, text string) error {
			stop, ok := parseStop(text)
			if !ok {
				return fmt.Errorf(`is not stop sequences (A|B, or a JSON array such as ["\n", "END"])`)
			}
			v.Gen.Stop = stop
			return nil
		}},
		get: func(v *Values) string {
			if len(v.Gen.Stop) == 0 {
				return ""
			}
			b, _ := json.Marshal(v.Gen.Stop)
			return string(b)
		}},
	{Name: "reasoning_effort", Arg: "EFFORT", Type: orList(strings.Join(model.ReasoningEfforts, ", ")), Default: "the provider's", From: Anywhere, Sent: true,
		Doc:    "how hard a reasoning model thinks: OpenAI's none to xhigh, Claude's low to max (sent as the provider takes it; docs/models.md: Reasoning)",
		reader: choice(func(v *Values) *string { return &v.Gen.ReasoningEffort }, model.ReasoningEfforts...),
		get:    func(v *Values) string { return v.Gen.ReasoningEffort }},
	{Name: "reasoning_tokens", Arg: "N", Type: "whole number", Default: "the provider's", From: Anywhere, Sent: true,
		Doc: "a thinking budget in tokens, for the providers that take one (docs/models.md: Reasoning)", Ceiling: "65536",
		reader: whole(func(v *Values) *int { return &v.Gen.ReasoningTokens }),
		get:    func(v *Values) string { return fmtInt(v.Gen.ReasoningTokens) },
		amount: func(v *Values) float64 { return float64(v.Gen.ReasoningTokens) }},
	{Name: "thinking", Arg: "adaptive", Type: model.ThinkingAdaptive, Default: "the provider's", From: Anywhere, Sent: true,
		Doc:    "Anthropic: adaptive thinking, Claude deciding how much to think, guided by reasoning_effort (Opus 4.6 and later; docs/models.md: Reasoning)",
		reader: choice(func(v *Values) *string { return &v.Gen.Thinking }, model.ThinkingAdaptive),
		get:    func(v *Values) string { return v.Gen.Thinking }},
	{Name: "verbosity", Arg: "LEVEL", Type: orList(strings.Join(model.Verbosities, ", ")), Default: "the provider's", From: Anywhere, Sent: true,
		Doc:    "OpenAI: how long and detailed the answer is (gpt-5 and later; docs/models.md: Reasoning)",
		reader: choice(func(v *Values) *string { return &v.Gen.Verbosity }, model.Verbosities...),
		get:    func(v *Values) string { return v.Gen.Verbosity }},
	{Name: "response_format", Arg: "FORMAT", Type: "json or text", Default: "text", From: Anywhere, Sent: true,
		Doc:    "json asks for a JSON answer: each provider's JSON mode, or its structured output with the question's schema section (docs/models.md: Structured output)",
		reader: choice(func(v *Values) *string { return &v.Gen.ResponseFormat }, model.ResponseJSON, "text"),
		get:    func(v *Values) string { return v.Gen.ResponseFormat }},
	{Name: "think_tags", Arg: "RULE", Type: "auto, keep or strip", Default: "auto", From: Anywhere, Chat: true,
		Doc:    "the think blocks (think tags) that lead a reply: moved to its reasoning, kept in the answer, or dropped",
		reader: choice(func(v *Values) *string { return &v.Solve.ThinkTags }, model.ThinkAuto, model.ThinkKeep, model.ThinkStrip),
		get:    func(v *Values) string { return v.Solve.ThinkTags }},
	{Name: "mode", Arg: "MODE", Type: "chat, code or agent", Default: "chat", From: Anywhere,
		Doc:    "how the answer is made: one completion, code run once, or a python tool loop",
		reader: choice(func(v *Values) *string { return &v.Solve.Mode }, model.ModeChat, model.ModeCode, model.ModeAgent),
		get:    func(v *Values) string { return v.Solve.Mode }},
	{Name: "code_extract", Arg: "RULE", Type: "baseline or lenient", Default: "lenient", From: Anywhere,
		Doc:    "code mode: the rule that takes the code out of the completion",
		reader: choice(func(v *Values) *string { return &v.Solve.Extract }, "baseline", "lenient"),
		get:    func(v *Values) string { return v.Solve.Extract }},
	{Name: "agent_style", Arg: "STYLE", Type: "tools or react", Default: "tools", From: Anywhere,
		Doc:    "agent mode: native tool calls, or InfiAgent's text ReAct loop",
		reader: choice(func(v *Values) *string { return &v.Solve.Style }, "tools", "react"),
		get:    func(v *Values) string { return v.Solve.Style }},
	{Name: "max_turns", Arg: "N", Type: "whole number", Default: "10", From: Anywhere,
		Doc: "agent mode: model calls per question", Ceiling: "50",
		reader: whole(func(v *Values) *int { return &v.Solve.MaxTurns }),
		get:    func(v *Values) string { return fmtInt(v.Solve.MaxTurns) },
		amount: func(v *Values) float64 { return float64(v.Solve.MaxTurns) }},
	{Name: "question_timeout", Arg: "DURATION", Type: "seconds or a duration", Default: "none", From: Anywhere,
		Doc:    "agent mode: time limit of a whole question",
		reader: seconds(func(v *Values) *time.Duration { return &v.Solve.QuestionTimeout }),
		get:    func(v *Values) string { return fmtDuration(v.Solve.QuestionTimeout) }},
	{Name: "token_budget", Arg: "N", Type: "whole number", Default: "none", From: Anywhere,
		Doc:    "agent mode: input + output tokens over all turns",
		reader: whole(func(v *Values) *int { return &v.Solve.TokenBudget }),
		get:    func(v *Values) string { return fmtInt(v.Solve.TokenBudget) }},
	{Name: "tool_timeout", Arg: "DURATION", Type: "seconds or a duration", Default: "180s", From: Anywhere,
		Doc: "time limit of one python call (code and agent modes)", Ceiling: "10m",
		reader: seconds(func(v *Values) *time.Duration { return &v.Solve.ToolTimeout }),
		get:    func(v *Values) string { return fmtDuration(v.Solve.ToolTimeout) },
		amount: func(v *Values) float64 { return float64(v.Solve.ToolTimeout) }},
	{Name: "tool_memory", Arg: "SIZE", Type: "a size: 512M, 2G", Default: "2G", From: Anywhere,
		Doc: "memory limit of the python interpreter (code and agent modes)", Ceiling: "4G",
		amount: func(v *Values) float64 { return float64(v.Solve.ToolMemory) },
		reader: reader{schema: numeric("integer", ptr(1), nil, size), set: func(v *Values, text string) error {
			n, err := model.ParseSize(text)
			if err != nil {
				return fmt.Errorf("is not a size such as 2G or 512M")
			}
			v.Solve.ToolMemory = n
			return nil
		}},
		get: func(v *Values) string {
			if v.Solve.ToolMemory == 0 {
				return ""
			}
			return strconv.FormatInt(v.Solve.ToolMemory, 10)
		}},
	{Name: "reformat", Arg: "required", Type: "required or none", Default: "none", From: Meta,
		Doc: "agent mode: the answer is rewritten by run's --reformat model (InfiAgent's reformat step)",
		reader: reader{schema: enum("required", "none"), set: func(v *Values, text string) error {
			switch text {
			case "required":
				v.Reformat = true
			case "none":
				v.Reformat = false
			default:
				return fmt.Errorf("is not required or none")
			}
			return nil
		}},
		get: func(v *Values) string {
			if v.Reformat {
				return "required"
			}
			return ""
		}},
	{Name: "truncate", Arg: "RULE", Type: "keep-last or none", Default: "none", From: Config | Meta, Apart: true,
		Doc:    "keep-last: the prompt's end is kept, cut to the model's context (DSBench's rule)",
		reader: choice(func(v *Values) *string { return &v.Prompt.Truncate }, "keep-last", "none"),
		get:    func(v *Values) string { return v.Prompt.Truncate }},
	{Name: "reserve_tokens", Arg: "N", Type: "whole number", Default: "6000", From: Config | Meta, Apart: true,
		Doc:    "truncate: tokens left for the answer",
		reader: wholePtr(func(v *Values) **int { return &v.Prompt.Reserve }),
		get:    func(v *Values) string { return fmtIntPtr(v.Prompt.Reserve) }},
	{Name: "context_limit", Arg: "N", Type: "whole number", Default: "the model's", From: Anywhere, Apart: true,
		Doc:    "truncate: the model's context in tokens",
		reader: whole(func(v *Values) *int { return &v.Prompt.ContextLimit }),
		get:    func(v *Values) string { return fmtInt(v.Prompt.ContextLimit) }},
	{Name: "encoding", Arg: "NAME", Type: "cl100k_base, o200k_base, ...", Default: "the model's", From: Anywhere, Apart: true,
		Doc:    "truncate: the tiktoken encoding tokens are counted with",
		reader: text(func(v *Values) *string { return &v.Prompt.Encoding }),
		get:    func(v *Values) string { return v.Prompt.Encoding }},
	{Name: "table_rows", Arg: "N", Type: "whole number or all", Default: "all", From: Config | Meta, Apart: true,
		Doc: "{{.Table}}: the first N rows",
		reader: reader{schema: numeric("integer", ptr(0), nil, `^(?:all|\+?[0-9]+)$`), set: func(v *Values, text string) error {
			if text == "all" {
				v.Prompt.TableRows = nil
				return nil
			}
			if wholePtr(func(v *Values) **int { return &v.Prompt.TableRows }).set(v, text) != nil {
				return fmt.Errorf("is not a whole number or all")
			}
			return nil
		}},
		get: func(v *Values) string { return fmtIntPtr(v.Prompt.TableRows) }},
	{Name: "table_format", Arg: "FORMAT", Type: "pandas, csv or markdown", Default: "pandas", From: Config | Meta, Apart: true,
		Doc:    "{{.Table}}: how a table is written into the prompt",
		reader: choice(func(v *Values) *string { return &v.Prompt.TableFormat }, "pandas", "csv", "markdown"),
		get:    func(v *Values) string { return v.Prompt.TableFormat }},
	{Name: "grader", Arg: "NAME", Type: "a grader's name", Default: "lime", From: Anywhere, Apart: true,
		Doc:    "the grader (every one is in docs/grading.md: Grading and aggregating)",
		reader: text(func(v *Values) *string { return &v.Grader }),
		get:    func(v *Values) string { return v.Grader }},
	{Name: "grading", Arg: "MODE", Type: "strict or liberal", Default: "strict", From: Anywhere, Apart: true,
		Doc:    "liberal: lime also takes an answer that starts with the truth's first letter (LIME's -l; docs/grading.md: Strict and liberal grading)",
		reader: choice(func(v *Values) *string { return &v.Grading }, result.GradingStrict, result.GradingLiberal),
		get:    func(v *Values) string { return v.Grading }},
	{Name: "epochs", Arg: "N", Type: "whole number >= 1", Default: "1", From: Anywhere, Apart: true,
		Doc: "times each question is asked, each epoch a request and an output file of its own (docs/outputs.md: Epochs)", Ceiling: "20",
		amount: func(v *Values) float64 { return float64(max(v.Epochs, 1)) },
		reader: reader{schema: numeric("integer", ptr(1), ptr(result.MaxEpochs), upTo(result.MaxEpochs)), set: func(v *Values, text string) error {
			n, err := strconv.Atoi(text)
			if err != nil || n < 1 || n > result.MaxEpochs {
				return fmt.Errorf("is not a whole number from 1 to %d", result.MaxEpochs)
			}
			v.Epochs = n
			return nil
		}},
		get: func(v *Values) string {
			if v.Epochs <= 1 {
				return ""
			}
			return strconv.Itoa(v.Epochs)
		}},
	{Name: "prompt_cache", Arg: "auto|off", Type: "auto or off", Default: "auto", From: Config | Flag, Apart: true,
		Doc:    "auto: the prefix a sheet's questions share is marked for the provider's prompt cache (Anthropic's breakpoints) and a sheet's first question asked before the rest; off: neither (docs/models.md: Prompt caching)",
		reader: choice(func(v *Values) *string { return &v.PromptCache }, "auto", "off"),
		get:    func(v *Values) string { return v.PromptCache }},
	{Name: "sandbox", Arg: "NAME", Type: "bwrap, docker or none", Default: "bwrap", From: Own, Apart: true,
		Doc:    "where code and agent modes run Python; none runs it unconfined, as you: it can read and change your files and read your API keys",
		reader: choice(func(v *Values) *string { return &v.Sandbox }, "bwrap", "docker", "none"), // sandbox's Backends (TestSandboxNames)
		get:    func(v *Values) string { return v.Sandbox }},
	{Name: "sandbox_image", Arg: "IMAGE", Type: "a docker image", Default: "evalmd-sandbox", From: Own, Apart: true,
		Doc:    "the image of sandbox docker (built from sandbox/Dockerfile)",
		reader: text(func(v *Values) *string { return &v.SandboxImage }),
		get:    func(v *Values) string { return v.SandboxImage }},
}

// Lookup finds a setting by name; nil when none has it.
func Lookup(name string) *Setting {
	for _, s := range All {
		if s.Name == name {
			return s
		}
	}
	return nil
}

// Names lists the settings that src may set, comma-separated.
func Names(src Source) string {
	var out []string
	for _, s := range All {
		if s.From&src != 0 {
			out = append(out, s.Name)
		}
	}
	return strings.Join(out, ", ")
}

func floatPtr(field func(*Values) **float64, least float64) reader {
	var min *float64
	if !math.IsInf(least, -1) {
		min = &least
	}
	return reader{schema: numeric("number", min, nil, decimal(least < 0 || min == nil)), set: func(v *Values, text string) error {
		f, err := strconv.ParseFloat(text, 64)
		if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
			return fmt.Errorf("is not a number")
		}
		if f < least {
			return fmt.Errorf("is not a number >= %v", least)
		}
		*field(v) = &f
		return nil
	}}
}

func whole(field func(*Values) *int) reader {
	return reader{schema: numeric("integer", ptr(0), nil, unsignedWhole), set: func(v *Values, text string) error {
		n, err := strconv.Atoi(text)
		if err != nil || n < 0 {
			return fmt.Errorf("is not a whole number >= 0")
		}
		*field(v) = n
		return nil
	}}
}

// seconds reads "90" (seconds) or a Go duration ("90s", "5m").
func seconds(field func(*Values) *time.Duration) reader {
	return reader{schema: secondsSchema(), set: func(v *Values, text string) error {
		if f, err := strconv.ParseFloat(text, 64); err == nil {
			// Past the longest time.Duration (292 years) the conversion
			// would wrap to a negative one.
			if f < 0 || math.IsNaN(f) || f >= float64(math.MaxInt64)/float64(time.Second) {
				return fmt.Errorf("is not seconds >= 0 (and under 292 years)")
			}
			*field(v) = time.Duration(f * float64(time.Second))
			return nil
		}
		d, err := time.ParseDuration(text)
		if err != nil || d < 0 {
			return fmt.Errorf("is not seconds or a duration such as 90s")
		}
		*field(v) = d
		return nil
	}}
}

func choice(field func(*Values) *string, choices ...string) reader {
	return reader{schema: enum(choices...), set: func(v *Values, text string) error {
		text = strings.ToLower(text)
		for _, c := range choices {
			if text == c {
				*field(v) = c
				return nil
			}
		}
		return fmt.Errorf("is not %s", orList(strings.Join(choices, ", ")))
	}}
}

// text is the reader of a setting that takes any text.
func text(field func(*Values) *string) reader {
	return reader{schema: map[string]any{"type": "string"}, set: func(v *Values, text string) error {
		*field(v) = text
		return nil
	}}
}

func fmtFloat(f *float64) string {
	if f == nil {
		return ""
	}
	return strconv.FormatFloat(*f, 'g', -1, 64)
}

// wholePtr is whole for a setting whose 0 is a value, not its default.
func wholePtr(field func(*Values) **int) reader {
	return reader{schema: numeric("integer", ptr(0), nil, unsignedWhole), set: func(v *Values, text string) error {
		n, err := strconv.Atoi(text)
		if err != nil || n < 0 {
			return fmt.Errorf("is not a whole number >= 0")
		}
		*field(v) = &n
		return nil
	}}
}

func fmtIntPtr(n *int) string {
	if n == nil {
		return ""
	}
	return strconv.Itoa(*n)
}

func fmtInt(n int) string {
	if n == 0 {
		return ""
	}
	return strconv.Itoa(n)
}

func fmtDuration(d time.Duration) string {
	if d == 0 {
		return ""
	}
	return d.String()
}

// parseStop reads a stop value; "None" (Python's) is no value.
func parseStop(v string) ([]string, bool) {
	switch {
	case v == "None" || v == "null":
		return nil, false
	case strings.HasPrefix(v, "["):
		var stop []string
		if json.Unmarshal([]byte(v), &stop) != nil {
			return nil, false
		}
		return dropEmpty(stop), true
	case strings.HasPrefix(v, `"`):
		var one string
		if json.Unmarshal([]byte(v), &one) != nil {
			return nil, false
		}
		return dropEmpty([]string{one}), true
	}
	var stop []string
	for _, part := range strings.Split(v, "|") {
		stop = append(stop, strings.TrimSpace(part))
	}
	return dropEmpty(stop), true
}

func dropEmpty(ss []string) []string {
	var out []string
	for _, s := range ss {
		if s != "" {
			out = append(out, s)
		}
	}
	return out
}
