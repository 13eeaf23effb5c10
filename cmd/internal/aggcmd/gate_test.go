package aggcmd

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/evalmd/evalmd/agg/gate"
	"github.com/evalmd/evalmd/cmd/internal/cli"
	"github.com/evalmd/evalmd/cmd/internal/config"
	"github.com/evalmd/evalmd/internal/outfile"
	"github.com/evalmd/evalmd/internal/testkit/junit"
	"github.com/evalmd/evalmd/result"
)

// writeRun writes a run of model on sheet "s" into dir, its questions
// Q1..Qn, those in wrong graded wrong.
func writeRun(t *testing.T, dir, model, runID string, n int, wrong ...int) {
	t.Helper()
	f := &result.File{Sheet: result.Sheet{Name: "s", RunID: runID, ModelName: model}}
	for i := 1; i <= n; i++ {
		g := true
		for _, w := range wrong {
			g = g && w != i
		}
		truth, c := "T", "answer"
		f.Questions = append(f.Questions, result.Question{Name: "Q" + itoa(i), GroundTruth: &truth, Completion: &c, Grade: &g})
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := f.Write(filepath.Join(dir, result.FileName("input-s.md", model, runID)), outfile.Options{}); err != nil {
		t.Fatal(err)
	}
}

// The gate from the command line: a real drop exits 4 naming the model
// and the flipped questions, with the step summary appended (what the
// step wrote before kept), the comment and the JUnit XML written; noise
// passes; a first run with an empty baseline passes; a floor alone fails
// below it; without -o or -html the report is printed, ending with the
// comparison, --junit and --comment written beside it.
func TestGateCommand(t *testing.T) {
	dir := t.TempDir()
	base, cur := filepath.Join(dir, "base"), filepath.Join(dir, "cur")
	writeRun(t, base, "m", "r1", 20)
	writeRun(t, cur, "m", "r1", 20) // restored from the baseline
	writeRun(t, cur, "m", "r2", 20, 1, 2, 3, 4, 5, 6, 7, 8)
	noisy := filepath.Join(dir, "noisy")
	writeRun(t, noisy, "m", "r3", 20, 1, 2)
	empty := filepath.Join(dir, "empty")
	os.MkdirAll(empty, 0o755)
	summary := filepath.Join(dir, "summary.md")
	os.WriteFile(summary, []byte("# earlier step\n"), 0o644)
	comment, xml := filepath.Join(dir, "comment.md"), filepath.Join(dir, "junit.xml")
	for _, tc := range []struct {
		name                 string
		args                 []string
		code                 int
		stdout, stderr, file string // file: what the comment holds
	}{
		{"a real drop", []string{"-i", cur, "--baseline", base, "--fail-on", "regression", "--comment", comment, "--junit", xml,
			"--report-url", "https://ci.example/run/1", "-html", filepath.Join(dir, "report.html")}, 4, "",
			"agg: gate failed: m is significantly worse than the baseline: accuracy 1.000 -> 0.600 on 20 questions (-0.400), McNemar's p 0.0078 < 0.05; 8 questions worse (s / Q1, s / Q2, s / Q3, s / Q4, s / Q5, and 3 more)\n",
			"[The full report](https://ci.example/run/1) (`report.html`: every question, answer and grade)."},
		{"noise", []string{"-i", noisy, "--baseline", base, "--fail-on", "regression", "--comment", comment}, 0, "",
			"agg: m: no significant change: accuracy 1.000 -> 0.900 on 20 questions (-0.100), McNemar's p 0.5000, 2 worse, 0 better (worse: s / Q1, s / Q2)\nagg: gate passed\n",
			"**Gate passed**: no model is significantly worse than the baseline (McNemar's p < 0.05)."},
		{"first run", []string{"-i", cur, "--baseline", empty, "--fail-on", "regression", "--comment", comment}, 0, "",
			"agg: the baseline " + empty + " holds no output file: every model is new\n", "| m     |         0 |      - |     - |      - | -      | - |     0 |      0 |            0 | new: not in the baseline |"},
		{"a floor", []string{"-i", noisy, "--fail-under", "0.9", "--comment", comment}, 4, "",
			"agg: gate failed: m is below the floor: accuracy 0.900, its 95% interval starts at 0.699 < 0.9\n", "## evalmd: accuracy floor"},
		{"the report", []string{"-i", cur, "--baseline", base, "--md"}, 0, "### Compared with the baseline", "agg: m: regression", ""},
		{"the report beside --junit and --comment", []string{"-i", cur, "--baseline", base, "--md", "--junit", xml, "--comment", comment}, 0,
			"### Compared with the baseline", "agg: m: regression", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			os.Remove(comment)
			before, _ := os.ReadFile(summary)
			var stdout, stderr bytes.Buffer
			env := map[string]string{"GITHUB_STEP_SUMMARY": summary}
			cmd := Command(config.Lookup{}, func(io.Writer) bool { return false }, func(k string) string { return env[k] })
			code := cli.Report(&stderr, "agg", cli.Execute(context.Background(), &stdout, &stderr, cmd, tc.args))
			if code != tc.code || !strings.Contains(stdout.String(), tc.stdout) || !strings.Contains(stderr.String(), tc.stderr) {
				t.Fatalf("exit %d; want %d, stderr with %q, stdout with %q\nstderr: %s\nstdout: %s", code, tc.code, tc.stderr, tc.stdout, stderr.String(), stdout.String())
			}
			after, _ := os.ReadFile(summary)
			added, ok := bytes.CutPrefix(after, before)
			if !ok || !bytes.HasPrefix(added, []byte(gate.Marker)) {
				t.Errorf("the step summary was not appended to:\n%s", after)
			}
			if tc.file == "" {
				return
			}
			got, err := os.ReadFile(comment)
			if err != nil || !bytes.Equal(got, bytes.TrimSuffix(added, []byte("\n"))) || !strings.Contains(string(got), tc.file) {
				t.Errorf("comment %v:\n%s\nwant the step summary's markdown, with %q", err, got, tc.file)
			}
		})
	}
	data, err := os.ReadFile(xml)
	if err != nil {
		t.Fatal(err)
	}
	if err := junit.Check(data); err != nil || strings.Count(string(data), "<failure ") != 8 || strings.Count(string(data), "<testcase ") != 20 {
		t.Errorf("JUnit XML (%v), want 20 cases of the new run, 8 failed:\n%s", err, data)
	}
}
