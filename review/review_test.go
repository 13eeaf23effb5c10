package review

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/evalmd/evalmd/result"
	"github.com/evalmd/evalmd/sheet"
	"github.com/evalmd/evalmd/verdict"
)

func ptr[T any](v T) *T { return &v }

// writeOutput writes an output of model m whose questions answer as said
// (name -> truth, reply, grade), in dir under run id.
func writeOutput(t *testing.T, dir, m, run string, qs ...[4]string) string {
	t.Helper()
	f := &result.File{Sheet: result.Sheet{Name: "S", RunID: run, ModelName: m}}
	for _, q := range qs {
		rq := result.Question{Name: q[0], GroundTruth: ptr(q[1]), Completion: ptr(q[2]), ModelName: m, Grader: "exact"}
		if q[3] != "" {
			rq.Grade = ptr(q[3] == "right")
		}
		if q[0] == "J" {
			rq.Grader = "judge"
		}
		f.Questions = append(f.Questions, rq)
	}
	data, err := f.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, "output-s-"+m+"-"+run+".json")
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func labels(q *Queue) string {
	var ls []string
	for _, a := range q.Answers {
		ls = append(ls, a.Label())
	}
	return strings.Join(ls, "; ")
}

// The queue holds each answer once however many files carry it, and
// each filter chooses what its name says.
func TestLoadFilters(t *testing.T) {
	dir := t.TempDir()
	writeOutput(t, dir, "a", "1", [4]string{"Q1", "x", "x", "right"}, [4]string{"Q2", "y", "n", "wrong"}, [4]string{"J", "z", "z?", ""})
	writeOutput(t, dir, "a", "2", [4]string{"Q1", "x", "x", "wrong"}) // the same answer, graded otherwise
	writeOutput(t, dir, "b", "1", [4]string{"Q2", "y", "y", "right"})
	for _, tc := range []struct {
		flt  Filter
		want string
	}{
		{Filter{}, "S / J / a; S / Q1 / a; S / Q2 / a; S / Q2 / b"},
		{Filter{Only: "wrong"}, "S / Q2 / a"},
		{Filter{Only: "right"}, "S / Q1 / a; S / Q2 / b"},
		{Filter{Only: "ungraded"}, "S / J / a"},
		{Filter{Only: "judge"}, "S / J / a"},
		{Filter{Only: "disagree"}, "S / Q1 / a"},
		{Filter{Questions: []string{"Q*"}, Models: []string{"b"}}, "S / Q2 / b"},
	} {
		q, err := Load([]string{dir}, tc.flt)
		if err != nil {
			t.Fatal(err)
		}
		if got := labels(q); got != tc.want || q.Total != 4 {
			t.Errorf("%+v: %q of %d, want %q of 4", tc.flt, got, q.Total, tc.want)
		}
	}
	if _, err := Load([]string{dir}, Filter{Only: "maybe"}); err == nil || !strings.Contains(err.Error(), `--only "maybe"`) {
		t.Errorf("a bad --only: %v", err)
	}
}

// A decision is written beside the outputs and applied to every file
// that carries its answer; one whose answer changed since is stale.
func TestRecordAndStale(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	p1 := writeOutput(t, dir, "a", "1", [4]string{"Q1", "x", "ex", "wrong"})
	p2 := writeOutput(t, dir, "a", "2", [4]string{"Q1", "x", "ex", "wrong"})
	q, err := Load([]string{dir}, Filter{})
	if err != nil || len(q.Answers) != 1 {
		t.Fatalf("%v, %v", q, err)
	}
	at := time.Date(2026, 12, 2, 3, 4, 5, 0, time.UTC)
	if _, err := Record(ctx, q.Answers[0], Decision{Right: true, By: "bo", Reason: "x, said otherwise", At: at}, nil); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{p1, p2} {
		f, err := result.Read(p)
		if err != nil {
			t.Fatal(err)
		}
		if g, r := f.Questions[0].Grade, f.Questions[0].Review; g == nil || !*g || r == nil || r.By != "bo" || r.At != "2026-12-02T03:04:05Z" {
			t.Errorf("%s: grade %v review %+v", p, g, r)
		}
	}
	writeOutput(t, dir, "a", "2", [4]string{"Q1", "x", "other", "wrong"})
	if err := os.Remove(p1); err != nil {
		t.Fatal(err)
	}
	q, err = Load([]string{dir}, Filter{})
	if err != nil {
		t.Fatal(err)
	}
	if len(q.Stale) != 1 || q.Stale[0].Why != "the answer changed" ||
		!strings.HasPrefix(q.Stale[0].String(), verdict.PathIn(dir)+":3: stale verdict (right) on S / Q1 / a: the answer changed") {
		t.Errorf("stale: %v", q.Stale)
	}
	if q.Answers[0].Verdict != nil {
		t.Errorf("the verdict applies to another answer: %+v", q.Answers[0].Verdict)
	}
}

