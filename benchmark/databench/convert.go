package databench

import (
	"bufio"
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/evalmd/evalmd/benchmark"
	"github.com/evalmd/evalmd/benchmark/databench/score"
	"github.com/evalmd/evalmd/codemode"
	"github.com/evalmd/evalmd/internal/outfile"
	"github.com/evalmd/evalmd/internal/readfile"
	"github.com/evalmd/evalmd/schema"
	"github.com/evalmd/evalmd/sheet"
	"github.com/evalmd/evalmd/table"
)

// row is one QA row.
type row struct {
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

// options say what to convert.
type options struct {
	// QA is the QA table (.csv, or .jsonl/.json for JSON Lines).
	QA string `flag:"i,required" meta:"QA" usage:"the QA table (.csv, or .jsonl/.json)"`
	// Answers, AnswersLite and Semantics are optional line files that give
	// (or replace) the answer, sample_answer and type of each row in order.
	Answers     string `flag:"answers" usage:"answers file, one per line"`
	AnswersLite string `flag:"lite" usage:"lite answers file, one per line"`
	Semantics   string `flag:"semantics" usage:"semantic types file, one per line"`
	// Tables is the folder holding <dataset>/all.parquet and
	// <dataset>/sample.parquet (DataBench's layout); empty means "data"
	// beside the QA table.
	Tables string `flag:"tables" usage:"folder of <dataset>/all.parquet tables (default: data beside the QA table)"`
	// Out is the folder the sheets are written to.
	Out string `flag:"o,required" meta:"DIR" usage:"output folder for the sheets"`
	// Mode is "code" (modeCode; empty means it) or "chat" (modeChat).
	Mode string `flag:"mode" usage:"sheet mode: code (default: the competition baseline's prompt, the model's code run on the table) or chat"`
	// Write says which existing sheets may be replaced (see
	// internal/outfile); the files read are always inputs.
	Write outfile.Options
}

// loadRows reads the QA table and the line files of opt. A QA row that cannot
// be read or cannot be a question (bad JSON, no question or dataset, text a
// sheet cannot hold) is reported with its file and line and skipped; the
// other rows keep their place (Index), so answer lines still match. A file
// that cannot be read, or a line file whose length is not the QA table's,
// stops the load (the last error).
func loadRows(opt options) ([]row, []error) {
	rows, total, errs, err := readQA(opt.QA)
	if err != nil {
		return nil, append(errs, err)
	}
	for _, lf := range []struct {
		path string
		set  func(r *row, v string)
	}{
		{opt.Answers, func(r *row, v string) { r.Answer, r.HasAnswer = v, true }},
		{opt.AnswersLite, func(r *row, v string) { r.SampleAnswer, r.HasSample = v, true }},
		{opt.Semantics, func(r *row, v string) { r.Semantic = v }},
	} {
		if lf.path == "" {
			continue
		}
		lines, err := readLineFile(lf.path)
		if err != nil {
			return nil, append(errs, err)
		}
		if len(lines) != total {
			return nil, append(errs, fmt.Errorf("databench: %s has %d lines for %d QA rows", lf.path, len(lines), total))
		}
		for i := range rows {
			lf.set(&rows[i].row, lines[rows[i].Index])
		}
	}
	var out []row
	for _, r := range rows {
		if err := checkRow(r.row); err != nil {
			errs = append(errs, fmt.Errorf("databench: %s:%d: row %d: %w; skipped", opt.QA, r.line, r.Index, err))
			continue
		}
		out = append(out, r.row)
	}
	return out, errs
}

// checkRow refuses a row a sheet cannot hold.
func checkRow(r row) error {
	if strings.TrimSpace(r.Dataset) == "" {
		return fmt.Errorf("no dataset")
	}
	// The dataset is a folder of the tables folder and of -o.
	if err := benchmark.CheckName(r.Dataset); err != nil {
		return fmt.Errorf("dataset %w", err)
	}
	if strings.ContainsAny(r.Semantic, "\r\n") {
		return fmt.Errorf("semantic %s spans lines", benchmark.Quote(r.Semantic))
	}
	for _, f := range []string{r.Question, r.Dataset, r.Answer, r.SampleAnswer, r.Semantic} {
		if !utf8.ValidString(f) {
			return fmt.Errorf("text is not UTF-8: %s", benchmark.Quote(f))
		}
		if strings.ContainsAny(f, "\r\x00") {
			// A sheet cannot keep a carriage return (universal
			// newlines) or a NUL (binary data).
			return fmt.Errorf("text holds a carriage return or NUL: %s", benchmark.Quote(f))
		}
		if sheet.CutEnd(f) != f {
			return fmt.Errorf("text holds a sheet end token (<EVAL-ENDCHAR>): %s", benchmark.Quote(f))
		}
	}
	return nil
}

// readLineFile reads a competition line file: one value per line, a final
// newline optional, "\r\n" taken as a line end.
func readLineFile(path string) ([]string, error) {
	data, err := readfile.ReadInside(path, filepath.Dir(path), readfile.Small)
	if err != nil {
		return nil, fmt.Errorf("databench: %w", err)
	}
	s := strings.TrimSuffix(strings.ReplaceAll(string(data), "\r\n", "\n"), "\n")
	if s == "" {
		return nil, nil
	}
	return strings.Split(s, "\n"), nil
}

// qaRow is a row with the file line it starts on.
type qaRow struct {
	row
	line int
}

// qaRecord is one record of a QA table: its columns, or why it could not
// be read.
type qaRecord struct {
	line int
	cols map[string]any
	err  error
}

// readQA reads a QA table: the rows read, how many rows the table has
// (those that could not be read included, as they keep their place), the
// rows' problems, and the error that stopped the reading.
func readQA(path string) ([]qaRow, int, []error, error) {
	f, err := readfile.OpenInside(path, filepath.Dir(path))
	if err != nil {
		return nil, 0, nil, fmt.Errorf("databench: %w", err)
	}
	defer f.Close()
	var recs []qaRecord
	switch strings.ToLower(filepath.Ext(path)) {
	case ".jsonl", ".json":
		recs, err = readJSONL(f)
	default:
		recs, err = readCSV(f)
	}
	if err != nil {
		return nil, 0, nil, fmt.Errorf("databench: %s: %w", path, err)
	}
	var errs []error
	rows := make([]qaRow, 0, len(recs))
	for i, rec := range recs {
		if rec.err != nil {
			errs = append(errs, fmt.Errorf("databench: %s:%d: %w; skipped", path, rec.line, rec.err))
			continue
		}
		r := qaRow{row: row{Index: i}, line: rec.line}
		var ok bool
		if r.Question, ok = field(rec.cols, "question"); !ok {
			errs = append(errs, fmt.Errorf("databench: %s:%d: row %d: no question; skipped", path, rec.line, i))
			continue
		}
		r.Dataset, _ = field(rec.cols, "dataset")
		r.Answer, r.HasAnswer = field(rec.cols, "answer")
		r.Semantic, _ = field(rec.cols, "type")
		if s, ok := field(rec.cols, "semantic"); ok && r.Semantic == "" {
			r.Semantic = s
		}
		r.SampleAnswer, r.HasSample = field(rec.cols, "sample_answer")
		rows = append(rows, r)
	}
	return rows, len(recs), errs, nil
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

// readJSONL reads a JSON Lines table; a line that is not a JSON object is
// a record with its error.
func readJSONL(r io.Reader) ([]qaRecord, error) {
	var out []qaRecord
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
		err := dec.Decode(&m)
		if err == nil && m == nil {
			err = fmt.Errorf("not a JSON object")
		}
		out = append(out, qaRecord{line: line, cols: m, err: err})
	}
	return out, sc.Err()
}

// readCSV reads a CSV table with a header row; a record the CSV reader
// refuses is a record with its error, and reading goes on.
func readCSV(r io.Reader) ([]qaRecord, error) {
	cr := csv.NewReader(r)
	cr.FieldsPerRecord = -1
	header, err := cr.Read()
	if err != nil {
		return nil, fmt.Errorf("header: %w", err)
	}
	for i := range header {
		header[i] = strings.TrimSpace(strings.TrimPrefix(header[i], "\ufeff"))
	}
	var out []qaRecord
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			return out, nil
		}
		var pe *csv.ParseError
		if errors.As(err, &pe) {
			out = append(out, qaRecord{line: pe.StartLine, err: err})
			continue
		}
		if err != nil {
			return nil, err
		}
		line, _ := cr.FieldPos(0)
		m := map[string]any{}
		for i, v := range rec {
			if i < len(header) && header[i] != "" {
				m[header[i]] = v
			}
		}
		out = append(out, qaRecord{line: line, cols: m})
	}
}

