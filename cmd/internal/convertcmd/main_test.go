package convertcmd

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/evalmd/evalmd/benchmark/benchmarks"
	"github.com/evalmd/evalmd/benchmark/dsbench"
	"github.com/evalmd/evalmd/cmd/internal/cli"
	"github.com/evalmd/evalmd/harness"
	"github.com/evalmd/evalmd/internal/outfile"
	"github.com/evalmd/evalmd/internal/testkit/shared"
	"github.com/evalmd/evalmd/model"
	"github.com/evalmd/evalmd/model/providers"
	"github.com/evalmd/evalmd/result"
	"github.com/evalmd/evalmd/sheet"
	"github.com/evalmd/evalmd/tokens"
)

// DSBench end to end: convert the real data, dry-run the sheets for
// gpt-4o, and compare every system and user message with the notebook's.
func TestDSBenchSheetsGiveNotebookPrompts(t *testing.T) {
	data := shared.Path(t, "corpora", "dsbench")
	sheets, outs := t.TempDir(), t.TempDir()
	var stderr bytes.Buffer
	if err := convert(context.Background(), &stderr, &stderr, []string{"dsbench", "-i", data, "-o", sheets}); err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	found, err := harness.FindSheets(sheets)
	if err != nil || len(found) != 38 {
		t.Fatalf("%d sheets: %v", len(found), err)
	}
	sum, err := harness.Run(context.Background(), harness.Config{Sheets: found, Models: []string{"openai/gpt-4o"}, OutDir: outs, DryRun: true, Describe: providers.Registry().Describe})
	if err != nil {
		t.Fatal(err)
	}
	type ref struct{ Competition, Question, System, User string }
	refs := map[string]ref{}
	f, err := os.Open(shared.Path(t, "reference", "dsbench", "prompts.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		var r ref
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatal(err)
		}
		refs[r.Competition+"/"+r.Question] = r
	}
	n := 0
	for _, p := range sum.Outputs {
		out, err := result.Read(p)
		if err != nil {
			t.Fatal(err)
		}
		for _, q := range out.Questions {
			r, ok := refs[q.ID()]
			if !ok {
				t.Errorf("%s: question id %q not in the reference", p, q.ID())
				continue
			}
			if q.Question != r.User || q.System == nil || *q.System != r.System {
				t.Errorf("%s: messages differ from the notebook's", q.ID())
			}
			n++
		}
	}
	if n != 466 || len(refs) != 466 {
		t.Errorf("compared %d questions, reference has %d", n, len(refs))
	}
}

// A broken competition is reported by name and the others still convert.
func TestDSBenchBadInput(t *testing.T) {
	src := shared.Path(t, "corpora", "dsbench")
	dir := t.TempDir()
	lines, err := os.ReadFile(filepath.Join(src, "data.json"))
	if err != nil {
		t.Fatal(err)
	}
	all := strings.SplitAfter(strings.TrimRight(string(lines), "\n"), "\n")
	// Three competitions: one good, one whose question file is missing,
	// and a line that is not JSON.
	data := all[0] + all[1] + "{not json\n"
	os.WriteFile(filepath.Join(dir, "data.json"), []byte(data), 0o644)
	for _, id := range []string{"00000001", "00000002"} {
		os.MkdirAll(filepath.Join(dir, "data", id), 0o755)
		ents, _ := os.ReadDir(filepath.Join(src, "data", id))
		for _, e := range ents {
			b, _ := os.ReadFile(filepath.Join(src, "data", id, e.Name()))
			os.WriteFile(filepath.Join(dir, "data", id, e.Name()), b, 0o644)
		}
	}
	os.Remove(filepath.Join(dir, "data", "00000002", "question1.txt"))
	out := t.TempDir()
	var stderr bytes.Buffer
	err = convert(context.Background(), &stderr, &stderr, []string{"dsbench", "-i", dir, "-o", out})
	if err == nil {
		t.Fatal("no error for broken competitions")
	}
	msg := stderr.String()
	for _, want := range []string{"question1.txt", "data.json:3"} {
		if !strings.Contains(msg, want) {
			t.Errorf("stderr lacks %q:\n%s", want, msg)
		}
	}
	if _, err := os.Stat(filepath.Join(out, "input-dsbench-00000001.md")); err != nil {
		t.Errorf("the good competition was not converted: %v", err)
	}
}