// Two reviewers at once, on answers of one file: every verdict is in the
// verdicts file and applied to the output.
func TestTwoReviewersAtOnce(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	var qs [][4]string
	for i := range 16 {
		qs = append(qs, [4]string{fmt.Sprintf("Q%02d", i), "x", "y", "wrong"})
	}
	p := writeOutput(t, dir, "a", "1", qs...)
	q, err := Load([]string{dir}, Filter{})
	if err != nil || len(q.Answers) != 16 {
		t.Fatalf("%v %v", q, err)
	}
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for r := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := r; i < 16; i += 2 {
				_, err := Record(ctx, q.Answers[i], Decision{Right: true, By: fmt.Sprint("r", r)}, nil)
				errs <- err
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	f, err := result.Read(p)
	if err != nil {
		t.Fatal(err)
	}
	for _, qq := range f.Questions {
		if qq.Review == nil || qq.Grade == nil || !*qq.Grade {
			t.Errorf("%s: grade %v review %+v; want right, reviewed", qq.Name, qq.Grade, qq.Review)
		}
	}
	s, _, _ := verdict.Read(dir)
	if s.Len() != 16 {
		t.Errorf("%d verdicts in the file, want 16", s.Len())
	}
}

// Accept adds the answer to its question's accepted answers in the sheet
// the run read, found from above the outputs, and records it right.
func TestAccept(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	sheetPath := filepath.Join(root, "evals", "input-s.md")
	if err := os.MkdirAll(filepath.Join(root, "evals", "results"), 0o755); err != nil {
		t.Fatal(err)
	}
	const text = "# S\n\n## Q1\n#### answer\nx\n\n#### question\nWhat?\n"
	if err := os.WriteFile(sheetPath, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	p := writeOutput(t, filepath.Join(root, "evals", "results"), "a", "1", [4]string{"Q1", "x\n\n", "ex", "wrong"})
	f, _ := result.Read(p)
	f.Sheet.SheetFile = filepath.Join("evals", "input-s.md") // as run was given it, from root
	data, _ := f.Marshal()
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	q, err := Load([]string{filepath.Dir(p)}, Filter{})
	if err != nil || len(q.Answers) != 1 {
		t.Fatalf("%v %v", q, err)
	}
	got, _, err := Accept(ctx, q.Answers[0], Decision{By: "di"}, nil)
	if err != nil || got != sheetPath {
		t.Fatalf("Accept: %q, %v; want %s", got, err, sheetPath)
	}
	doc, err := sheet.ParseFile(sheetPath, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, items := doc.Resolve(); len(items) != 1 || strings.Join(items[0].Accepted, "|") != "ex" || *items[0].GroundTruth != "x\n\n" {
		t.Errorf("the sheet's question: %+v", items)
	}
	if f, _ := result.Read(p); f.Questions[0].Grade == nil || !*f.Questions[0].Grade || f.Questions[0].Review == nil {
		t.Errorf("the output's grade %v, review %+v; want right, reviewed", f.Questions[0].Grade, f.Questions[0].Review)
	}
	f.Sheet.SheetFile = "gone.md"
	q.Answers[0].Sheet = f.Sheet
	if _, _, err := Accept(ctx, q.Answers[0], Decision{By: "di"}, nil); err == nil || !strings.Contains(err.Error(), "the sheet gone.md its run read is not found") {
		t.Errorf("a sheet not found: %v", err)
	}
}

// An output cannot point accept at a sheet outside the current folder
// and the folder above it, even one of the same name.
func TestAcceptRefusesASheetElsewhere(t *testing.T) {
	elsewhere := filepath.Join(t.TempDir(), "input-s.md")
	const text = "# S\n\n## Q1\n#### answer\nx\n#### question\nWhat?\n"
	if err := os.WriteFile(elsewhere, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "ws", "results")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	p := writeOutput(t, dir, "a", "1", [4]string{"Q1", "x", "ex", "wrong"})
	f, _ := result.Read(p)
	f.Sheet.SheetFile = elsewhere
	data, _ := f.Marshal()
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	q, err := Load([]string{dir}, Filter{})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := Accept(context.Background(), q.Answers[0], Decision{By: "x"}, nil); err == nil || !strings.Contains(err.Error(), "accept writes no sheet there") {
		t.Errorf("accept into %s: %v", elsewhere, err)
	}
	if got, _ := os.ReadFile(elsewhere); string(got) != text {
		t.Errorf("the sheet elsewhere was written:\n%s", got)
	}
	if s, _, _ := verdict.Read(dir); s.Len() != 0 {
		t.Errorf("a verdict was recorded")
	}
}

func TestReviewer(t *testing.T) {
	for _, c := range []struct {
		env  map[string]string
		want string
	}{
		{map[string]string{"EVALMD_REVIEWER": "ann", "USER": "bo"}, "ann"},
		{map[string]string{"USER": "bo"}, "bo"},
	} {
		if got := Reviewer(func(k string) string { return c.env[k] }); got != c.want {
			t.Errorf("%v: %q, want %q", c.env, got, c.want)
		}
	}
	if got := Reviewer(func(string) string { return "" }); got == "" {
		t.Error("no reviewer named at all")
	}
}
