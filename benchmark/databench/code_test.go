package databench

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"text/template"

	"github.com/parquet-go/parquet-go"

	"github.com/evalmd/evalmd/codemode"
	"github.com/evalmd/evalmd/prompt"
	"github.com/evalmd/evalmd/schema"
	"github.com/evalmd/evalmd/sheet"
)

// writeRows writes rows (a struct slice) as a parquet file at path, its
// folders made.
func writeRows[T any](t *testing.T, path string, rows []T, opts ...parquet.WriterOption) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w := parquet.NewGenericWriter[T](f, opts...)
	if _, err := w.Write(rows); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

func writeFile(t *testing.T, path, body string) string {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// oddRow has column names the prompt must quote as Python does: a quote,
// a non-ASCII letter, template braces, a space.
type oddRow struct {
	Name  string  `parquet:"name"`
	Quote int64   `parquet:"it's"`
	Naive float64 `parquet:"naïve"`
	Brace string  `parquet:"{{x}}"`
	Space bool    `parquet:"has space"`
}

// buildRequest parses a written sheet and builds the request of its
// first question, as run --data-root data does.
func buildRequest(t *testing.T, path, data string) (sheet.Item, string) {
	t.Helper()
	doc, err := sheet.ParseFile(path, schema.Default())
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range doc.Warnings {
		t.Errorf("%s", w)
	}
	info, items := doc.Resolve()
	if len(items) == 0 {
		t.Fatalf("%s: no questions", path)
	}
	b := &prompt.Builder{Dir: filepath.Dir(path), SheetMeta: info.Meta, DataRoots: []string{data}}
	req, err := b.Build(t.Context(), path, &items[0])
	if err != nil {
		t.Fatal(err)
	}
	if req.Solve == nil || req.Solve.Mode != "code" {
		t.Errorf("%s: solve %+v, want code mode", path, req.Solve)
	}
	return items[0], req.Messages[0].Content
}

// TestCodePrompt: convert databench writes code-mode sheets (full and
// lite) whose user message is the competition baseline's prompt exactly,
// with the columns of the dataset's sample table; a dataset without a
// table is reported and skipped, the others written.
func TestCodePrompt(t *testing.T) {
	tmp := t.TempDir()
	question := `Is "it's" {{.Name}} true?`
	qa := writeFile(t, filepath.Join(tmp, "qa.csv"), "question,dataset,answer,type,sample_answer\n"+
		`"Is ""it's"" {{.Name}} true?",001_Odd,True,boolean,False`+"\n"+
		"How many?,002_Missing,3,number,2\n")
	rows := []oddRow{{"a", 1, 0.5, "b", true}, {"c", 2, 1.5, "d", false}}
	writeRows(t, filepath.Join(tmp, "data", "001_Odd", "all.parquet"), rows)
	writeRows(t, filepath.Join(tmp, "data", "001_Odd", "sample.parquet"), rows[:1])
	out := filepath.Join(tmp, "out")
	paths, errs := convert(t.Context(), options{QA: qa, Out: out})
	if len(errs) != 1 || !strings.Contains(errs[0].Error(), "002_Missing") || !strings.Contains(errs[0].Error(), "-mode chat") {
		t.Errorf("problems %v; want one, naming 002_Missing and -mode chat", errs)
	}
	if len(paths) != 2 {
		t.Fatalf("paths %v; want the full and lite sheets of 001_Odd", paths)
	}
	want := codemode.Prompt(question, []string{"name", "it's", "naïve", "{{x}}", "has space"})
	if !strings.Contains(want, `df.columns = ['name', "it's", 'naïve', '{{x}}', 'has space']`) {
		t.Fatalf("the columns are not Python's repr:\n%s", want)
	}
	for i, p := range paths {
		it, user := buildRequest(t, p, filepath.Join(tmp, "data"))
		if user != want {
			t.Errorf("%s: user message\n got %q\nwant %q", filepath.Base(p), user, want)
		}
		lite := i == 1
		file := "all.parquet"
		if lite {
			file = "sample.parquet"
		}
		if !strings.HasSuffix(filepath.ToSlash(it.Files[0].Text), "001_Odd/"+file) || it.Meta["mode"] != "code" {
			t.Errorf("%s: files %v meta %v", filepath.Base(p), it.Files, it.Meta)
		}
		if truth := map[bool]string{false: "True", true: "False"}[lite]; *it.GroundTruth != truth {
			t.Errorf("%s: truth %q, want %q", filepath.Base(p), *it.GroundTruth, truth)
		}
	}

	// -mode chat needs no table; a mode of neither kind is an error.
	chat, errs := convert(t.Context(), options{QA: qa, Out: filepath.Join(tmp, "chat"), Mode: modeChat})
	if len(errs) != 0 || len(chat) != 4 {
		t.Errorf("chat: %v %v", chat, errs)
	}
	if _, errs := convert(t.Context(), options{QA: qa, Out: filepath.Join(tmp, "x"), Mode: "agent"}); len(errs) != 1 || !strings.Contains(errs[0].Error(), `mode "agent"`) {
		t.Errorf("mode agent: %v", errs)
	}
}

// The columns come from the sample table, else the full one.
func TestColumns(t *testing.T) {
	tables := t.TempDir()
	dir := filepath.Join(tables, "d")
	writeRows(t, filepath.Join(dir, "all.parquet"), []oddRow{{Name: "x"}})
	cols, err := readColumns(t.Context(), tables, "d")
	if err != nil || strings.Join(cols, "|") != "name|it's|naïve|{{x}}|has space" {
		t.Errorf("all.parquet: %q %v", cols, err)
	}
	type small struct {
		A int64 `parquet:"a"`
	}
	writeRows(t, filepath.Join(dir, "sample.parquet"), []small{{1}})
	if cols, err := readColumns(t.Context(), tables, "d"); err != nil || strings.Join(cols, "|") != "a" {
		t.Errorf("sample.parquet: %q %v", cols, err)
	}
	if _, err := readColumns(t.Context(), tables, "none"); err == nil || !strings.Contains(err.Error(), "all.parquet") {
		t.Errorf("no table: %v", err)
	}
}

// FuzzCodeTemplate: a code-mode sheet written and read back renders the
// baseline's prompt exactly, whatever the question and the column names
// hold (template braces, header lines, end tokens).
func FuzzCodeTemplate(f *testing.F) {
	f.Add("How many?", "it's")
	f.Add("{{x}} }}", "{{.Name}}")
	f.Add("#### answer\n# q", "# col\n<EVAL-ENDCHAR>")
	f.Fuzz(func(t *testing.T, question, column string) {
		if checkRow(row{Question: question, Dataset: "d"}) != nil {
			return // loadRows refuses these
		}
		cols := []string{column, "b"}
		doc, err := datasetSheet("d", "t.parquet", []row{{Question: question, Dataset: "d"}}, sheetStyle{Mode: modeCode, Columns: cols})
		if sheet.CutEnd(column) != column {
			if err == nil {
				t.Fatalf("column %q holds an end token: no error", column)
			}
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		items, ok := formatAndParse(t, doc)
		if !ok {
			return // a text the schema cannot hold is refused, not mangled
		}
		if len(items) != 1 || items[0].Template == nil {
			t.Fatalf("%d items", len(items))
		}
		tpl, err := template.New("user").Parse(items[0].Template.Text)
		if err != nil {
			t.Fatalf("template %q: %v", items[0].Template.Text, err)
		}
		var b strings.Builder
		if err := tpl.Execute(&b, struct{ Question string }{items[0].Text}); err != nil {
			t.Fatal(err)
		}
		if want := codemode.Prompt(question, cols); b.String() != want {
			t.Fatalf("code prompt:\n got %q\nwant %q", b.String(), want)
		}
	})
}