// Converted without its workbooks (the corpus holds DSBench's texts
// alone), DSBench's sheets are written and convert says which
// competitions have none and what the model will not see, exiting 0 (a
// note, no problem); with one, it says nothing of it. Before, it said
// nothing at all.
func TestDSBenchWithoutWorkbooksSaysSo(t *testing.T) {
	var stderr bytes.Buffer
	if err := convert(context.Background(), &stderr, &stderr, []string{"dsbench", "-i", shared.Path(t, "corpora", "dsbench"), "-o", t.TempDir()}); err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	for _, want := range []string{"convert: note: dsbench: 38 of 38 competitions have no workbook", "00000001, 00000002, 00000003, 00000004, 00000005 and 33 more",
		"none of that data", "wrote 38 DSBench sheets"} {
		if !strings.Contains(stderr.String(), want) {
			t.Errorf("convert does not say %q:\n%s", want, stderr.String())
		}
	}
}

// DataBench's chat sheets converted without the tables name each table's
// path, which is not there: convert says so and does not tell to run
// with --data-root, since run sends nothing it would vouch for, and a run
// without it works. Before, convert asked for --data-root.
func TestDataBenchChatWithoutTables(t *testing.T) {
	dir := shared.Path(t, "corpora", "databench", "iberlef")
	sheets := t.TempDir()
	var stderr bytes.Buffer
	err := convert(context.Background(), &stderr, &stderr, []string{"databench", "-mode", "chat", "-i", filepath.Join(dir, "iberlef_blindtest.csv"),
		"-answers", filepath.Join(dir, "iberlef_groundtruth", "answers.txt"), "-semantics", filepath.Join(dir, "iberlef_groundtruth", "semantics.txt"), "-o", sheets})
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	msg := stderr.String()
	if strings.Contains(msg, "--data-root") || !strings.Contains(msg, "of the files they name, 10 are not there, which no run sends (the first: "+filepath.Join(dir, "data")) {
		t.Errorf("convert says:\n%s", msg)
	}
	found, err := harness.FindSheets(sheets)
	if err != nil || len(found) != 10 {
		t.Fatalf("%d sheets: %v", len(found), err)
	}
	set, err := benchmarks.Set()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := harness.Run(context.Background(), harness.Config{NewModel: providers.New, Sheets: found[:1], Models: []string{"mock"}, OutDir: t.TempDir(),
		Graders: set.Graders}); err != nil {
		t.Errorf("a run without --data-root: %v", err)
	}
}

// Counts in messages agree with their noun.
func TestConvertCountsGrammar(t *testing.T) {
	for _, tc := range []struct {
		data, want string
	}{
		{"{not json\n", "1 problem (named above); 0 sheets written"},
		{"{not json\n[\n", "2 problems (named above); 0 sheets written"},
	} {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "data.json"), []byte(tc.data), 0o644); err != nil {
			t.Fatal(err)
		}
		var stderr bytes.Buffer
		err := convert(context.Background(), &stderr, &stderr, []string{"dsbench", "-i", dir, "-o", t.TempDir()})
		if err == nil || err.Error() != tc.want {
			t.Errorf("err = %v, want %q", err, tc.want)
		}
		if !strings.Contains(stderr.String(), "wrote 0 DSBench sheets") {
			t.Errorf("stderr %q lacks the count of sheets written", stderr.String())
		}
	}
}

