// Package databench turns DataBench question-answer tables (the QA sets of
// databench_eval: SemEval 2025 Task 8 and the IberLEF Spanish set) into
// question sheets graded by the "databench" grader (databench_eval 4.0.1's
// default_compare; set the grader meta to "databench-semeval" for the
// 3.0.0 scorer SemEval used).
//
// A QA table is CSV with a header row or JSON Lines, with the columns
// question, dataset, and optionally answer, type (the semantic type),
// sample_answer (the answer on the dataset's 20-row sample, DataBench lite).
// Answers and semantics may also come from the competition's line files
// (answers.txt, answers_lite.txt, semantics.txt: one line per QA row).
package databench

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/evalmd/evalmd/internal/outfile"
	"github.com/evalmd/evalmd/internal/readfile"
	"github.com/evalmd/evalmd/schema"
	"github.com/evalmd/evalmd/sheet"
)

// Row is one QA row.
type Row struct {
	// Index is the row's place in the QA table, from 0: the line of its
	// answer in the competition's answer files and a submission.
	Index        int
	Question     string
	Dataset      string
	Answer       string
	HasAnswer    bool
	Semantic     string
	SampleAnswer string
	HasSample    bool
}

// Options say what to convert.
type Options struct {
	// QA is the QA table (.csv, or .jsonl/.json for JSON Lines).
	QA string
	// Answers, AnswersLite and Semantics are optional line files that give
	// (or replace) the answer, sample_answer and type of each row in order.
	Answers, AnswersLite, Semantics string
	// Tables is the folder holding <dataset>/all.parquet and
	// <dataset>/sample.parquet (DataBench's layout); empty means "data"
	// beside the QA table.
	Tables string
	// Out is the folder the sheets are written to.
	Out string
	// Write says which existing sheets may be replaced (see
	// internal/outfile).
	Write outfile.Options
}

// Load reads the QA table and the line files of opt.
func Load(opt Options) ([]Row, error) {
	rows, err := readQA(opt.QA)
	if err != nil {
		return nil, err
	}
	for _, lf := range []struct {
		path string
		set  func(r *Row, v string)
	}{
		{opt.Answers, func(r *Row, v string) { r.Answer, r.HasAnswer = v, true }},
		{opt.AnswersLite, func(r *Row, v string) { r.SampleAnswer, r.HasSample = v, true }},
		{opt.Semantics, func(r *Row, v string) { r.Semantic = v }},
	} {
		if lf.path == "" {
			continue
		}
		lines, err := ReadLines(lf.path)
		if err != nil {
			return nil, err
		}
		if len(lines) != len(rows) {
			return nil, fmt.Errorf("databench: %s has %d lines for %d QA rows", lf.path, len(lines), len(rows))
		}
		for i := range rows {
			lf.set(&rows[i], lines[i])
		}
	}
	for _, r := range rows {
		if strings.TrimSpace(r.Dataset) == "" {
			return nil, fmt.Errorf("databench: %s row %d: no dataset", opt.QA, r.Index)
		}
		if strings.ContainsAny(r.Semantic, "\r\n") {
			return nil, fmt.Errorf("databench: row %d: semantic %q spans lines", r.Index, r.Semantic)
		}
		for _, f := range []string{r.Question, r.Dataset, r.Answer, r.SampleAnswer, r.Semantic} {
			if !utf8.ValidString(f) {
				return nil, fmt.Errorf("databench: row %d: text is not UTF-8: %q", r.Index, f)
			}
			if strings.ContainsAny(f, "\r\x00") {
				// A sheet cannot keep a carriage return (universal
				// newlines) or a NUL (binary data).
				return nil, fmt.Errorf("databench: row %d: text holds a carriage return or NUL: %q", r.Index, f)
			}
		}
	}
	return rows, nil
}

// ReadLines reads a competition line file: one value per line, a final
// newline optional, "\r\n" taken as a line end.
func ReadLines(path string) ([]string, error) {
	data, err := readfile.Read(path, readfile.Small)
	if err != nil {
		return nil, fmt.Errorf("databench: %w", err)
	}
	s := strings.TrimSuffix(strings.ReplaceAll(string(data), "\r\n", "\n"), "\n")
	if s == "" {
		return nil, nil
	}
	return strings.Split(s, "\n"), nil
}

