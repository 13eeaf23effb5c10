package databench

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/evalmd/evalmd/benchmark/databench/score"
	"github.com/evalmd/evalmd/grade"
	"github.com/evalmd/evalmd/internal/testkit/shared"
	"github.com/evalmd/evalmd/prompt"
	"github.com/evalmd/evalmd/schema"
	"github.com/evalmd/evalmd/sheet"
)

type refLine struct {
	Value    string `json:"value"`
	Truth    string `json:"truth"`
	Semantic string `json:"semantic"`
	V3       *bool  `json:"v3"`
	V4       *bool  `json:"v4"`
}

type refMeta struct {
	Group string `json:"group"`
}

// reference returns the lines of databench-compare.jsonl in a group, in
// order.
func reference(t *testing.T, group string) []refLine {
	t.Helper()
	read := func(path string, fn func([]byte)) {
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 1<<20), 1<<24)
		for sc.Scan() {
			fn(sc.Bytes())
		}
	}
	var lines []refLine
	var groups []string
	read(shared.Path(t, "reference", "databench-compare.jsonl"), func(b []byte) {
		var l refLine
		if err := json.Unmarshal(b, &l); err != nil {
			t.Fatal(err)
		}
		lines = append(lines, l)
	})
	read(shared.Path(t, "reference", "databench-compare.meta.jsonl"), func(b []byte) {
		var m refMeta
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatal(err)
		}
		groups = append(groups, m.Group)
	})
	var out []refLine
	for i, l := range lines {
		if groups[i] == group {
			out = append(out, l)
		}
	}
	return out
}

// readSheets parses written sheets into items by id meta.
func readSheets(t *testing.T, paths []string) map[int]sheet.Item {
	t.Helper()
	items := map[int]sheet.Item{}
	for _, p := range paths {
		doc, err := sheet.ParseFile(p, schema.Default())
		if err != nil {
			t.Fatal(err)
		}
		for _, w := range doc.Warnings {
			t.Errorf("%s", w)
		}
		_, its := doc.Resolve()
		for _, it := range its {
			id, err := strconv.Atoi(it.Meta["id"])
			if err != nil {
				t.Fatalf("%s %s: id %q", p, it.Name, it.Meta["id"])
			}
			if _, dup := items[id]; dup {
				t.Fatalf("%s: id %d twice", p, id)
			}
			items[id] = it
		}
	}
	return items
}

func gradeItem(t *testing.T, name, completion string, it sheet.Item) bool {
	t.Helper()
	g, err := score.Benchmark().Graders[name](grade.Options{})
	if err != nil {
		t.Fatal(err)
	}
	v, err := g.Grade(context.Background(), grade.Input{Completion: completion, Truth: *it.GroundTruth, Meta: it.Meta})
	if err != nil {
		t.Fatalf("%s: %v", it.Name, err)
	}
	return *v.Correct
}

// TestIberLEF converts the IberLEF blind test with its ground truth, then
// grades each sheet answer against itself through the databench grader and
// checks the verdicts against databench_eval's (group iberlef_self).
func TestIberLEF(t *testing.T) {
	dir := shared.Path(t, "corpora", "databench", "iberlef")
	out := t.TempDir()
	opt := options{
		QA:        filepath.Join(dir, "iberlef_blindtest.csv"),
		Answers:   filepath.Join(dir, "iberlef_groundtruth", "answers.txt"),
		Semantics: filepath.Join(dir, "iberlef_groundtruth", "semantics.txt"),
		Out:       out,
		Mode:      modeChat, // the corpus has no tables, which code sheets need
	}
	paths, errs := convert(t.Context(), opt)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	if len(paths) != 10 {
		t.Errorf("%d sheets, want 10 datasets", len(paths))
	}
	rows, errs := loadRows(opt)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	items := readSheets(t, paths)
	ref := reference(t, "iberlef_self")
	if len(rows) != 100 || len(items) != 100 || len(ref) != 100 {
		t.Fatalf("%d rows, %d questions, %d reference lines; want 100", len(rows), len(items), len(ref))
	}
	for i, r := range rows {
		it := items[i]
		if it.Text != r.Question || *it.GroundTruth != r.Answer || it.Meta["semantic"] != r.Semantic || it.Meta["grader"] != "databench" {
			t.Errorf("row %d: read back %q / %q / %v", i, it.Text, *it.GroundTruth, it.Meta)
			continue
		}
		if ref[i].Truth != r.Answer || ref[i].Semantic != r.Semantic {
			t.Fatalf("row %d: reference line is for %q (%s)", i, ref[i].Truth, ref[i].Semantic)
		}
		if got := gradeItem(t, "databench", *it.GroundTruth, it); got != *ref[i].V4 {
			t.Errorf("row %d: self-grade %v, databench_eval 4.0.1 says %v", i, got, *ref[i].V4)
		}
	}
	// The table named in the files section is DataBench's layout.
	it := items[0]
	if len(it.Files) != 1 || !strings.HasSuffix(filepath.ToSlash(it.Files[0].Text), "iberlef/data/ES_01_40db_Igualdad/all.parquet") {
		t.Errorf("files: %v", it.Files)
	}
}

