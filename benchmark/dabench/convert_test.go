package dabench

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/evalmd/evalmd/benchmark/dabench/score"
	"github.com/evalmd/evalmd/grade"
	"github.com/evalmd/evalmd/internal/testkit/shared"
	"github.com/evalmd/evalmd/prompt"
	"github.com/evalmd/evalmd/schema"
	"github.com/evalmd/evalmd/sheet"
)

type convertedQuestion struct {
	item  sheet.Item
	path  string
	truth string
}

// convertCorpus converts the real DABench folder with opt's mode and
// faithful flag and reads every sheet back.
func convertCorpus(t *testing.T, opt Options) (map[int]convertedQuestion, []string) {
	t.Helper()
	opt.Data, opt.Out = shared.Path(t, "corpora", "dabench"), t.TempDir()
	paths, errs := Convert(opt)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	got := map[int]convertedQuestion{}
	for _, p := range paths {
		doc, err := sheet.ParseFile(p, schema.Default())
		if err != nil {
			t.Fatal(err)
		}
		for _, w := range doc.Warnings {
			t.Errorf("%s", w)
		}
		_, items := doc.Resolve()
		for _, it := range items {
			id, err := strconv.Atoi(it.Meta["id"])
			if err != nil {
				t.Fatalf("%s: question %s: id meta %q", p, it.Name, it.Meta["id"])
			}
			if _, dup := got[id]; dup {
				t.Fatalf("id %d in two places", id)
			}
			if it.GroundTruth == nil {
				t.Fatalf("id %d: no answer", id)
			}
			got[id] = convertedQuestion{item: it, path: p, truth: *it.GroundTruth}
		}
	}
	return got, paths
}

// TestConvertCorpus checks, for each sheet style, that every question and
// label pair of the real validation set survives the trip through a sheet,
// with its meta and the style's prompt, and that the prompt builder finds
// each table.
func TestConvertCorpus(t *testing.T) {
	cases := []struct {
		name string
		opt  Options
		// meta the sheets must carry ("" = must not), the question text,
		// the first line of the user message.
		mode, style, reformat string
		text                  func(*Question) string
		first                 string
	}{
		{"agent (default)", Options{}, "agent", "", "", (*Question).Text,
			"The data is in the CSV file test_ave.csv in the working directory.\nQuestion: "},
		{"faithful", Options{Faithful: true}, "agent", "react", "required", (*Question).faithfulText,
			"The data is in the CSV file test_ave.csv in the working directory.\nQuestion: "},
		{"chat", Options{Mode: ModeChat}, "", "", "", (*Question).Text,
			"The data is in the CSV file test_ave.csv.\nQuestion: "},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, paths := convertCorpus(t, tc.opt)
			checkCorpus(t, got, paths)
			for id, c := range got {
				m := c.item.Meta
				if m["mode"] != tc.mode || m["agent_style"] != tc.style || m["reformat"] != tc.reformat {
					t.Errorf("id %d: mode %q, agent_style %q, reformat %q", id, m["mode"], m["agent_style"], m["reformat"])
				}
			}
			qs, errs := Load(shared.Path(t, "corpora", "dabench"))
			if len(errs) > 0 {
				t.Fatal(errs)
			}
			for i := range qs {
				q := &qs[i]
				text := got[q.ID].item.Text
				if text != tc.text(q) {
					t.Errorf("id %d: question text %q", q.ID, text)
				}
				// The format line is there unless the sheet is InfiAgent's own.
				if hasFormat := strings.Contains(text, "\nFormat: "+q.Format); hasFormat == tc.opt.Faithful {
					t.Errorf("id %d: format line present %v", q.ID, hasFormat)
				}
			}
			// The prompt builder resolves the files section and runs the template.
			c := got[0]
			doc, err := sheet.ParseFile(c.path, schema.Default())
			if err != nil {
				t.Fatal(err)
			}
			info, _ := doc.Resolve()
			b := &prompt.Builder{Dir: filepath.Dir(c.path), SheetMeta: info.Meta, DataRoots: []string{shared.Path(t, "corpora", "dabench")}}
			req, err := b.Build(t.Context(), c.path, &c.item)
			if err != nil {
				t.Fatal(err)
			}
			user := req.Messages[0].Content
			if !strings.HasPrefix(user, tc.first) || !strings.HasSuffix(user, tc.text(&qs[0])) {
				t.Errorf("user message:\n%s", user)
			}
		})
	}
	t.Run("faithful chat", func(t *testing.T) {
		_, errs := Convert(Options{Data: shared.Path(t, "corpora", "dabench"), Out: t.TempDir(), Mode: ModeChat, Faithful: true})
		if len(errs) != 1 || !strings.Contains(errs[0].Error(), "-faithful") {
			t.Errorf("errors %v, want one naming -faithful", errs)
		}
	})
	t.Run("bad mode", func(t *testing.T) {
		_, errs := Convert(Options{Data: shared.Path(t, "corpora", "dabench"), Out: t.TempDir(), Mode: "code"})
		if len(errs) != 1 || !strings.Contains(errs[0].Error(), `"code"`) {
			t.Errorf("errors %v, want one naming the mode", errs)
		}
	})
}