func readQA(path string) ([]Row, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("databench: %w", err)
	}
	defer f.Close()
	var recs []map[string]any
	switch strings.ToLower(filepath.Ext(path)) {
	case ".jsonl", ".json":
		recs, err = readJSONL(f)
	default:
		recs, err = readCSV(f)
	}
	if err != nil {
		return nil, fmt.Errorf("databench: %s: %w", path, err)
	}
	rows := make([]Row, 0, len(recs))
	for i, rec := range recs {
		r := Row{Index: i}
		var ok bool
		if r.Question, ok = field(rec, "question"); !ok {
			return nil, fmt.Errorf("databench: %s row %d: no question", path, i)
		}
		r.Dataset, _ = field(rec, "dataset")
		r.Answer, r.HasAnswer = field(rec, "answer")
		r.Semantic, _ = field(rec, "type")
		if s, ok := field(rec, "semantic"); ok && r.Semantic == "" {
			r.Semantic = s
		}
		r.SampleAnswer, r.HasSample = field(rec, "sample_answer")
		rows = append(rows, r)
	}
	return rows, nil
}

// field reads a column as text; JSON values other than strings keep their
// JSON spelling (a list answer stays a list's text).
func field(rec map[string]any, key string) (string, bool) {
	v, ok := rec[key]
	if !ok || v == nil {
		return "", false
	}
	switch x := v.(type) {
	case string:
		return x, true
	case json.Number:
		return x.String(), true
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v), true
	}
	return string(b), true
}

func readJSONL(r io.Reader) ([]map[string]any, error) {
	var out []map[string]any
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<26)
	line := 0
	for sc.Scan() {
		line++
		b := bytes.TrimSpace(sc.Bytes())
		if len(b) == 0 {
			continue
		}
		var m map[string]any
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.UseNumber()
		if err := dec.Decode(&m); err != nil {
			return nil, fmt.Errorf("line %d: %w", line, err)
		}
		out = append(out, m)
	}
	return out, sc.Err()
}

func readCSV(r io.Reader) ([]map[string]any, error) {
	cr := csv.NewReader(r)
	cr.FieldsPerRecord = -1
	header, err := cr.Read()
	if err != nil {
		return nil, fmt.Errorf("header: %w", err)
	}
	for i := range header {
		header[i] = strings.TrimSpace(strings.TrimPrefix(header[i], "\ufeff"))
	}
	var out []map[string]any
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
		m := map[string]any{}
		for i, v := range rec {
			if i < len(header) && header[i] != "" {
				m[header[i]] = v
			}
		}
		out = append(out, m)
	}
}

// Template is the user message of every DataBench sheet: the table's path,
// the question, and the semantic type the answer should have (DataBench's
// baseline prompts state it too).
const Template = `{{range .Tables}}The table is {{.Path}}.
{{end}}Question: {{.Question}}
{{with index .Meta "semantic"}}Answer with a value of type {{.}}.{{end}}`

// SheetName is the file name of a dataset's sheet (lite: the sample-table
// sheet); only [A-Za-z0-9._-] are kept from the dataset name.
func SheetName(dataset string, lite bool) string {
	var b strings.Builder
	for _, r := range dataset {
		if r < 0x80 && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '_' || r == '-') {
			b.WriteRune(r)
		} else {
			b.WriteByte('-')
		}
	}
	if lite {
		return "input-databench-lite-" + b.String() + ".md"
	}
	return "input-databench-" + b.String() + ".md"
}

// QuestionName is a row's question name.
func QuestionName(index int) string { return "DataBench-" + strconv.Itoa(index) }

