package evalmdcmd

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/evalmd/evalmd/result"
)

// edit replaces old by new in the file at path, once, or fails.
func edit(t *testing.T, path, old, new string) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), old) {
		t.Fatalf("%s holds no %q", path, old)
	}
	if err := os.WriteFile(path, []byte(strings.Replace(string(data), old, new, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
}

// The edit loop of issue 20, as a new user runs it: init, run with mock,
// edit one question and one answer, rerun (1 asked, 2 reused), agg shows
// the sheet as it is now (3 questions, graded against the current truth:
// init's config turns on latest_version), and grade -l -w rewrites the
// .md with a truth edited since.
func TestEditLoop(t *testing.T) {
	env := testEnv(t.TempDir(), nil) // a new user's current folder, elsewhere
	dir := filepath.Join(t.TempDir(), "evals")
	if _, stderr, code := evalmd(t, env, "init", dir); code != 0 {
		t.Fatalf("init: exit %d\n%s", code, stderr)
	}
	sheet := filepath.Join(dir, "input-first-steps.md")
	results := filepath.Join(dir, "results")
	// mock answers "C": wrong on Planet-Count (B) until its answer is
	// edited to C.
	runArgs := []string{"run", "-d", dir, "-m", "mock", "-o", results, "--mock-reply", "C"}
	if _, stderr, code := evalmd(t, env, runArgs...); code != 0 {
		t.Fatalf("run: exit %d\n%s", code, stderr)
	}
	first, _ := filepath.Glob(filepath.Join(results, "output-*.json"))
	if len(first) != 1 {
		t.Fatalf("outputs after the first run: %v", first)
	}

	edit(t, sheet, "What is the capital of France?", "What is the capital city of France?")
	edit(t, sheet, "B<EVAL-ENDCHAR>", "C<EVAL-ENDCHAR>")
	stdout, stderr, code := evalmd(t, env, runArgs...)
	if code != 0 {
		t.Fatalf("rerun: exit %d\n%s", code, stderr)
	}
	if want := "mock on input-first-steps.md: 1/3 correct, 1 asked, 2 reused (unchanged since " + filepath.Base(first[0]) + ")"; !strings.Contains(stderr, want) {
		t.Errorf("the rerun does not say %q:\n%s", want, stderr)
	}
	if !strings.Contains(stdout, "| mock  | 3 (1 asked, 2 reused) |") {
		t.Errorf("the run's summary does not say 1 asked, 2 reused:\n%s", stdout)
	}
	all, _ := filepath.Glob(filepath.Join(results, "output-*.json"))
	var newest string
	for _, p := range all {
		if p != first[0] {
			newest = p
		}
	}
	if newest == "" {
		t.Fatalf("the rerun wrote no new output: %v", all)
	}

	// agg counts the sheet as it is now: one run of 3 questions, Planet-
	// Count right against its current truth (1 of 3), and says the older
	// version was left out.
	stdout, stderr, code = evalmd(t, env, "agg", "-i", results)
	if code != 0 {
		t.Fatalf("agg: exit %d\n%s", code, stderr)
	}
	for _, want := range []string{
		"| First-Steps  | mock         |               3 |          0.33 |",
		"| First-Steps  | mock         |        1 |",
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("agg does not show %q:\n%s", want, stdout)
		}
	}
	if !strings.Contains(stderr, "agg: sheet First-Steps: counting only the newest version of its questions") ||
		!strings.Contains(stderr, "left out: ") || !strings.Contains(stderr, filepath.Base(first[0])) {
		t.Errorf("agg does not say it left the older version out:\n%s", stderr)
	}

	// A truth edited after the run: grade -l -w refreshes it from the
	// sheet and rewrites the .md with the JSON.
	edit(t, sheet, "Paris<EVAL-ENDCHAR>", "C<EVAL-ENDCHAR>")
	md := result.MarkdownPath(newest)
	before, err := os.ReadFile(md)
	if err != nil {
		t.Fatal(err)
	}
	if _, stderr, code := evalmd(t, env, "grade", "-l", "-w", "-i", sheet, "-o", newest); code != 0 {
		t.Fatalf("grade -l -w: exit %d\n%s", code, stderr)
	}
	after, err := os.ReadFile(md)
	if err != nil {
		t.Fatal(err)
	}
	f, err := result.Read(newest)
	if err != nil {
		t.Fatal(err)
	}
	if string(after) == string(before) || string(after) != result.Markdown(f) {
		t.Errorf("grade -l -w left the .md as it was, or unlike its JSON:\n%s", after)
	}
	if q := f.Questions[0]; *q.GroundTruth != "C" || q.Grade == nil || !*q.Grade {
		t.Errorf("Capital-France: truth %q, grade %v; want C, true", *q.GroundTruth, q.Grade)
	}
	if !strings.Contains(string(after), "### Capital-France") || !strings.Contains(string(after), "**Reused from:**") {
		t.Errorf("the rewritten .md lost a question or the reused marks:\n%s", after)
	}
}
