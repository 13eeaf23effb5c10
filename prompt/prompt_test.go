package prompt

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/evalmd/evalmd/internal/setting"
	"github.com/evalmd/evalmd/sheet"
)

func items(t *testing.T, dir, text string) []sheet.Item {
	t.Helper()
	path := filepath.Join(dir, "input-t.md")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	doc, err := sheet.ParseFile(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	_, its := doc.Resolve()
	return its
}

func TestTemplateSystemImagesSettings(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "chart.png"), []byte("\x89PNG fake"), 0o644)
	os.WriteFile(filepath.Join(dir, "book.xlsx"), []byte("zip"), 0o644)
	its := items(t, dir, `# S
#### meta
- temperature: 0.5
- max_tokens: 100
- stop: END|STOP
#### files
- book.xlsx
- chart.png
#### context
Intro text.<EVAL-ENDCHAR>
#### templates
{{define "system"}}Analyst{{if .Images}} with eyes{{end}}.{{end}}{{range .Workbooks}}[{{.Name}}: {{.Text}}]{{end}} {{.Context}} | {{.Question}}<EVAL-ENDCHAR>
## Q1
#### meta
- seed: 7
- temperature: 0
#### question
How much?<EVAL-ENDCHAR>
`)
	render := func(_ context.Context, p string) (string, error) { return "TEXT of " + filepath.Base(p), nil }
	for _, vision := range []bool{true, false} {
		b := &Builder{Dir: dir, Model: "m", Vision: vision, RenderWorkbook: render}
		req, err := b.Build(t.Context(), "input-t.md", &its[0])
		if err != nil {
			t.Fatal(err)
		}
		if got, want := req.Messages[0].Content, "[book.xlsx: TEXT of book.xlsx] Intro text. | How much?"; got != want {
			t.Errorf("user = %q, want %q", got, want)
		}
		wantSys, wantImgs := "Analyst.", 0
		if vision {
			wantSys, wantImgs = "Analyst with eyes.", 1
		}
		if req.System != wantSys || len(req.Messages[0].Images) != wantImgs {
			t.Errorf("vision %v: system %q, %d images", vision, req.System, len(req.Messages[0].Images))
		}
		if vision && req.Messages[0].Images[0].MediaType != "image/png" {
			t.Errorf("media type %q", req.Messages[0].Images[0].MediaType)
		}
		s := req.Settings
		if *s.Temperature != 0 || s.MaxTokens != 100 || *s.Seed != 7 || strings.Join(s.Stop, ",") != "END,STOP" {
			t.Errorf("settings %+v", s)
		}
	}
	// Flags win over meta.
	flags := setting.Layer{Source: setting.Flag, Values: map[string]string{"temperature": "0.9", "max_tokens": "5"}}
	b := &Builder{Dir: dir, RenderWorkbook: render, Settings: []setting.Layer{flags}}
	req, _ := b.Build(t.Context(), "input-t.md", &its[0])
	if *req.Settings.Temperature != 0.9 || req.Settings.MaxTokens != 5 {
		t.Errorf("overrides not applied: %+v", req.Settings)
	}
}

func TestBuildErrors(t *testing.T) {
	for _, tc := range []struct{ name, sheet, want string }{
		{"bad template", "# S\n#### templates\nline one\n{{.Nope\n## Q\n#### question\nx\n", "input-t.md:5: templates section: unclosed action"},
		{"missing field", "# S\n#### templates\n{{.Colour}}\n## Q\n#### question\nx\n", "input-t.md:4: question \"Q\": template at line 3: at <.Colour>: can't evaluate field Colour"},
		{"missing meta key", "# S\n#### templates\nfirst\n{{.Meta.colour}}\n## Q\n#### meta\na: 1\n#### question\nx\n", "input-t.md:5: question \"Q\": template at line 4: at <.Meta.colour>: map has no entry for key \"colour\""},
		{"system template fails", "# S\n#### templates\nx{{define \"system\"}}{{.Nope}}{{end}}\n## Q\n#### question\nx\n", "input-t.md:4: question \"Q\": template at line 3: at <.Nope>"},
		{"empty user message", "# S\n#### templates\n{{if false}}x{{end}}\n\n## Q\n#### question\nx\n", "input-t.md:5: question \"Q\": the template (templates section at line 2) renders an empty user message"},
		{"missing file", "## Q\n#### files\n- nothere.csv\n#### question\nx\n", "input-t.md:3: open"},
		{"workbook without renderer", "## Q\n#### files\nbook.xlsx\n#### question\nx\n", "cannot be rendered"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			its := items(t, dir, tc.sheet)
			b := &Builder{Dir: dir}
			_, err := b.Build(t.Context(), "input-t.md", &its[0])
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want %q", err, tc.want)
			}
			if msg := err.Error(); strings.Contains(msg, "\n") || strings.Contains(msg, "template: ") {
				t.Errorf("error %q is not one line, or repeats text/template's \"template: \" prefix", msg)
			}
		})
	}
}