// Sheet returns the sheet of one dataset's rows. Lite uses the 20-row
// sample table and the sample answers; table is the files-section path.
func Sheet(dataset, table string, rows []Row, lite bool) (*sheet.Doc, error) {
	name := "DataBench " + dataset
	if lite {
		name += " (lite)"
	}
	head := sheet.Block{Kind: sheet.SheetKind, Name: strings.Join(strings.Fields(name), " ")}
	head.Sections = []sheet.Section{
		{Kind: "meta", Text: sheet.MetaText(
			[2]string{"benchmark", "databench"},
			[2]string{"grader", "databench"},
			[2]string{"dataset", strings.Join(strings.Fields(dataset), " ")},
			[2]string{"lite", strconv.FormatBool(lite)},
		)},
		{Kind: "files", Text: "- " + filepath.ToSlash(table) + "\n"},
		{Kind: "templates", Text: Template},
	}
	doc := &sheet.Doc{Blocks: []sheet.Block{head}}
	for _, r := range rows {
		meta := [][2]string{{"id", strconv.Itoa(r.Index)}}
		if r.Semantic != "" {
			meta = append(meta, [2]string{"semantic", strings.TrimSpace(r.Semantic)})
		}
		secs := []sheet.Section{
			{Kind: "meta", Text: sheet.MetaText(meta...)},
			{Kind: "question", Text: sheet.Exact(r.Question)},
		}
		answer, has := r.Answer, r.HasAnswer
		if lite {
			answer, has = r.SampleAnswer, r.HasSample
		}
		if has {
			// Exact: default_compare strips only its own characters, so
			// the answer must come back byte for byte.
			secs = append(secs, sheet.Section{Kind: "answer", Text: sheet.Exact(answer)})
		}
		doc.Blocks = append(doc.Blocks, sheet.Block{Kind: sheet.QuestionKind, Name: QuestionName(r.Index), Sections: secs})
	}
	return doc, nil
}

// Convert writes one sheet per dataset (and a lite sheet per dataset when
// sample answers are present) into opt.Out, datasets in order of first
// appearance. It returns the paths written.
func Convert(opt Options) ([]string, error) {
	rows, err := Load(opt)
	if err != nil {
		return nil, err
	}
	tables := opt.Tables
	if tables == "" {
		tables = filepath.Join(filepath.Dir(opt.QA), "data")
	}
	if err := os.MkdirAll(opt.Out, 0o755); err != nil {
		return nil, fmt.Errorf("databench: %w", err)
	}
	var order []string
	by := map[string][]Row{}
	lite := false
	for _, r := range rows {
		if _, ok := by[r.Dataset]; !ok {
			order = append(order, r.Dataset)
		}
		by[r.Dataset] = append(by[r.Dataset], r)
		lite = lite || r.HasSample
	}
	owner := map[string]string{}
	var written []string
	for _, ds := range order {
		for _, l := range []bool{false, true} {
			if l && !lite {
				continue
			}
			name := SheetName(ds, l)
			if other, dup := owner[name]; dup && other != ds {
				return written, fmt.Errorf("databench: datasets %q and %q would share the sheet %s", other, ds, name)
			}
			owner[name] = ds
			file := "all.parquet"
			if l {
				file = "sample.parquet"
			}
			rel, err := relPath(opt.Out, filepath.Join(tables, ds, file))
			if err != nil {
				return written, err
			}
			doc, err := Sheet(ds, rel, by[ds], l)
			if err != nil {
				return written, err
			}
			data, err := sheet.Format(doc, schema.Default())
			if err != nil {
				return written, fmt.Errorf("databench: dataset %s: %w", ds, err)
			}
			path := filepath.Join(opt.Out, name)
			if err := outfile.Write(path, data, opt.Write); err != nil {
				return written, fmt.Errorf("databench: %w", err)
			}
			written = append(written, path)
		}
	}
	return written, nil
}

func relPath(dir, target string) (string, error) {
	ad, err := filepath.Abs(dir)
	if err != nil {
		return "", fmt.Errorf("databench: %w", err)
	}
	at, err := filepath.Abs(target)
	if err != nil {
		return "", fmt.Errorf("databench: %w", err)
	}
	if rel, err := filepath.Rel(ad, at); err == nil {
		return rel, nil
	}
	return at, nil
}
