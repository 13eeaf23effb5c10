package dabench

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/evalmd/evalmd/benchmark"
	"github.com/evalmd/evalmd/benchmark/dabench/score"
	"github.com/evalmd/evalmd/internal/outfile"
	"github.com/evalmd/evalmd/internal/readfile"
	"github.com/evalmd/evalmd/schema"
	"github.com/evalmd/evalmd/sheet"
)

// The files of a DABench data folder.
const (
	questionsFile = "da-dev-questions.jsonl"
	labelsFile    = "da-dev-labels.jsonl"
	tablesDir     = "da-dev-tables"
)

// Question is one DABench question with its labels.
type Question struct {
	ID          int
	Question    string
	Concepts    []string
	Constraints string
	Format      string
	FileName    string
	Level       string
	// Labels are common_answers in file order, repeated names (id 734) and
	// empty values kept.
	Labels []score.Pair
}

type questionRow struct {
	ID          *int     `json:"id"`
	Question    string   `json:"question"`
	Concepts    []string `json:"concepts"`
	Constraints string   `json:"constraints"`
	Format      string   `json:"format"`
	FileName    string   `json:"file_name"`
	Level       string   `json:"level"`
}

type labelRow struct {
	ID            *int                `json:"id"`
	CommonAnswers [][]json.RawMessage `json:"common_answers"`
}

// Load reads a DABench data folder. A line that cannot be read (bad JSON,
// no id, an id again, a field a sheet cannot hold) is reported with its
// file and line and skipped, as is a question without labels; the rest
// loads. A file that cannot be opened stops the load (the first error);
// every file is read only from below dir (readfile.Inside).
func Load(dir string) ([]Question, []error) {
	var qs []Question
	var errs []error
	index := map[int]int{}
	qline := map[int]int{}
	qpath := filepath.Join(dir, questionsFile)
	err := eachLine(qpath, dir, &errs, func(line int, data []byte) error {
		var r questionRow
		if err := json.Unmarshal(data, &r); err != nil {
			return err
		}
		if r.ID == nil {
			return fmt.Errorf("no id")
		}
		if _, dup := index[*r.ID]; dup {
			return fmt.Errorf("id %d again (first on line %d)", *r.ID, qline[*r.ID])
		}
		if err := r.check(); err != nil {
			return err
		}
		index[*r.ID] = len(qs)
		qline[*r.ID] = line
		qs = append(qs, Question{ID: *r.ID, Question: r.Question, Concepts: r.Concepts,
			Constraints: r.Constraints, Format: r.Format, FileName: r.FileName, Level: r.Level})
		return nil
	})
	if err != nil {
		return nil, append(errs, err)
	}
	seen := map[int]bool{}
	err = eachLine(filepath.Join(dir, labelsFile), dir, &errs, func(line int, data []byte) error {
		var r labelRow
		if err := json.Unmarshal(data, &r); err != nil {
			return err
		}
		if r.ID == nil {
			return fmt.Errorf("no id")
		}
		i, ok := index[*r.ID]
		if !ok {
			return fmt.Errorf("labels for id %d, which has no question", *r.ID)
		}
		if seen[*r.ID] {
			return fmt.Errorf("labels for id %d again", *r.ID)
		}
		labels, err := r.labels()
		if err != nil {
			return err
		}
		seen[*r.ID] = true
		qs[i].Labels = labels
		return nil
	})
	if err != nil {
		return nil, append(errs, err)
	}
	kept := qs[:0]
	for _, q := range qs {
		if !seen[q.ID] {
			errs = append(errs, fmt.Errorf("dabench: %s:%d: question %d has no labels in %s; skipped", qpath, qline[q.ID], q.ID, labelsFile))
			continue
		}
		kept = append(kept, q)
	}
	return kept, errs
}