// The sheet modes convert writes.
const (
	// modeCode sheets (the default) answer in code mode, DataBench's own
	// method: the prompt is the competition baseline's (codeTemplate), the
	// model's code runs on the question's table in the sandbox, and its
	// result is the answer graded.
	modeCode = "code"
	// modeChat sheets answer in one completion (chatTemplate): the table is
	// named, not shown.
	modeChat = "chat"
)

// sheetStyle says how a dataset's sheet is written.
type sheetStyle struct {
	// Mode is modeCode or modeChat.
	Mode string
	// Lite writes the sheet of the dataset's 20-row sample table, with the
	// sample answers.
	Lite bool
	// Columns are the dataset's column names (list(df.columns) of its
	// sample table, as the baseline reads them); code mode only.
	Columns []string
}

func (st sheetStyle) check() error {
	if st.Mode != modeCode && st.Mode != modeChat {
		return fmt.Errorf("databench: mode %q: want %s or %s", st.Mode, modeCode, modeChat)
	}
	return nil
}

// chatTemplate is the user message of DataBench's chat sheets: the table's
// path, the question, and the semantic type the answer should have.
const chatTemplate = `{{range .Tables}}The table is {{.Path}}.
{{end}}Question: {{.Question}}
{{with index .Meta "semantic"}}Answer with a value of type {{.}}.{{end}}`