// Each conversion is a subcommand with its own flags: -h prints its
// synopsis (exit 0), a usage error is reported once with the usage line
// (exit 2), a failure is one line (exit 1).
func TestUsage(t *testing.T) {
	for _, tc := range []struct {
		args   []string
		code   int
		stdout string
		stderr string
	}{
		{nil, 2, "", "convert: missing command\nusage: convert COMMAND [flags] (-h for help)\n"},
		{[]string{"-h"}, 0, "commands:\n  workbook             Print a workbook", ""},
		{[]string{"nonsense", "-i", "a", "-o", "b"}, 2, "", "convert: unknown command \"nonsense\""},
		{[]string{"dsbench"}, 2, "", "convert dsbench: -i and -o are required\nusage: convert dsbench -i DATA -o DIR"},
		{[]string{"workbook", "-h"}, 0, "usage: convert workbook FILE", ""},
		{[]string{"databench", "-h"}, 0, "-semantics string", ""},
		{[]string{"dsbench", "-answers", "x"}, 2, "", "flag provided but not defined: -answers"},
		{[]string{"workbook"}, 2, "", "convert workbook: name one workbook file\nusage: convert workbook FILE"},
		{[]string{"workbook", "missing.xlsx"}, 1, "", "missing.xlsx"},
		{[]string{"semeval-predictions", "-i", "missing.json", "-o", "x"}, 1, "", "missing.json"},
	} {
		var stdout, stderr bytes.Buffer
		err := convert(context.Background(), &stdout, &stderr, tc.args)
		code := cli.Report(&stderr, "convert", err)
		if code != tc.code || !strings.Contains(stdout.String(), tc.stdout) || !strings.Contains(stderr.String(), tc.stderr) {
			t.Errorf("convert %q: exit %d, stdout %q, stderr %q; want %d, %q, %q", tc.args, code, stdout.String(), stderr.String(), tc.code, tc.stdout, tc.stderr)
		}
		if tc.code == 0 && stderr.Len() > 0 {
			t.Errorf("convert %q: stderr %q", tc.args, stderr.String())
		}
	}
}

// A person edits a converted sheet in a text editor (here: a string
// replacement on the markdown) and reruns it: the new prompt carries the
// edit, and the other questions are unchanged.
func TestEditConvertedSheetAndRerun(t *testing.T) {
	sheets, outs := t.TempDir(), t.TempDir()
	var stderr bytes.Buffer
	if err := convert(context.Background(), &stderr, &stderr, []string{"dsbench", "-i", shared.Path(t, "corpora", "dsbench"), "-o", sheets}); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(sheets, "input-dsbench-00000001.md")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	const old = "How many days is the plant operational in Q4 2023?"
	const edited = "How many days is the plant operational in Q1 2024?"
	if !bytes.Contains(b, []byte(old)) {
		t.Fatalf("the sheet does not hold %q", old)
	}
	os.WriteFile(path, bytes.Replace(b, []byte(old), []byte(edited), 1), 0o644)
	sum, err := harness.Run(context.Background(), harness.Config{Sheets: []string{path}, Models: []string{"openai/gpt-4o"}, OutDir: outs, DryRun: true, Describe: providers.Registry().Describe})
	if err != nil {
		t.Fatal(err)
	}
	f, err := result.Read(sum.Outputs[0])
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range f.Questions {
		has := strings.Contains(q.Question, edited)
		if (q.Name == "question6") != has || strings.Contains(q.Question, old) {
			t.Errorf("%s: edited text present %v", q.Name, has)
		}
	}
}