// check refuses a question a sheet cannot hold: a file_name that is not
// a base name, text that is not UTF-8 or holds a carriage return or NUL,
// a concept or level that is not one line without commas.
func (r questionRow) check() error {
	// The table's name is joined to the input folder and to -o.
	if err := benchmark.CheckName(r.FileName); err != nil {
		return fmt.Errorf("id %d: file_name %w", *r.ID, err)
	}
	for _, f := range append([]string{r.Question, r.Constraints, r.Format, r.Level}, r.Concepts...) {
		if !utf8.ValidString(f) || strings.ContainsAny(f, "\r\x00") {
			// A sheet holds neither (universal newlines, binary data).
			return fmt.Errorf("id %d: text is not UTF-8 or holds a carriage return or NUL: %s", *r.ID, benchmark.Quote(f))
		}
	}
	for _, f := range append([]string{r.Level}, r.Concepts...) {
		if strings.ContainsAny(f, "\n,") {
			// Meta is one line; concepts are joined with ", ".
			return fmt.Errorf("id %d: concept or level %s holds a newline or comma", *r.ID, benchmark.Quote(f))
		}
	}
	return nil
}

// labels reads the row's [name, answer] pairs, each of which the sheet
// keeps as one "@name[value]" line.
func (r labelRow) labels() ([]score.Pair, error) {
	var labels []score.Pair
	for _, pair := range r.CommonAnswers {
		if len(pair) != 2 {
			return nil, fmt.Errorf("id %d: a label is not a [name, answer] pair", *r.ID)
		}
		name, err := labelText(pair[0])
		if err != nil {
			return nil, fmt.Errorf("id %d: label name: %w", *r.ID, err)
		}
		value, err := labelText(pair[1])
		if err != nil {
			return nil, fmt.Errorf("id %d: label %s: %w", *r.ID, benchmark.Quote(name), err)
		}
		if name == "" || strings.ContainsAny(name, "[]\r\n\x00") || strings.ContainsAny(value, "\r\n\x00") ||
			!utf8.ValidString(name) || !utf8.ValidString(value) {
			return nil, fmt.Errorf("id %d: label %s=%s cannot be written as an @name[value] line", *r.ID, benchmark.Quote(name), benchmark.Quote(value))
		}
		labels = append(labels, score.Pair{Name: name, Value: value})
	}
	return labels, nil
}

// labelText reads a label field: a string, or a number kept as written
// (the script compares str() of what it reads; all real labels are strings).
func labelText(raw json.RawMessage) (string, error) {
	var s string
	if err := json.Unmarshal(raw, &s); err == nil {
		return s, nil
	}
	var n json.Number
	if err := json.Unmarshal(raw, &n); err == nil {
		return n.String(), nil
	}
	return "", fmt.Errorf("not a string: %s", benchmark.Quote(string(raw)))
}