// codeTemplate is the user-message template of a dataset's code-mode
// sheet: the competition baseline's prompt word for word
// (codemode.Prompt), the dataset's columns written in, and the question
// left to the template ({{.Question}}). The prompt's own text is escaped,
// so a column name holding "{{" stays text.
func codeTemplate(columns []string) (string, error) {
	const mark = "\x00" // pyRepr writes a NUL in a column name as \x00
	before, after, ok := strings.Cut(codemode.Prompt(mark, columns), mark)
	if !ok || strings.Contains(after, mark) {
		return "", fmt.Errorf("databench: the baseline prompt lost its question")
	}
	esc := func(s string) string { return strings.ReplaceAll(s, "{{", `{{"{{"}}`) }
	tpl := esc(before) + "{{.Question}}" + esc(after)
	if sheet.CutEnd(tpl) != tpl {
		// The sheet would cut its templates section there.
		return "", fmt.Errorf("databench: a column name holds a sheet end token (<EVAL-ENDCHAR>): %s", benchmark.Quote(strings.Join(columns, ", ")))
	}
	return tpl, nil
}

// sheetFileName is the file name of a dataset's sheet (lite: the sample-table
// sheet); only [A-Za-z0-9._-] are kept from the dataset name.
func sheetFileName(dataset string, lite bool) string {
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

// questionName is a row's question name.
func questionName(index int) string { return "DataBench-" + strconv.Itoa(index) }

// datasetSheet returns the sheet of one dataset's rows in the given style
// (lite: the 20-row sample table and the sample answers); table is the
// files-section path.
func datasetSheet(dataset, table string, rows []row, st sheetStyle) (*sheet.Doc, error) {
	if err := st.check(); err != nil {
		return nil, err
	}
	name := "DataBench " + dataset
	if st.Lite {
		name += " (lite)"
	}
	meta := [][2]string{
		{"benchmark", score.Name},
		{"grader", "databench"},
		{"dataset", strings.Join(strings.Fields(dataset), " ")},
		{"lite", strconv.FormatBool(st.Lite)},
		// The dataset's folder, so a run may send the table (see
		// prompt.Builder).
		{"data_root", filepath.ToSlash(filepath.Dir(table))},
	}
	tpl := chatTemplate
	if st.Mode == modeCode {
		meta = append(meta, [2]string{"mode", modeCode})
		var err error
		if tpl, err = codeTemplate(st.Columns); err != nil {
			return nil, err
		}
	}
	head := sheet.Block{Kind: sheet.SheetKind, Name: strings.Join(strings.Fields(name), " ")}
	head.Sections = []sheet.Section{
		{Kind: "meta", Text: sheet.MetaText(meta...)},
		{Kind: "files", Text: "- " + filepath.ToSlash(table) + "\n"},
		// Exact: the baseline's prompt starts with a newline.
		{Kind: "templates", Text: sheet.Exact(tpl)},
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
		if st.Lite {
			answer, has = r.SampleAnswer, r.HasSample
		}
		if has {
			// Exact: default_compare strips only its own characters, so
			// the answer must come back byte for byte.
			secs = append(secs, sheet.Section{Kind: "answer", Text: sheet.Exact(answer)})
		}
		doc.Blocks = append(doc.Blocks, sheet.Block{Kind: sheet.QuestionKind, Name: questionName(r.Index), Sections: secs})
	}
	return doc, nil
}

// convert reads the QA table and writes one sheet per dataset into
// opt.Out (and one per dataset's sample table when lite answers are
// given). Code-mode sheets (the default) need each dataset's table: the
// prompt lists its columns. It returns the sheets written and every
// problem met: a row that cannot be read, or a sheet that cannot be built
// or may not be written, is reported and skipped, and the rest is still
// written.
func convert(ctx context.Context, opt options) ([]string, []error) {
	mode := opt.Mode
	if mode == "" {
		mode = modeCode
	}
	if err := (sheetStyle{Mode: mode}).check(); err != nil {
		return nil, []error{err}
	}
	opt.Write.Inputs = append(opt.Write.Inputs, opt.QA, opt.Answers, opt.AnswersLite, opt.Semantics)
	rows, errs := loadRows(opt)
	if rows == nil && len(errs) > 0 {
		return nil, errs
	}
	tables := opt.Tables
	if tables == "" {
		tables = filepath.Join(filepath.Dir(opt.QA), "data")
	}
	if err := outfile.MkdirAll(opt.Out, 0o755); err != nil {
		return nil, append(errs, fmt.Errorf("databench: %w", err))
	}
	var order []string
	by := map[string][]row{}
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
		st := sheetStyle{Mode: mode}
		if mode == modeCode {
			cols, err := readColumns(ctx, tables, ds)
			if err != nil {
				errs = append(errs, fmt.Errorf("databench: dataset %s (%d questions): %w; skipped (give -tables, or write chat sheets with -mode chat)", ds, len(by[ds]), err))
				continue
			}
			st.Columns = cols
		}
		for _, l := range []bool{false, true} {
			if l && !lite {
				continue
			}
			st.Lite = l
			path, err := convertOne(opt, tables, ds, by[ds], st, owner)
			if err != nil {
				errs = append(errs, err)
				continue
			}
			written = append(written, path)
		}
	}
	return written, errs
}