// TestSemEvalLiteAgainstFull writes the real SemEval 2025 test answers
// (full and lite) into sheets, for a QA table made here since the test
// questions are not in the corpus, and grades each lite answer against the
// full one: the verdicts must equal databench_eval's for both versions
// (group semeval_pairs, lines 1-522).
func TestSemEvalLiteAgainstFull(t *testing.T) {
	dir := shared.Path(t, "corpora", "databench", "semeval-test-answers")
	tmp := t.TempDir()
	full, err := readLineFile(filepath.Join(dir, "answers.txt"))
	if err != nil {
		t.Fatal(err)
	}
	var qa strings.Builder
	for i := range full {
		b, _ := json.Marshal(map[string]string{"question": fmt.Sprintf("Question %d?", i), "dataset": fmt.Sprintf("%03d_Set", i/20)})
		qa.Write(b)
		qa.WriteByte('\n')
	}
	qaPath := filepath.Join(tmp, "qa.jsonl")
	if err := os.WriteFile(qaPath, []byte(qa.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(tmp, "sheets")
	paths, errs := convert(t.Context(), options{
		QA: qaPath, Out: out, Mode: modeChat, // no tables in the corpus
		Answers:     filepath.Join(dir, "answers.txt"),
		AnswersLite: filepath.Join(dir, "answers_lite.txt"),
		Semantics:   filepath.Join(dir, "semantics.txt"),
	})
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	var fullPaths, litePaths []string
	for _, p := range paths {
		if strings.Contains(filepath.Base(p), "-lite-") {
			litePaths = append(litePaths, p)
		} else {
			fullPaths = append(fullPaths, p)
		}
	}
	fullItems, liteItems := readSheets(t, fullPaths), readSheets(t, litePaths)
	ref := reference(t, "semeval_pairs")
	if len(fullItems) != 522 || len(liteItems) != 522 || len(ref) != 522 {
		t.Fatalf("%d full, %d lite questions, %d reference lines; want 522", len(fullItems), len(liteItems), len(ref))
	}
	equal := map[string]int{}
	for i := 0; i < 522; i++ {
		f, l := fullItems[i], liteItems[i]
		if *f.GroundTruth != ref[i].Truth || *l.GroundTruth != ref[i].Value || f.Meta["semantic"] != ref[i].Semantic {
			t.Fatalf("row %d: sheets hold %q / %q, reference %q / %q", i, *f.GroundTruth, *l.GroundTruth, ref[i].Truth, ref[i].Value)
		}
		if gradeItem(t, "databench", *l.GroundTruth, f) == *ref[i].V4 {
			equal["v4"]++
		}
		if gradeItem(t, "databench-semeval", *l.GroundTruth, f) == *ref[i].V3 {
			equal["v3"]++
		}
	}
	if equal["v4"] != 522 || equal["v3"] != 522 {
		t.Errorf("verdicts equal to databench_eval: v4 %d/522, v3 %d/522", equal["v4"], equal["v3"])
	}
	// A lite sheet names the sample table.
	it := liteItems[0]
	if len(it.Files) != 1 || !strings.HasSuffix(filepath.ToSlash(it.Files[0].Text), "/000_Set/sample.parquet") || it.Meta["lite"] != "true" {
		t.Errorf("lite sheet: files %v meta %v", it.Files, it.Meta)
	}
}

// TestChatPrompt: -mode chat sheets name the table and the answer's type.
func TestChatPrompt(t *testing.T) {
	tmp := t.TempDir()
	qa := filepath.Join(tmp, "qa.csv")
	if err := os.WriteFile(qa, []byte("question,dataset,answer,type,sample_answer\n\"Is it, really?\",001_Forbes,True,boolean,False\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tables := filepath.Join(tmp, "data", "001_Forbes")
	if err := os.MkdirAll(tables, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"all.parquet", "sample.parquet"} {
		if err := os.WriteFile(filepath.Join(tables, f), []byte("PAR1"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	out := filepath.Join(tmp, "out")
	paths, errs := convert(t.Context(), options{QA: qa, Out: out, Mode: modeChat})
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	if len(paths) != 2 {
		t.Fatalf("paths %v", paths)
	}
	items := readSheets(t, paths[:1])
	it := items[0]
	doc, err := sheet.ParseFile(paths[0], schema.Default())
	if err != nil {
		t.Fatal(err)
	}
	info, _ := doc.Resolve()
	// The table was put beside the sheet: no data root is needed.
	b := &prompt.Builder{Dir: out, SheetMeta: info.Meta}
	req, err := b.Build(t.Context(), paths[0], &it)
	if err != nil {
		t.Fatal(err)
	}
	want := "The table is " + filepath.Join(out, "data/001_Forbes/all.parquet") + ".\nQuestion: Is it, really?\nAnswer with a value of type boolean."
	if got := req.Messages[0].Content; got != want {
		t.Errorf("user message\n got %q\nwant %q", got, want)
	}
	lite := readSheets(t, paths[1:])[0]
	if *lite.GroundTruth != "False" || *it.GroundTruth != "True" {
		t.Errorf("truths: full %q lite %q", *it.GroundTruth, *lite.GroundTruth)
	}
}

func TestLoadErrors(t *testing.T) {
	tmp := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(tmp, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	qa := write("qa.csv", "question,dataset\nq1,d\nq2,d\n")
	for name, opt := range map[string]options{
		"missing file":    {QA: filepath.Join(tmp, "nope.csv")},
		"short answers":   {QA: qa, Answers: write("a.txt", "x\n")},
		"no dataset":      {QA: write("nd.csv", "question,dataset\nq1,\n")},
		"no question":     {QA: write("nq.jsonl", `{"dataset": "d"}`+"\n")},
		"bad json line":   {QA: write("bad.jsonl", "{\n")},
		"semantic broken": {QA: write("s.jsonl", `{"question": "q", "dataset": "d", "type": "a\nb"}`+"\n")},
		"bad utf-8":       {QA: write("u.csv", "question,dataset\nq\xff,d\n")},
		"carriage return": {QA: write("r.jsonl", `{"question": "a\rb", "dataset": "d"}`+"\n")},
		"end token":       {QA: write("e.csv", "question,dataset\nq <EVAL-ENDCHAR> more,d\n")},
	} {
		if _, errs := loadRows(opt); len(errs) == 0 {
			t.Errorf("%s: no error", name)
		}
	}
}

func FuzzSheetRoundTrip(f *testing.F) {
	f.Add("How many?", "['a', 'b']", "list[category]")
	f.Add("#### answer", "  padded  ", "number")
	f.Fuzz(func(t *testing.T, question, answer, semantic string) {
		if strings.ContainsAny(question+answer+semantic, "\r\x00") || strings.ContainsAny(semantic, "\n") ||
			!utf8.ValidString(question) || !utf8.ValidString(answer) || !utf8.ValidString(semantic) {
			return // loadRows refuses these
		}
		doc, err := datasetSheet("d", "t.parquet", []row{{Question: question, Dataset: "d", Answer: answer, HasAnswer: true, Semantic: semantic}}, sheetStyle{Mode: modeChat})
		if err != nil {
			t.Fatal(err)
		}
		items, ok := formatAndParse(t, doc)
		if !ok {
			return // a text the schema cannot hold is refused, not mangled
		}
		if len(items) != 1 {
			t.Fatalf("%d items", len(items))
		}
		if *items[0].GroundTruth != answer || items[0].Text != question {
			t.Fatalf("round trip: %q %q -> %q %q", question, answer, items[0].Text, *items[0].GroundTruth)
		}
	})
}

// formatAndParse writes doc as a sheet and reads it back; ok is false when
// the schema cannot hold its text (Format refuses it).
func formatAndParse(t *testing.T, doc *sheet.Doc) (items []sheet.Item, ok bool) {
	t.Helper()
	data, err := sheet.Format(doc, schema.Default())
	if err != nil {
		return nil, false
	}
	back, err := sheet.Parse("x.md", data, schema.Default())
	if err != nil {
		t.Fatal(err)
	}
	_, items = back.Resolve()
	return items, true
}
