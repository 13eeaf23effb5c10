package evalmdcmd

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/evalmd/evalmd/internal/testkit/shared"
	"github.com/evalmd/evalmd/result"
	"github.com/evalmd/evalmd/verdict"
)

// gradeOf reads the grade and review of the question named name in the
// one output file of dir.
func gradeOf(t *testing.T, dir, name string) (grade *bool, review *result.Review) {
	t.Helper()
	paths, _ := filepath.Glob(filepath.Join(dir, "output-*.json"))
	if len(paths) != 1 {
		t.Fatalf("outputs in %s: %v, want one", dir, paths)
	}
	f, err := result.Read(paths[0])
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range f.Questions {
		if q.Name == name {
			return q.Grade, q.Review
		}
	}
	t.Fatalf("%s holds no question %s", paths[0], name)
	return nil, nil
}

// The review loop as a person runs it: a run, a verdict that turns a
// wrong grade right, grade -w (kept), a rerun that reuses the answer
// (kept; nothing asked, nothing written), an edit of the question (asked
// again, the same answer: kept), an edit of the truth (the verdict stale,
// listed, not applied), --accept (the sheet gains the alternative; a
// fresh run's same reply is graded right), with agg and LIME's agg.py
// counting the person's grade while it applies.
func TestReviewLoop(t *testing.T) {
	env := testEnv(t.TempDir(), map[string]string{"EVALMD_REVIEWER": "ann"})
	dir := filepath.Join(t.TempDir(), "evals")
	if _, stderr, code := evalmd(t, env, "init", dir); code != 0 {
		t.Fatalf("init: exit %d\n%s", code, stderr)
	}
	results := filepath.Join(dir, "results")
	runArgs := []string{"run", "-d", dir, "-m", "mock", "-o", results, "--mock-reply", "Paree, surely"}
	if _, stderr, code := evalmd(t, env, runArgs...); code != 0 {
		t.Fatalf("run: exit %d\n%s", code, stderr)
	}
	if g, _ := gradeOf(t, results, "Capital-France"); g == nil || *g {
		t.Fatalf("lime grades %q against Paris %v; the test needs it wrong", "Paree, surely", g)
	}
	before := outputs(t, results)

	stdout, stderr, code := evalmd(t, env, "review", "-i", results, "-q", "Capital-France", "--right", "--reason", "Paree is Paris, misspelt")
	if code != 0 || !strings.Contains(stdout, "First-Steps / Capital-France / mock: right by ann's verdict (the grader said wrong); 1 of 1 output files rewritten") {
		t.Fatalf("review --right: exit %d\n%s%s", code, stdout, stderr)
	}
	check := func(when string) {
		t.Helper()
		g, r := gradeOf(t, results, "Capital-France")
		if g == nil || !*g || r == nil || r.By != "ann" || r.Reason != "Paree is Paris, misspelt" || r.GraderGrade == nil || *r.GraderGrade {
			t.Errorf("%s: grade %v, review %+v; want ann's right over the grader's wrong", when, g, r)
		}
	}
	check("after review")
	board := func() string {
		t.Helper()
		stdout, stderr, code := evalmd(t, env, "agg", "-i", results)
		if code != 0 {
			t.Fatalf("agg: exit %d\n%s", code, stderr)
		}
		return stdout
	}
	if b := board(); !strings.Contains(b, "| First-Steps  | mock         |               3 |          0.33 |") {
		t.Errorf("agg does not count the verdict:\n%s", b)
	}
	t.Run("LIME's agg.py", func(t *testing.T) {
		lime := shared.LIMEAgg(t, results)
		if !strings.Contains(lime, "0.33") {
			t.Errorf("LIME's agg.py does not count the verdict:\n%s", lime)
		}
	})

	if _, stderr, code := evalmd(t, env, "grade", "-o", results, "-w"); code != 0 {
		t.Fatalf("grade -w: exit %d\n%s", code, stderr)
	}
	check("after grade -w")
	_, stderr, code = evalmd(t, env, runArgs...)
	if code != 0 || !strings.Contains(stderr, "1/3 correct, nothing asked: current") {
		t.Errorf("rerun: exit %d, want nothing asked and nothing written:\n%s", code, stderr)
	}
	check("after the rerun")
	if got := outputs(t, results); strings.Join(got, " ") != strings.Join(before, " ") {
		t.Errorf("the rerun wrote %v; before it %v", got, before)
	}

	// The question edited: asked again, the same answer to the same truth
	// keeps its verdict.
	sheet := filepath.Join(dir, "input-first-steps.md")
	edit(t, sheet, "What is the capital of France?", "Name the capital of France.")
	if _, stderr, code := evalmd(t, env, runArgs...); code != 0 || !strings.Contains(stderr, "1/3 correct, 1 by people's verdicts, 1 asked, 2 reused") {
		t.Fatalf("run after the question's edit: exit %d\n%s", code, stderr)
	}
	check("after the question was asked again")

	// The truth edited: the answer reused, its verdict no longer applies,
	// and review lists it as stale.
	edit(t, sheet, "Paris<EVAL-ENDCHAR>", "Paris, France<EVAL-ENDCHAR>")
	if _, stderr, code := evalmd(t, env, runArgs...); code != 0 {
		t.Fatalf("run after the truth's edit: exit %d\n%s", code, stderr)
	}
	if g, r := gradeOf(t, results, "Capital-France"); g == nil || *g || r != nil {
		t.Errorf("a changed truth: grade %v, review %+v; want the grader's wrong, no review", g, r)
	}
	stdout, _, code = evalmd(t, env, "review", "-i", results)
	if code != 0 || !strings.Contains(stdout, "; 1 stale verdicts") ||
		!strings.Contains(stdout, verdict.PathIn(results)+":3: stale verdict (right) on First-Steps / Capital-France / mock: the truth changed") {
		t.Errorf("review does not list the stale verdict:\n%s", stdout)
	}
	if b := board(); !strings.Contains(b, "| First-Steps  | mock         |               3 |             0 |") {
		t.Errorf("agg still counts the stale verdict:\n%s", b)
	}
	// --accept: the answer right, and one of its question's accepted
	// answers in the sheet; another model's same reply, on a fresh run,
	// is graded right by the grader itself.
	stdout, stderr, code = evalmd(t, env, "review", "-i", results, "-q", "Capital-France", "--accept")
	if code != 0 {
		t.Fatalf("review --accept: exit %d\n%s%s", code, stdout, stderr)
	}
	if text, _ := os.ReadFile(sheet); !strings.Contains(string(text), "accept: Paree, surely") {
		t.Errorf("the sheet did not gain the accepted answer:\n%s", text)
	}
	other := filepath.Join(dir, "other")
	if _, stderr, code := evalmd(t, env, "run", "-d", dir, "-m", "mock", "-o", other, "--mock-reply", "Paree, surely"); code != 0 {
		t.Fatalf("a fresh run: exit %d\n%s", code, stderr)
	}
	if g, r := gradeOf(t, other, "Capital-France"); g == nil || !*g || r != nil {
		t.Errorf("a fresh run's same reply: grade %v, review %+v; want right by the grader, no review", g, r)
	}

	data, _ := os.ReadFile(verdict.PathIn(results))
	if strings.Count(string(data), "\nright ") != 2 {
		t.Errorf("the file does not hold the stale verdict and the accepted one:\n%s", data)
	}
}