// A setting LIME could not read is ignored with a warning naming its meta
// line, once however many questions take it from the sheet.
func TestUnreadableSettingsWarned(t *testing.T) {
	text := "# S\n#### meta\nseed: None\n## A\n#### question\nx\n## B\n#### question\ny\n## C\n#### meta\n- temperature: warm\n- max_tokens: 9\n#### question\nz\n"
	dir := t.TempDir()
	its := items(t, dir, text)
	doc, err := sheet.Parse("input-t.md", []byte(text), nil)
	if err != nil {
		t.Fatal(err)
	}
	info, _ := doc.Resolve()
	var warnings []string
	b := &Builder{Dir: dir, SheetMeta: info.Meta, SheetMetaLines: info.MetaLines, Warn: func(m string) { warnings = append(warnings, m) }}
	for i := range its {
		req, err := b.Build(t.Context(), "input-t.md", &its[i])
		if err != nil {
			t.Fatal(err)
		}
		if req.Settings.Seed != nil || req.Settings.Temperature != nil {
			t.Errorf("%s: unreadable settings sent: %+v", its[i].Name, req.Settings)
		}
		if its[i].Name == "C" && req.Settings.MaxTokens != 9 {
			t.Errorf("C: max_tokens %d, want 9 (the readable setting kept)", req.Settings.MaxTokens)
		}
	}
	want := []string{
		`input-t.md:3: meta seed: "None" is not a whole number; ignored, as LIME ignores a setting it cannot read`,
		`input-t.md:12: meta temperature: "warm" is not a number; ignored, as LIME ignores a setting it cannot read`,
	}
	if strings.Join(warnings, "\n") != strings.Join(want, "\n") {
		t.Errorf("warnings:\n%s\nwant:\n%s", strings.Join(warnings, "\n"), strings.Join(want, "\n"))
	}
}

// Without a template the user message is LIME's prompt, unchanged.
func TestLIMEPrompt(t *testing.T) {
	its := items(t, t.TempDir(), "# S\n#### question\nSys\n<EVAL-ENDCHAR>\n## Q\n#### question\nAsk\n\n")
	req, err := (&Builder{}).Build(t.Context(), "x", &its[0])
	if err != nil {
		t.Fatal(err)
	}
	if req.Messages[0].Content != "Sys\nAsk\n\n" || req.System != "" {
		t.Errorf("%q %q", req.Messages[0].Content, req.System)
	}
}

