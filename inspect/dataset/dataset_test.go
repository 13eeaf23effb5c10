package dataset

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/evalmd/evalmd/inspect"
	"github.com/evalmd/evalmd/internal/testkit/golden"
	"github.com/evalmd/evalmd/internal/testkit/shared"
)

// limeParseRef is a reference parse made by LIME's own parser.
type limeParseRef struct {
	Source    string `json:"source"`
	Questions []struct {
		Name        string            `json:"name"`
		Question    string            `json:"question"`
		GroundTruth *string           `json:"ground_truth"`
		MetaData    map[string]string `json:"meta_data"`
	} `json:"questions"`
}

// readDataset decodes JSON Lines written by Write, one
// sample a line; every line must be a complete JSON object.
func readDataset(t *testing.T, data []byte) []sample {
	t.Helper()
	var out []sample
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 64<<20)
	for n := 1; sc.Scan(); n++ {
		var s sample
		if err := json.Unmarshal(sc.Bytes(), &s); err != nil {
			t.Fatalf("line %d: %v", n, err)
		}
		out = append(out, s)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestDatasetLIMESheets writes every LIME sheet with a reference parse as
// a dataset and compares each line with what LIME's parser gives: the
// input is LIME's prompt, the target its ground truth.
func TestDatasetLIMESheets(t *testing.T) {
	refs, err := filepath.Glob(shared.Path(t, "reference", "lime", "parse", "*.json"))
	if err != nil || len(refs) == 0 {
		t.Fatalf("no reference parses: %v", err)
	}
	lime := shared.Path(t, "corpora", "lime")
	checked := 0
	for _, refPath := range refs {
		data, err := os.ReadFile(refPath)
		if err != nil {
			t.Fatal(err)
		}
		var ref limeParseRef
		if err := json.Unmarshal(data, &ref); err != nil {
			t.Fatalf("%s: %v", refPath, err)
		}
		sheetPath := filepath.Join(lime, filepath.FromSlash(ref.Source))
		t.Run(ref.Source, func(t *testing.T) {
			var buf bytes.Buffer
			if err := Write(t.Context(), &buf, []string{sheetPath}, Options{}); err != nil {
				t.Fatal(err)
			}
			got := readDataset(t, buf.Bytes())
			if len(got) != len(ref.Questions) {
				t.Fatalf("%d lines, LIME parses %d questions", len(got), len(ref.Questions))
			}
			ids := map[string]bool{}
			for i, q := range ref.Questions {
				s := got[i]
				if s.Input.Text != q.Question || s.Input.Messages != nil {
					t.Errorf("%s: input %q, LIME's prompt %q", q.Name, s.Input.Text, q.Question)
				}
				want := ""
				if q.GroundTruth != nil {
					want = *q.GroundTruth
				}
				if s.Target != want {
					t.Errorf("%s: target %q, want %q", q.Name, s.Target, want)
				}
				if s.Metadata["name"] != q.Name {
					t.Errorf("%s: metadata name %v", q.Name, s.Metadata["name"])
				}
				for k, v := range q.MetaData {
					if s.Metadata[k] != v {
						t.Errorf("%s: metadata %s = %v, want %q", q.Name, k, s.Metadata[k], v)
					}
				}
				if ids[s.ID.Text] {
					t.Errorf("%s: id %q repeated", q.Name, s.ID.Text)
				}
				ids[s.ID.Text] = true
				if q.MetaData["id"] == "" && !strings.HasSuffix(s.ID.Text, q.Name) {
					t.Errorf("%s: id %q", q.Name, s.ID.Text)
				}
				if strings.Join(s.Choices, "|") != strings.Join(inspect.Choices(q.Question), "|") {
					t.Errorf("%s: choices %q", q.Name, s.Choices)
				}
				checked++
			}
		})
	}
	if checked < 50 {
		t.Errorf("only %d questions checked", checked)
	}
}

// TestDatasetGolden pins the dataset of two sheets (copies of the
// project's examples, kept here so edits there do not move this test),
// which use a system message, a template, a table file and choices.
func TestDatasetGolden(t *testing.T) {
	sheets := []string{
		filepath.Join("testdata", "sheets", "input-solar-choice.md"),
		filepath.Join("testdata", "sheets", "input-unit-prices-template.md"),
	}
	var buf bytes.Buffer
	if err := Write(t.Context(), &buf, sheets, Options{}); err != nil {
		t.Fatal(err)
	}
	got := buf.Bytes()
	golden.Check(t, "testdata/sheets.dataset.jsonl", got)

	lines := readDataset(t, got)
	var prices *sample
	for i := range lines {
		if lines[i].ID.Text == "up-1" {
			prices = &lines[i]
		}
	}
	if prices == nil {
		t.Fatal("no line with id up-1")
	}
	in := prices.Input.Messages
	if len(in) != 2 || in[0].Role != "system" || !strings.HasPrefix(in[0].Content.Text, "You are a careful analyst.") ||
		in[1].Role != "user" || !strings.Contains(in[1].Content.Text, "Question: What do 3 kg of apples cost?") ||
		!strings.Contains(in[1].Content.Text, "A shop sells fruit.") {
		t.Errorf("templated input: %+v", in)
	}
	if prices.Target != "7.5" || prices.ID.Num || prices.Metadata["grader"] != "numeric" {
		t.Errorf("line up-1: target %q id %+v meta %v", prices.Target, prices.ID, prices.Metadata)
	}
	if f := prices.Files["fruit-prices.csv"]; f != "testdata/sheets/data/fruit-prices.csv" {
		t.Errorf("files %v", prices.Files)
	}
	if lines[0].Choices == nil || lines[0].Target != "B) 8" {
		t.Errorf("first solar question: choices %q target %q", lines[0].Choices, lines[0].Target)
	}
}

// TestOptions covers workbooks, integer ids, ids made unique across
// sheets, BaseDir and errors.
func TestOptions(t *testing.T) {
	dir := t.TempDir()
	sheetText := "# Books\n#### files\nbook.xlsx\n#### templates\n{{range .Workbooks}}{{.Text}}{{end}}|{{.Question}}<EVAL-ENDCHAR>\n\n" +
		"## Q1\n#### meta\nid: 12\n#### answer\nx<EVAL-ENDCHAR>\n#### question\nHow many rows?<EVAL-ENDCHAR>\n\n" +
		"## Q2\n#### meta\nid: 012\n#### question\nAnd columns?<EVAL-ENDCHAR>\n"
	sheetPath := filepath.Join(dir, "input-books.md")
	if err := os.WriteFile(sheetPath, []byte(sheetText), 0o644); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	err := Write(t.Context(), &buf, []string{sheetPath}, Options{})
	if err == nil || !strings.Contains(err.Error(), sheetPath) {
		t.Fatalf("a workbook without a renderer: error %v, want one naming the sheet", err)
	}

	render := func(_ context.Context, path string) (string, error) { return "WB(" + filepath.Base(path) + ")", nil }
	buf.Reset()
	opt := Options{RenderWorkbook: render, BaseDir: dir}
	if err := Write(t.Context(), &buf, []string{sheetPath, sheetPath}, opt); err != nil {
		t.Fatal(err)
	}
	lines := readDataset(t, buf.Bytes())
	if len(lines) != 4 {
		t.Fatalf("%d lines, want 4", len(lines))
	}
	if lines[0].Input.Text != "WB(book.xlsx)|How many rows?" {
		t.Errorf("input %q", lines[0].Input.Text)
	}
	raw := strings.SplitN(buf.String(), "\n", 2)[0]
	if !strings.Contains(raw, `"id":12`) {
		t.Errorf("integer id not written as a number: %s", raw)
	}
	wantIDs := []string{"12", "012", "books/12", "books/012"}
	for i, want := range wantIDs {
		if lines[i].ID.Text != want {
			t.Errorf("line %d: id %q, want %q", i, lines[i].ID.Text, want)
		}
	}
	if lines[1].Target != "" || lines[0].Files["book.xlsx"] != "book.xlsx" {
		t.Errorf("target %q files %v", lines[1].Target, lines[0].Files)
	}

	if err := Write(t.Context(), &buf, []string{filepath.Join(dir, "missing.md")}, Options{}); err == nil {
		t.Error("missing sheet gave no error")
	}
}