// checkCorpus checks the sheets' questions, labels and common meta against
// the questions and labels files.
func checkCorpus(t *testing.T, got map[int]convertedQuestion, paths []string) {
	t.Helper()
	qs, errs := Load(shared.Path(t, "corpora", "dabench"))
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	if len(paths) != 52 {
		t.Errorf("%d sheets, want one per table (52)", len(paths))
	}
	if len(qs) != 257 || len(got) != 257 {
		t.Fatalf("%d questions loaded, %d read back; want 257", len(qs), len(got))
	}
	pairs, empty := 0, 0
	for _, q := range qs {
		c := got[q.ID]
		lines := strings.Split(c.truth, "\n")
		if len(lines) != len(q.Labels) {
			t.Errorf("id %d: %d label lines, want %d", q.ID, len(lines), len(q.Labels))
			continue
		}
		for i, l := range q.Labels {
			if lines[i] != "@"+l.Name+"["+l.Value+"]" {
				t.Errorf("id %d label %d: %q", q.ID, i, lines[i])
			}
			pairs++
			if l.Value == "" {
				empty++
			}
		}
		m := c.item.Meta
		if m["grader"] != "dabench" || m["level"] != q.Level || m["concepts"] != strings.Join(q.Concepts, ", ") {
			t.Errorf("id %d: meta %v", q.ID, m)
		}
		if len(c.item.Files) != 1 || filepath.Base(c.item.Files[0].Text) != q.FileName {
			t.Errorf("id %d: files %v", q.ID, c.item.Files)
		}
	}
	if pairs != 461 {
		t.Errorf("%d label pairs, want 461", pairs)
	}
	if empty == 0 {
		t.Error("the empty labels were lost")
	}
	if n := strings.Count(got[734].truth, "@correlation_coefficient["); n != 5 {
		t.Errorf("id 734 keeps %d correlation_coefficient labels, want 5", n)
	}
}

// TestOracle: answering each sheet's ground truth scores 1.0 everywhere,
// duplicates (id 734) and "[" (id 273) included.
func TestOracle(t *testing.T) {
	got, _ := convertCorpus(t, Options{})
	g, err := score.Benchmark().Graders["dabench"](grade.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for id, c := range got {
		v, err := g.Grade(context.Background(), grade.Input{Completion: c.truth, Truth: c.truth})
		if err != nil || v.Correct == nil || !*v.Correct {
			t.Errorf("id %d: oracle graded %v, %v", id, v.Correct, err)
		}
	}
}

func TestSheetName(t *testing.T) {
	for in, want := range map[string]string{
		"test_ave.csv":                    "input-dabench-test_ave.md",
		"beauty and the labor market.csv": "input-dabench-beauty-and-the-labor-market.md",
		"DES=+2006261.csv":                "input-dabench-DES--2006261.md",
	} {
		if got := sheetFileName(in); got != want {
			t.Errorf("sheetFileName(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestLoadErrors(t *testing.T) {
	cases := map[string][2]string{
		"missing labels":   {`{"id": 1, "question": "q", "file_name": "a.csv"}`, ``},
		"unknown label id": {`{"id": 1, "question": "q", "file_name": "a.csv"}`, `{"id": 1, "common_answers": []}` + "\n" + `{"id": 2, "common_answers": []}`},
		"bad pair":         {`{"id": 1, "question": "q", "file_name": "a.csv"}`, `{"id": 1, "common_answers": [["a"]]}`},
		"newline value":    {`{"id": 1, "question": "q", "file_name": "a.csv"}`, `{"id": 1, "common_answers": [["a", "x\ny"]]}`},
		"path in name":     {`{"id": 1, "question": "q", "file_name": "../a.csv"}`, `{"id": 1, "common_answers": []}`},
		// The table's name is joined to the input folder and to -o.
		"folder as name":   {`{"id": 1, "question": "q", "file_name": "."}`, `{"id": 1, "common_answers": []}`},
		"line end in name": {`{"id": 1, "question": "q", "file_name": "a\nb.csv"}`, `{"id": 1, "common_answers": []}`},
		"escape in name":   {`{"id": 1, "question": "q", "file_name": "a\u001b]0;x\u0007.csv"}`, `{"id": 1, "common_answers": []}`},
		"comma in concept": {`{"id": 1, "file_name": "a.csv", "concepts": ["a, b"]}`, `{"id": 1, "common_answers": []}`},
		"carriage return":  {`{"id": 1, "file_name": "a.csv", "question": "a\rb"}`, `{"id": 1, "common_answers": []}`},
		"duplicate id":     {`{"id": 1, "file_name": "a.csv"}` + "\n" + `{"id": 1, "file_name": "a.csv"}`, `{"id": 1, "common_answers": []}`},
	}
	for name, files := range cases {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, questionsFile), []byte(files[0]), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, labelsFile), []byte(files[1]), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, errs := Load(dir); len(errs) == 0 {
			t.Errorf("%s: no error", name)
		}
	}
}

// A refused line is quoted in short: a 10 kB question holding a NUL is
// named by its file and line and an excerpt, not printed whole.
func TestLoadErrorQuotesShort(t *testing.T) {
	dir := t.TempDir()
	q := `{"id": 1, "question": "` + strings.Repeat("x", 10000) + `\u0000", "file_name": "a.csv"}`
	os.WriteFile(filepath.Join(dir, questionsFile), []byte(q+"\n"), 0o644)
	os.WriteFile(filepath.Join(dir, labelsFile), nil, 0o644)
	_, errs := Load(dir)
	if len(errs) != 1 || !strings.Contains(errs[0].Error(), questionsFile+":1: ") || len(errs[0].Error()) > 400 {
		t.Errorf("errors %.500v; want one short line naming %s:1", errs, questionsFile)
	}
}
