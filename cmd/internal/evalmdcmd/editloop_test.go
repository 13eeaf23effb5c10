package evalmdcmd

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/evalmd/evalmd/internal/testkit/shared"
	"github.com/evalmd/evalmd/internal/testkit/syncbuf"
	"github.com/evalmd/evalmd/regrade"
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

// outputs lists the output files (.json and .md) in dir, by base name.
func outputs(t *testing.T, dir string) []string {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join(dir, "output-*"))
	if err != nil {
		t.Fatal(err)
	}
	for i, p := range paths {
		paths[i] = filepath.Base(p)
	}
	return paths
}

// The edit loop as a new user runs it, with mock: init, run, rerun the
// unchanged sheet (no new run: nothing written, agg counts 3 questions and
// no consistency), edit one question and one answer and rerun (1 asked, 2
// reused; the first output superseded, put aside), grade -l -w and a plain
// rerun that keeps its liberal grades, a setting added to the sheet's meta
// (asked again, the run before superseded), then a sheet saved
// half-written under run --watch (one line, nothing run, the
// leaderboard unchanged). Then evalmd agg and LIME's own agg.py count the
// folder alike: each current question once.
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
	agg := func() string {
		t.Helper()
		stdout, stderr, code := evalmd(t, env, "agg", "-i", results)
		if code != 0 {
			t.Fatalf("agg: exit %d\n%s", code, stderr)
		}
		return stdout
	}

	// The unchanged sheet rerun: nothing asked, nothing written, no run
	// added.
	stdout, stderr, code := evalmd(t, env, runArgs...)
	if code != 0 {
		t.Fatalf("rerun: exit %d\n%s", code, stderr)
	}
	if want := "mock on input-first-steps.md: 0/3 correct, nothing asked: current, " + filepath.Base(first[0]) + " holds these answers graded alike; nothing written"; !strings.Contains(stderr, want) {
		t.Errorf("the unchanged rerun does not say %q:\n%s", want, stderr)
	}
	if !strings.Contains(stdout, "| mock  | 3 (0 asked, 3 reused) |") {
		t.Errorf("the unchanged rerun's summary does not say 0 asked, 3 reused:\n%s", stdout)
	}
	if got := outputs(t, results); len(got) != 2 {
		t.Errorf("the unchanged rerun left %v, want the first run's .json and .md", got)
	}
	report := agg()
	for _, want := range []string{
		"| First-Steps  | mock         |               3 |             0 |",
		"| First-Steps  | mock         |        1 |",
		"| mock  |      3 |       0 |     3 |    0.000 |",
	} {
		if !strings.Contains(report, want) {
			t.Errorf("agg after the unchanged rerun does not show %q:\n%s", want, report)
		}
	}
	if strings.Contains(report, "consistency") {
		t.Errorf("agg computes a consistency over one answer per question:\n%s", report)
	}

	// One question and one answer edited: 1 asked, 2 reused; the first
	// output, superseded, put aside.
	edit(t, sheet, "What is the capital of France?", "What is the capital city of France?")
	edit(t, sheet, "B<EVAL-ENDCHAR>", "C<EVAL-ENDCHAR>")
	stdout, stderr, code = evalmd(t, env, runArgs...)
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
	if len(all) != 1 || all[0] == first[0] {
		t.Fatalf("after the edit the folder holds %v, want the rerun's output alone", all)
	}
	newest := all[0]
	if aside := outputs(t, filepath.Join(results, result.Superseded)); len(aside) != 2 || aside[0] != filepath.Base(first[0]) {
		t.Errorf("superseded: %v, want the first run's .json and .md", aside)
	}
	// agg counts the sheet as it is now: one run of 3 questions,
	// Planet-Count right against its current truth (1 of 3).
	report = agg()
	for _, want := range []string{
		"| First-Steps  | mock         |               3 |          0.33 |",
		"| First-Steps  | mock         |        1 |",
	} {
		if !strings.Contains(report, want) {
			t.Errorf("agg does not show %q:\n%s", want, report)
		}
	}

	// A truth edited after the run: grade -l -w refreshes it from the
	// sheet, grades liberally and rewrites the .md with the JSON.
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
	if !strings.Contains(string(after), "### Capital-France") || !strings.Contains(string(after), "**Reused from:**") ||
		!strings.Contains(string(after), "**Grading:** liberal (flag)") {
		t.Errorf("the rewritten .md lost a question or the reused marks, or does not say the grading:\n%s", after)
	}

	// A plain rerun (of the sheet as edited: a version of its own) keeps
	// the liberal grading grade -l gave the answers it reuses, and says
	// so; the run's summary and agg say how they were graded.
	stdout, stderr, code = evalmd(t, env, runArgs...)
	if code != 0 {
		t.Fatalf("rerun after grade -l -w: exit %d\n%s", code, stderr)
	}
	for _, want := range []string{
		"mock on input-first-steps.md: 3 reused answers keep the liberal grading a flag gave them",
		"mock on input-first-steps.md: 2/3 correct, 3 graded liberally, 0 asked, 3 reused",
	} {
		if !strings.Contains(stderr, want) {
			t.Errorf("the rerun after grade -l -w does not say %q:\n%s", want, stderr)
		}
	}
	if !strings.Contains(stdout, "| liberal |") {
		t.Errorf("the rerun's summary does not say the answers were graded liberally:\n%s", stdout)
	}
	if report := agg(); !strings.Contains(report, "| mock  |") || !strings.Contains(report, "| liberal |") {
		t.Errorf("agg's Models table does not say the answers were graded liberally:\n%s", report)
	}
	all, _ = filepath.Glob(filepath.Join(results, "output-*.json"))
	if len(all) != 1 || all[0] == newest {
		t.Fatalf("after the rerun the folder holds %v, want its output alone", all)
	}
	// The grade file grade -w wrote goes aside with the output it grades.
	if grades, _ := filepath.Glob(filepath.Join(results, "grade-*.json")); len(grades) != 0 {
		t.Errorf("after the rerun the folder still holds %v, the grade file of an output put aside", grades)
	}
	if _, err := os.Stat(regrade.GradePath(filepath.Join(results, result.Superseded, filepath.Base(newest)))); err != nil {
		t.Errorf("the grade file was not put aside with its output: %v", err)
	}
	newest = all[0]
	if f, err = result.Read(newest); err != nil {
		t.Fatal(err)
	}
	for _, q := range f.Questions {
		if q.Grading != result.GradingLiberal || q.GradingFrom != result.GradingFromFlag || q.ReusedFrom == "" {
			t.Errorf("%s: graded %q from %q (reused from %q), want liberal from the flag, reused", q.Name, q.Grading, q.GradingFrom, q.ReusedFrom)
		}
	}

	// A setting added to the sheet's meta is the sheet's: every question
	// is asked again, and the run supersedes the one before, so agg counts
	// each question once (3, not 6).
	edit(t, sheet, "- grader: lime\n", "- grader: lime\n- temperature: 0.7\n")
	if _, stderr, code := evalmd(t, env, runArgs...); code != 0 || !strings.Contains(stderr, "3 calls") || !strings.Contains(stderr, "(superseded: ") {
		t.Fatalf("rerun after the sheet's setting: exit %d, want 3 asked and the run before superseded\n%s", code, stderr)
	}
	if all, _ := filepath.Glob(filepath.Join(results, "output-*.json")); len(all) != 1 {
		t.Errorf("after the sheet's setting the folder holds %v, want the rerun's output alone", all)
	}
	if report := agg(); !strings.Contains(report, "| First-Steps  | mock         |               3 |") {
		t.Errorf("agg does not count the sheet's 3 questions once:\n%s", report)
	}

	// run --watch: the sheet saved half-written is one line, is not run,
	// and the leaderboard stays as it was.
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	var log syncbuf.Buffer
	done := background(ctx, env, &log, append([]string{"run", "--watch"}, runArgs[1:]...)...)
	waitFor(t, &log, regexp.MustCompile(`watching 1 sheet for changes`))
	files, board := outputs(t, results), agg()
	if err := os.WriteFile(sheet, []byte("# First-Steps\n\n## Half\n#### answer\nX\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	waitFor(t, &log, regexp.MustCompile(`(?s)watching 1 sheet for changes.*watching 1 sheet for changes`))
	cancel()
	if err := done(); err != nil {
		t.Errorf("the watch ended with %v", err)
	}
	said := log.String()
	if want := "not run: " + sheet + `:3: question "Half" has no question section`; strings.Count(said, want) != 1 || strings.Count(said, "Half") != 1 {
		t.Errorf("the half-saved sheet is not one line %q:\n%s", want, said)
	}
	if got := outputs(t, results); !slices.Equal(got, files) {
		t.Errorf("the half-saved sheet changed the outputs: %v, were %v", got, files)
	}
	report = agg()
	if report != board {
		t.Errorf("the half-saved sheet changed the leaderboard:\n%s\nwas\n%s", report, board)
	}

	// LIME's own agg.py reads the folder as agg does: the same three
	// tables, each current question once.
	t.Run("LIME's agg.py", func(t *testing.T) {
		lime := shared.LIMEAgg(t, results)
		ours, _, _ := strings.Cut(report, "### Models")
		if strings.TrimSpace(ours) != strings.TrimSpace(lime) {
			t.Errorf("LIME's agg.py counts the folder otherwise:\n--- agg\n%s\n--- agg.py\n%s", ours, lime)
		}
	})
}

// A setting a flag gives names a configuration: a run with it is a row of
// its own, the model's label saying which, and neither run supersedes the
// other; the same flag again asks nothing.
func TestConfigurationsAreRows(t *testing.T) {
	env := testEnv(t.TempDir(), nil)
	dir := filepath.Join(t.TempDir(), "evals")
	if _, stderr, code := evalmd(t, env, "init", dir); code != 0 {
		t.Fatalf("init: exit %d\n%s", code, stderr)
	}
	results := filepath.Join(dir, "results")
	run := []string{"run", "-d", dir, "-m", "mock", "-o", results, "--mock-reply", "C"}
	hot := append(slices.Clone(run), "--temperature", "0.2")
	for _, args := range [][]string{run, hot} {
		if _, stderr, code := evalmd(t, env, args...); code != 0 {
			t.Fatalf("%q: exit %d\n%s", args, code, stderr)
		}
	}
	if _, stderr, code := evalmd(t, env, hot...); code != 0 || !strings.Contains(stderr, "nothing asked: current") {
		t.Errorf("the same configuration again: exit %d, want nothing asked\n%s", code, stderr)
	}
	if all, _ := filepath.Glob(filepath.Join(results, "output-*.json")); len(all) != 2 {
		t.Errorf("outputs %v, want one a configuration", all)
	}
	stdout, stderr, code := evalmd(t, env, "agg", "-i", results)
	if code != 0 {
		t.Fatalf("agg: exit %d\n%s", code, stderr)
	}
	for _, want := range []string{
		"| First-Steps  | mock                   |               3 |",
		"| First-Steps  | mock · temperature 0.2 |               3 |",
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("agg does not show %q:\n%s", want, stdout)
		}
	}
}