// A DSBench competition with a real workbook and an image, end to end: the
// converted sheet, rendered with our workbook package and run dry for a
// vision model and for gpt-3.5, gives the notebook's messages, built here
// from pandas' own text of the workbook (the reference) and cut with
// tiktoken's rule for gpt-3.5's 16,385-token window.
func TestDSBenchWithWorkbookAndImage(t *testing.T) {
	src := shared.Path(t, "corpora", "dsbench")
	const book = "formula_stress_test.xlsx"
	bookText, err := os.ReadFile(shared.Path(t, "reference", "workbooks", book+".txt"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	lines, _ := os.ReadFile(filepath.Join(src, "data.json"))
	os.WriteFile(filepath.Join(dir, "data.json"), []byte(strings.SplitAfter(string(lines), "\n")[0]), 0o644)
	comp := filepath.Join(dir, "data", "00000001")
	os.MkdirAll(comp, 0o755)
	ents, _ := os.ReadDir(filepath.Join(src, "data", "00000001"))
	for _, e := range ents {
		b, _ := os.ReadFile(filepath.Join(src, "data", "00000001", e.Name()))
		os.WriteFile(filepath.Join(comp, e.Name()), b, 0o644)
	}
	b, _ := os.ReadFile(shared.Path(t, "corpora", "workbooks", "files", book))
	os.WriteFile(filepath.Join(comp, book), b, 0o644)
	os.WriteFile(filepath.Join(comp, "answer_key.xlsx"), b, 0o644) // "answer" in the name: not given to the model
	os.WriteFile(filepath.Join(comp, "chart.png"), []byte("\x89PNG\r\n\x1a\n fake image"), 0o644)

	sheets, outs := t.TempDir(), t.TempDir()
	var stderr bytes.Buffer
	if err := convert(context.Background(), &stderr, &stderr, []string{"dsbench", "-i", dir, "-o", sheets}); err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	// The sheets' files are put beside them, and convert says where: a
	// run sends them with no --data-root (below, none is given).
	if want := "; the files they send are in " + filepath.Join(sheets, "dsbench-00000001") + "\n"; !strings.Contains(stderr.String(), want) {
		t.Errorf("convert does not say %q:\n%s", want, stderr.String())
	}
	comps, errs := dsbench.Load(dir)
	if len(errs) > 0 || len(comps) != 1 {
		t.Fatalf("load: %v", errs)
	}
	c := comps[0]
	for _, tc := range []struct {
		model, system string
		cut           bool
	}{
		{"openai/gpt-4o", dsbench.SystemImage, false},
		{"openai/gpt-3.5-turbo-0125", dsbench.System, true},
	} {
		sum, err := harness.Run(context.Background(), harness.Config{
			Sheets: []string{filepath.Join(sheets, "input-dsbench-00000001.md")}, Models: []string{tc.model}, OutDir: outs, DryRun: true, Describe: providers.Registry().Describe,
		})
		if err != nil {
			t.Fatal(err)
		}
		f, err := result.Read(sum.Outputs[0])
		if err != nil {
			t.Fatal(err)
		}
		if len(f.Questions) != len(c.Questions) {
			t.Fatalf("%d questions, want %d", len(f.Questions), len(c.Questions))
		}
		for i, q := range f.Questions {
			want := notebookUser(book, string(bookText), c.Introduction, c.Questions[i].Text)
			if tc.cut {
				if want, err = notebookCut(want, "gpt-3.5-turbo-0125"); err != nil {
					t.Fatal(err)
				}
			}
			if q.Question != want {
				t.Errorf("%s %s: user message differs (len %d, want %d)", tc.model, q.Name, len(q.Question), len(want))
			}
			if q.System == nil || *q.System != tc.system {
				t.Errorf("%s %s: system %q", tc.model, q.Name, deref(q.System))
			}
			if tc.cut == strings.Contains(q.Question, "The workbook is detailed as follows.") {
				t.Errorf("%s %s: truncation did not behave (cut %v)", tc.model, q.Name, tc.cut)
			}
		}
	}
}

func deref(s *string) string {
	if s == nil {
		return "<nil>"
	}
	return *s
}

// convert xlsx and convert table: a sheet to a question workbook and back
// gives the same sheet text.
func TestQuestionTableCommands(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join("..", "..", "..", "sheets", "input-unit-prices-template.md")
	book, back := filepath.Join(dir, "q.xlsx"), filepath.Join(dir, "input-back.md")
	var stderr bytes.Buffer
	if err := convert(context.Background(), io.Discard, &stderr, []string{"xlsx", "-i", in, "-o", book}); err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	if err := convert(context.Background(), io.Discard, &stderr, []string{"table", "-i", book, "-o", back}); err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	orig, err := sheet.ParseFile(in, nil)
	if err != nil {
		t.Fatal(err)
	}
	again, err := sheet.ParseFile(back, nil)
	if err != nil {
		t.Fatal(err)
	}
	_, want := orig.Resolve()
	_, got := again.Resolve()
	if len(got) != len(want) || len(want) == 0 {
		t.Fatalf("%d questions back, want %d", len(got), len(want))
	}
	for i := range want {
		if got[i].Name != want[i].Name || got[i].Prompt != want[i].Prompt || *got[i].GroundTruth != *want[i].GroundTruth ||
			got[i].Template.Text != want[i].Template.Text {
			t.Errorf("question %d: got %+v, want %+v", i, got[i], want[i])
		}
	}
	if err := convert(context.Background(), io.Discard, &stderr, []string{"table", "-i", in, "-o", filepath.Join(dir, "x.md")}); err == nil {
		t.Error("convert table read a .md")
	}
}

// A sheet exported with convert xlsx and imported back over itself with
// convert table, unchanged: no --force needed, the same bytes back. Once
// the sheet is edited after the export, importing over it is refused, and
// the edit is kept.
func TestQuestionTableBackOverSheet(t *testing.T) {
	dir := t.TempDir()
	data, err := os.ReadFile(filepath.Join("..", "..", "..", "sheets", "input-solar-choice.md"))
	if err != nil {
		t.Fatal(err)
	}
	md, book := filepath.Join(dir, "input-solar.md"), filepath.Join(dir, "q.xlsx")
	if err := os.WriteFile(md, data, 0o644); err != nil { // the user's own file
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	if err := convert(context.Background(), io.Discard, &stderr, []string{"xlsx", "-i", md, "-o", book}); err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	if err := convert(context.Background(), io.Discard, &stderr, []string{"table", "-i", book, "-o", md}); err != nil {
		t.Fatalf("importing back over the unchanged sheet: %v\n%s", err, stderr.String())
	}
	if back, _ := os.ReadFile(md); !bytes.Equal(back, data) {
		t.Errorf("the sheet changed in a round trip:\n%s\nwant\n%s", back, data)
	}
	edited := append(data, "\n## New\n#### question\nAdded since?\n"...)
	if err := os.WriteFile(md, edited, 0o644); err != nil {
		t.Fatal(err)
	}
	err = convert(context.Background(), io.Discard, &stderr, []string{"table", "-i", book, "-o", md})
	if !errors.Is(err, outfile.ErrEdited) && !errors.Is(err, outfile.ErrNotOurs) {
		t.Errorf("importing over a sheet edited since the export: %v, want a refusal", err)
	}
	if back, _ := os.ReadFile(md); !bytes.Equal(back, edited) {
		t.Error("the edited sheet was replaced")
	}
}

// convert init writes the example folder, and refuses, writing nothing,
// where a file of the user's is in the way.
func TestInit(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "evals")
	var stdout, stderr bytes.Buffer
	if err := convert(context.Background(), &stdout, &stderr, []string{"init", dir}); err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	for _, name := range []string{"input-first-steps.md", "evalmd.yaml", "README.md"} {
		if _, err := os.Stat(filepath.Join(dir, name)); err != nil || !strings.Contains(stdout.String(), filepath.Join(dir, name)) {
			t.Errorf("%s: %v\n%s", name, err, stdout.String())
		}
	}
	// Again: the files are evalmd's own, unchanged, so they are rewritten.
	if err := convert(context.Background(), &stdout, &stderr, []string{"init", dir}); err != nil {
		t.Errorf("a second init: %v", err)
	}
	other := filepath.Join(t.TempDir(), "mine")
	if err := os.MkdirAll(other, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(other, "README.md"), []byte("my notes\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	err := convert(context.Background(), &stdout, &stderr, []string{"init", other})
	if err == nil || !strings.Contains(err.Error(), "README.md") {
		t.Errorf("init over a user's README: %v", err)
	}
	if b, _ := os.ReadFile(filepath.Join(other, "README.md")); string(b) != "my notes\n" {
		t.Error("init wrote over the user's README")
	}
	if _, err := os.Stat(filepath.Join(other, "evalmd.yaml")); err == nil {
		t.Error("init wrote part of the folder before refusing")
	}
	if err := convert(context.Background(), &stdout, &stderr, []string{"init"}); cli.ExitCode(err) != 2 {
		t.Errorf("init without a folder: %v", err)
	}
}

// notebookUser is DSBench's notebook's user message for a question of a
// competition with one workbook: the workbook, the introduction, then the
// question, with the notebook's spacing.
func notebookUser(book, bookText, introduction, question string) string {
	return "The workbook is detailed as follows. The excel file " + book + " is: " + bookText + " \n" +
		"The introduction is detailed as follows. \n " + introduction + " \n" +
		"The questions are detailed as follows. \n " + question
}

// notebookCut keeps the last tokens of user that fit name's context less
// the notebook's reserve, as the notebook cuts every prompt.
func notebookCut(user, name string) (string, error) {
	limit, _ := model.ContextLimit(name)
	enc, err := tokens.EncodingFor(name)
	if err != nil {
		return "", err
	}
	return tokens.CutRule(user, tokens.Rule{Truncate: "keep-last"}, tokens.Limits{Model: name, ContextLimit: limit, Encoding: enc})
}