// eachLine calls fn with each non-blank line of a JSONL file; a line fn
// refuses is added to errs, named by file and line, and skipped. The error
// returned is the file's own (it cannot be opened or read, or it is not
// below root).
func eachLine(path, root string, errs *[]error, fn func(line int, data []byte) error) error {
	f, err := readfile.OpenInside(path, root)
	if err != nil {
		return fmt.Errorf("dabench: %w", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<26)
	n := 0
	for sc.Scan() {
		n++
		data := bytes.TrimSpace(sc.Bytes())
		if len(data) == 0 {
			continue
		}
		if err := fn(n, data); err != nil {
			*errs = append(*errs, fmt.Errorf("dabench: %s:%d: %w; skipped", path, n, err))
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("dabench: %s: %w", path, err)
	}
	return nil
}

// chatTemplate is the user-message template of DABench's chat sheets: the
// table file's name, then the question with its constraints and format
// (the question section). A model without tools cannot open the file; to
// send the table itself, replace the first line with
// {{(index .Tables 0).Text}}.
const chatTemplate = `{{range .Tables}}The data is in the CSV file {{.Name}}.
{{end}}{{.Question}}`

// agentTemplate is the user-message template of DABench's agent sheets:
// the sandbox's working directory holds each table under its base name.
const agentTemplate = `{{range .Tables}}The data is in the CSV file {{.Name}} in the working directory.
{{end}}{{.Question}}`

// Text is a question's text as the sheet stores it: the question, its
// constraints and its format requirement, the parts DABench's closed-form
// prompt carries.
func (q *Question) Text() string {
	return "Question: " + q.Question + "\n\nConstraints: " + q.Constraints + "\n\nFormat: " + q.Format
}

// faithfulText is InfiAgent's own eval prompt for a question
// ("Question: {q}\n{constraints}\n"): no format line, which reaches the
// answer through InfiAgent's reformat step instead.
func (q *Question) faithfulText() string {
	return "Question: " + q.Question + "\n" + q.Constraints + "\n"
}

// The sheet modes Convert writes.
const (
	// ModeAgent sheets (the default) answer in agent mode: the table in the
	// sandbox, the format line in the prompt.
	ModeAgent = "agent"
	// ModeChat sheets answer in one completion, the table named only.
	ModeChat = "chat"
)

// sheetStyle says how a sheet is written: its mode and whether it carries
// InfiAgent's own prompt.
type sheetStyle struct {
	// Mode is ModeAgent or ModeChat.
	Mode string
	// Faithful writes InfiAgent's eval prompt (faithfulText) with its ReAct
	// agent style and the "reformat: required" meta: a model's answer
	// reaches the @name[value] format only through run --reformat.
	// Agent mode only.
	Faithful bool
}

func (st sheetStyle) check() error {
	switch st.Mode {
	case ModeAgent:
	case ModeChat:
		if st.Faithful {
			return fmt.Errorf("dabench: -faithful writes agent sheets (InfiAgent's ReAct agent); it cannot go with -mode chat")
		}
	default:
		return fmt.Errorf("dabench: mode %q: want %s or %s", st.Mode, ModeAgent, ModeChat)
	}
	return nil
}

// sheetFileName is the file name of the sheet for one table file: "input-" so
// run -d finds it, and only [A-Za-z0-9._-] in the rest.
func sheetFileName(table string) string {
	stem := strings.TrimSuffix(table, filepath.Ext(table))
	var b strings.Builder
	for _, r := range stem {
		if r < 0x80 && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '_' || r == '-') {
			b.WriteRune(r)
		} else {
			b.WriteByte('-')
		}
	}
	return "input-dabench-" + b.String() + ".md"
}

// questionName is the name of a question in its sheet.
func questionName(id int) string { return "DABench-" + strconv.Itoa(id) }

// buildSheet returns the sheet of the questions on one table in the given style
// (st must be valid: see sheetStyle). tablePath is the path the files section
// names (relative to the sheet's folder).
func buildSheet(table, tablePath string, qs []Question, st sheetStyle) *sheet.Doc {
	meta := [][2]string{
		{"benchmark", score.Name},
		{"grader", "dabench"},
		// eval_closed_form.py matches responses by integer id.
		{"id_type", "number"},
		{"table", table},
		// The tables' folder, so a run sends the table (see
		// prompt.Builder).
		{"data_root", filepath.ToSlash(filepath.Dir(tablePath))},
	}
	tpl := chatTemplate
	if st.Mode == ModeAgent {
		meta = append(meta, [2]string{"mode", ModeAgent})
		tpl = agentTemplate
		if st.Faithful {
			meta = append(meta, [2]string{"agent_style", "react"}, [2]string{"reformat", "required"})
		}
	}
	head := sheet.Block{Kind: sheet.SheetKind, Name: "DABench " + table}
	head.Sections = []sheet.Section{
		{Kind: "meta", Text: sheet.MetaText(meta...)},
		{Kind: "files", Text: "- " + filepath.ToSlash(tablePath) + "\n"},
		{Kind: "templates", Text: tpl},
	}
	doc := &sheet.Doc{Blocks: []sheet.Block{head}}
	for i := range qs {
		q := &qs[i]
		text := q.Text()
		qmeta := [][2]string{
			{"id", strconv.Itoa(q.ID)},
			{"concepts", strings.Join(q.Concepts, ", ")},
			{"level", q.Level},
		}
		if st.Faithful {
			text = q.faithfulText()
			// What InfiAgent's reformat step shows its model besides the
			// answer (see model.Reformat): JSON strings, as they may span
			// lines.
			qmeta = append(qmeta, [2]string{"reformat_question", jsonString(q.Question)}, [2]string{"reformat_format", jsonString(q.Format)})
		}
		doc.Blocks = append(doc.Blocks, sheet.Block{
			Kind: sheet.QuestionKind,
			Name: questionName(q.ID),
			Sections: []sheet.Section{
				{Kind: "meta", Text: sheet.MetaText(qmeta...)},
				{Kind: "question", Text: text},
				{Kind: "answer", Text: score.LabelsText(q.Labels)},
			},
		})
	}
	return doc
}

// jsonString is s as a JSON string, HTML characters kept as they are.
func jsonString(s string) string {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.Encode(s) // a string always encodes
	return strings.TrimSuffix(b.String(), "\n")
}

// Options say what to convert.
type Options struct {
	// Data is the data folder (da-dev-questions.jsonl, da-dev-labels.jsonl, da-dev-tables).
	Data string `flag:"i,required" meta:"DIR" usage:"DABench's data folder (examples/DA-Agent/data)"`
	// Out is the folder the sheets are written to.
	Out string `flag:"o,required" meta:"DIR" usage:"output folder for the sheets"`
	// Mode is ModeAgent (empty means it) or ModeChat.
	Mode string `flag:"mode" usage:"sheet mode: agent (default: the table in the sandbox, the format line in the prompt) or chat"`
	// Faithful writes InfiAgent's own prompt and ReAct style (see sheetStyle).
	Faithful bool `flag:"faithful" usage:"InfiAgent's eval prompt (no format line) and ReAct agent; answers need run --reformat"`
	// Write says which existing sheets may be replaced (see
	// internal/outfile); Data is always an input.
	Write outfile.Options
}

// Convert reads the data folder opt.Data and writes one sheet per table
// file into opt.Out, in the order the tables first appear. It returns the
// paths written and every problem met: a bad line, a missing table or a
// sheet that may not be written is reported and skipped, and the rest is
// still written.
func Convert(opt Options) ([]string, []error) {
	dataDir, outDir := opt.Data, opt.Out
	opt.Write.Inputs = append(opt.Write.Inputs, dataDir)
	st := sheetStyle{Mode: opt.Mode, Faithful: opt.Faithful}
	if st.Mode == "" {
		st.Mode = ModeAgent
	}
	if err := st.check(); err != nil {
		return nil, []error{err}
	}
	qs, errs := Load(dataDir)
	if qs == nil && len(errs) > 0 {
		return nil, errs
	}
	if err := outfile.MkdirAll(outDir, 0o755); err != nil {
		return nil, append(errs, fmt.Errorf("dabench: %w", err))
	}
	var order []string
	byTable := map[string][]Question{}
	for _, q := range qs {
		if _, ok := byTable[q.FileName]; !ok {
			order = append(order, q.FileName)
		}
		byTable[q.FileName] = append(byTable[q.FileName], q)
	}
	names := map[string]string{}
	var written []string
	for _, table := range order {
		name := sheetFileName(table)
		if other, dup := names[name]; dup {
			errs = append(errs, fmt.Errorf("dabench: tables %s and %s would share the sheet %s; %s skipped", benchmark.Quote(other), benchmark.Quote(table), name, benchmark.Quote(table)))
			continue
		}
		names[name] = table
		src := filepath.Join(dataDir, tablesDir, table)
		if _, err := os.Stat(src); err != nil {
			errs = append(errs, fmt.Errorf("dabench: table of %d question(s): %w; skipped", len(byTable[table]), err))
			continue
		}
		// The table goes beside the sheets, which send it from there: a
		// sheet sends files from below its own folder only, unless the
		// user vouches for another (run --data-root).
		rel := filepath.Join(tablesDir, table)
		if _, err := outfile.Link(filepath.Join(outDir, rel), src, dataDir, opt.Write); err != nil {
			errs = append(errs, fmt.Errorf("dabench: table of %d question(s): %w; skipped", len(byTable[table]), err))
			continue
		}
		data, err := sheet.Format(buildSheet(table, rel, byTable[table], st), schema.Default())
		if err != nil {
			errs = append(errs, fmt.Errorf("dabench: table %s: %w", table, err))
			continue
		}
		path := filepath.Join(outDir, name)
		if err := outfile.Write(path, data, opt.Write); err != nil {
			errs = append(errs, fmt.Errorf("dabench: %w", err))
			continue
		}
		written = append(written, path)
	}
	return written, errs
}
