package evalmdcmd

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/evalmd/evalmd/result"
)

// The loop a user of liberal grades runs: run, grade -l -w, then a plain
// rerun after an edit. The rerun reuses the answers grade -l graded and
// keeps their liberal grades (saying so), grades its new answer in the
// mode in force (strict), and agg counts what the files hold; a rerun
// with --grading strict grades the reused answers strictly and says it.
func TestLiberalSurvivesRerun(t *testing.T) {
	env := testEnv(t.TempDir(), nil)
	dir := t.TempDir()
	sheet, results := filepath.Join(dir, "input-l.md"), filepath.Join(dir, "results")
	text := "# L\n## Q1\n#### question\nPick.\n#### answer\nB) 6\n## Q2\n#### question\nPick again.\n#### answer\nB) 6\n## Q3\n#### question\nAnd again.\n#### answer\nB) 6\n"
	if err := os.WriteFile(sheet, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	runArgs := []string{"run", "-f", sheet, "-m", "mock", "--mock-reply", "b, since 6", "-o", results}
	mustRun := func(want string, args ...string) {
		t.Helper()
		stdout, stderr, code := evalmd(t, env, args...)
		if code != 0 {
			t.Fatalf("%s: exit %d\n%s", args[0], code, stderr)
		}
		if !strings.Contains(stdout+stderr, want) {
			t.Errorf("%s does not say %q:\n%s%s", args[0], want, stdout, stderr)
		}
	}
	mustRun("mock on input-l.md: 0/3 correct, 3 answered", runArgs...)
	mustRun("3 questions, 3 grades changed (liberal 3), 3 graded liberally", "grade", "-l", "-w", "-o", results)

	edit(t, sheet, "And again.", "And once more.")
	mustRun("mock on input-l.md: 2 reused answers keep the liberal grading a flag gave them", runArgs...)
	newest := latestOutput(t, results)
	for _, q := range newest.Questions {
		reused := q.ReusedFrom != ""
		if q.Liberal() != reused || q.Grade == nil || *q.Grade != reused {
			t.Errorf("%s (reused %v): graded %v in mode %q from %q", q.Name, reused, q.Grade, q.Grading, q.GradingFrom)
		}
	}
	// agg counts what the files hold, and says where the modes meet.
	stdout, stderr, code := evalmd(t, env, "agg", "-i", results, "--latest-version")
	if code != 0 || !strings.Contains(stdout, "|               3 |          0.67 |") {
		t.Errorf("agg: exit %d, want 2 of 3 right\n%s\n%s", code, stdout, stderr)
	}
	if !strings.Contains(stderr, "agg: sheet L, model mock: 2 of 3 answers graded liberally, counted with the 1 graded strictly") ||
		!strings.Contains(stdout, "both: 2 of 3 liberal") {
		t.Errorf("agg does not say the grading modes meet:\n%s\n%s", stdout, stderr)
	}

	mustRun("mock on input-l.md: 2 reused answers graded liberal by a flag before are graded strict by the flag now", append(runArgs, "--grading", "strict")...)
	if q := latestOutput(t, results).Questions[0]; q.Liberal() || q.Grade == nil || *q.Grade {
		t.Errorf("--grading strict: %s graded %v in mode %q", q.Name, q.Grade, q.Grading)
	}
}

// latestOutput is the output in dir whose run started last.
func latestOutput(t *testing.T, dir string) *result.File {
	t.Helper()
	found, err := result.Find(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	var latest *result.File
	for _, p := range found {
		f, err := result.Read(p)
		if err != nil {
			t.Fatal(err)
		}
		if latest == nil || f.Sheet.Created > latest.Sheet.Created {
			latest = f
		}
	}
	return latest
}