// readColumns reads the column names of a dataset's table from its folder
// under tables (DataBench's layout): sample.parquet, which the baseline's
// prompt reads, else all.parquet, which has the same columns. The table
// is read only from below tables.
func readColumns(ctx context.Context, tables, ds string) ([]string, error) {
	path := filepath.Join(tables, ds, "sample.parquet")
	if _, err := os.Lstat(path); err != nil {
		path = filepath.Join(tables, ds, "all.parquet")
	}
	real, err := readfile.Inside(path, tables)
	if err != nil {
		return nil, err
	}
	t, err := table.Read(ctx, real, table.Options{})
	if err != nil {
		return nil, fmt.Errorf("reading the columns for the code-mode prompt: %w", err)
	}
	cols := make([]string, len(t.Columns))
	for i, c := range t.Columns {
		cols[i] = c.Name
	}
	return cols, nil
}

// convertOne writes the sheet of one dataset (lite: of its sample table).
func convertOne(opt options, tables, ds string, rows []row, st sheetStyle, owner map[string]string) (string, error) {
	name := sheetFileName(ds, st.Lite)
	if other, dup := owner[name]; dup && other != ds {
		return "", fmt.Errorf("databench: datasets %s and %s would share the sheet %s; %s skipped", benchmark.Quote(other), benchmark.Quote(ds), name, benchmark.Quote(ds))
	}
	owner[name] = ds
	file := "all.parquet"
	if st.Lite {
		file = "sample.parquet"
	}
	// The table goes beside the sheet, which sends it from there: a sheet
	// sends files from below its own folder only, unless the user vouches
	// for another (run --data-root). A chat sheet converted without the
	// tables names where they would be.
	src := filepath.Join(tables, ds, file)
	rel := filepath.Join("data", ds, file)
	if _, err := os.Stat(src); err == nil {
		if _, err := outfile.Link(filepath.Join(opt.Out, rel), src, tables, opt.Write); err != nil {
			return "", fmt.Errorf("databench: dataset %s: %w", ds, err)
		}
	} else if rel, err = relPath(opt.Out, src); err != nil {
		return "", err
	}
	doc, err := datasetSheet(ds, rel, rows, st)
	if err != nil {
		return "", err
	}
	data, err := sheet.Format(doc, schema.Default())
	if err != nil {
		return "", fmt.Errorf("databench: dataset %s: %w", ds, err)
	}
	path := filepath.Join(opt.Out, name)
	if err := outfile.Write(path, data, opt.Write); err != nil {
		return "", fmt.Errorf("databench: %w", err)
	}
	return path, nil
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