// {{.Table}} renders a question's table with table_rows and table_format
// from the question's meta, else the sheet's (also for a question without
// a meta section).
func TestTables(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "t.csv"), []byte("id,name,score\n1,ann,2.5\n2,bob,\n3,cy,10\n"), 0o644)
	os.Mkdir(filepath.Join(dir, "sub"), 0o755)
	os.WriteFile(filepath.Join(dir, "sub", "u.tsv"), []byte("k\tv\n1\ta|b\n"), 0o644)
	its := items(t, dir, `# S
#### meta
- table_rows: 2
#### files
- t.csv
- sub/u.tsv
#### templates
Data:
{{.Table "t.csv"}}
{{.Question}}<EVAL-ENDCHAR>
## Sheet settings
#### question
Q?<EVAL-ENDCHAR>
## Own settings
#### meta
- table_format: markdown
#### question
Q?<EVAL-ENDCHAR>
## All rows as CSV, by path
#### meta
- table_rows: all
- table_format: csv
#### templates
{{.Table "sub/u.tsv"}}{{.Table "t.csv"}}<EVAL-ENDCHAR>
#### question
Q?<EVAL-ENDCHAR>
`)
	want := []string{
		"Data:\n id name  score\n  1  ann    2.5\n  2  bob    NaN\nQ?",
		"Data:\n| id | name | score |\n| --- | --- | --- |\n| 1 | ann | 2.5 |\n| 2 | bob |  |\n\nQ?",
		"k,v\n1,a|b\nid,name,score\n1,ann,2.5\n2,bob,\n3,cy,10\n",
	}
	doc, err := sheet.ParseFile(filepath.Join(dir, "input-t.md"), nil)
	if err != nil {
		t.Fatal(err)
	}
	info, _ := doc.Resolve()
	b := &Builder{Dir: dir, SheetMeta: info.Meta}
	for i, w := range want {
		req, err := b.Build(t.Context(), "input-t.md", &its[i])
		if err != nil {
			t.Fatal(err)
		}
		if got := req.Messages[0].Content; got != w {
			t.Errorf("%s:\n%q\nwant\n%q", its[i].Name, got, w)
		}
	}
}

func TestTableErrors(t *testing.T) {
	for _, tc := range []struct{ name, meta, tmpl, want string }{
		{"bad rows", "table_rows: many", `{{.Table "t.csv"}}`, `input-t.md:3: question "Q": meta table_rows: "many" is not a whole number or all`},
		{"negative rows", "table_rows: -1", `{{.Table "t.csv"}}`, "meta table_rows"},
		{"bad format", "table_format: html", `{{.Table "t.csv"}}`, `input-t.md:3: question "Q": meta table_format: "html" is not pandas, csv or markdown`},
		{"not in files", "x: y", `{{.Table "other.csv"}}`, `"other.csv" is not a table in the question's files`},
		{"not a table", "x: y", `{{.Table "notes.txt"}}`, `"notes.txt" is not a table`},
		{"bad table", "x: y", `{{.Table "bad.csv"}}`, "bad.csv:3: 3 fields, the header has 2"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			os.WriteFile(filepath.Join(dir, "t.csv"), []byte("a\n1\n"), 0o644)
			os.WriteFile(filepath.Join(dir, "bad.csv"), []byte("a,b\n1,2\n1,2,3\n"), 0o644)
			os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("n"), 0o644)
			its := items(t, dir, "## Q\n#### meta\n"+tc.meta+"\n#### files\nt.csv\nbad.csv\nnotes.txt\n#### templates\n"+tc.tmpl+"\n#### question\nx\n")
			_, err := (&Builder{Dir: dir}).Build(t.Context(), "input-t.md", &its[0])
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want %q", err, tc.want)
			}
		})
	}
}

// Build takes its caller's context to what waits: a workbook's rendering
// and a table's reading stop when it ends (a Ctrl-C while a run plans).
func TestBuildTakesContext(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "book.xlsx"), []byte("zip"), 0o644)
	os.WriteFile(filepath.Join(dir, "data.csv"), []byte("a,b\n1,2\n"), 0o644)
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	for _, tc := range []struct{ file, template string }{
		{"book.xlsx", `{{range .Workbooks}}{{.Text}}{{end}}`},
		{"data.csv", `{{.Table "data.csv"}}`},
	} {
		its := items(t, dir, "# S\n#### files\n- "+tc.file+"\n#### templates\n"+tc.template+"<EVAL-ENDCHAR>\n## Q1\n#### question\nWhat?<EVAL-ENDCHAR>\n")
		b := &Builder{Dir: dir, RenderWorkbook: func(ctx context.Context, p string) (string, error) { return "text", ctx.Err() }}
		if _, err := b.Build(ctx, "input-t.md", &its[0]); !errors.Is(err, context.Canceled) {
			t.Errorf("%s: error %v, want the context's", tc.file, err)
		}
	}
}
