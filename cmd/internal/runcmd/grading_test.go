package runcmd

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/evalmd/evalmd/internal/testkit/syncbuf"
	"github.com/evalmd/evalmd/result"
)

// gradingSheet's answers are right only liberally for mock's "b, since 6";
// the sheet's meta section is put in place of META, Q2's in place of
// QMETA.
const gradingSheet = `# G
META
## Q1
#### question
Pick one.
#### answer
B) 6
## Q2
QMETA
#### question
Pick again.
#### answer
B) 6
`

// The grading setting resolves as every setting does, default < config <
// sheet meta < question meta < flag: the run grades each answer in its
// mode, records the mode and its source (nothing when no source set it,
// so the output keeps LIME's members) and says how many were graded
// liberally.
func TestGradingSetting(t *testing.T) {
	const liberalMeta, strictQ2 = "#### meta\ngrading: liberal", "#### meta\ngrading: strict"
	for _, tc := range []struct {
		name, meta, qmeta, config string
		flags                     []string
		modes                     [2]string // per question: "liberal (FROM)", "strict (FROM)", or "" (no record)
	}{
		{name: "default"},
		{name: "flag", flags: []string{"--grading", "liberal"}, modes: [2]string{"liberal (flag)", "liberal (flag)"}},
		{name: "config", config: "grading: liberal\n", modes: [2]string{"liberal (config)", "liberal (config)"}},
		{name: "sheet meta", meta: liberalMeta, modes: [2]string{"liberal (sheet meta)", "liberal (sheet meta)"}},
		{name: "question meta over sheet meta", meta: liberalMeta, qmeta: strictQ2, modes: [2]string{"liberal (sheet meta)", "strict (question meta)"}},
		{name: "sheet meta over config", meta: liberalMeta, config: "grading: strict\n", modes: [2]string{"liberal (sheet meta)", "liberal (sheet meta)"}},
		{name: "flag over question meta", qmeta: "#### meta\ngrading: liberal", flags: []string{"--grading", "strict"},
			modes: [2]string{"strict (flag)", "strict (flag)"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			text := strings.Replace(strings.Replace(gradingSheet, "META", tc.meta, 1), "QMETA", tc.qmeta, 1)
			writeFile(t, filepath.Join(dir, "input-g.md"), text)
			if tc.config != "" {
				writeFile(t, filepath.Join(dir, "evalmd.yaml"), tc.config)
			}
			out := filepath.Join(dir, "out")
			args := append([]string{"-f", filepath.Join(dir, "input-g.md"), "-m", "mock", "--mock-reply", "b, since 6", "-o", out}, tc.flags...)
			stdout, stderr, err := runIn(dir, nil, args...)
			if err != nil {
				t.Fatalf("%v\n%s", err, stderr)
			}
			f := readOnly(t, out)
			liberal := 0
			for i, q := range f.Questions {
				got := ""
				if q.GradingFrom != "" {
					got = fmt.Sprintf("%s (%s)", q.Grading, q.GradingFrom)
				}
				if got != tc.modes[i] {
					t.Errorf("%s: grading %q, want %q", q.Name, got, tc.modes[i])
				}
				if q.Grade == nil || *q.Grade != q.Liberal() {
					t.Errorf("%s: graded %v in mode %q", q.Name, q.Grade, q.Grading)
				}
				if q.Liberal() {
					liberal++
				}
			}
			line := fmt.Sprintf("mock on input-g.md: %d/2 correct, %d graded liberally,", liberal, liberal)
			if liberal > 0 != strings.Contains(stderr, line) || strings.Contains(stderr, "0 graded liberally") {
				t.Errorf("the run does not say %q:\n%s", line, stderr)
			}
			// The summary's grading column, where some answer was liberal.
			column := map[int]string{0: "", 1: "| both: 1 of 2 liberal |", 2: "| liberal |"}[liberal]
			if column == "" && strings.Contains(stdout, "grading") || !strings.Contains(stdout, column) {
				t.Errorf("the summary does not say %q:\n%s", column, stdout)
			}
			paths, _ := filepath.Glob(filepath.Join(out, "output-*.json"))
			data, err := os.ReadFile(paths[0])
			if err != nil {
				t.Fatal(err)
			}
			if tc.modes == [2]string{} && strings.Contains(string(data), `"grading`) {
				t.Errorf("a run in the default mode records one:\n%s", data)
			}
		})
	}
}

// run --watch grades in the mode the sheet's meta sets, each time the
// sheet is saved: liberally while its meta says so, strictly once the
// line is gone (a mode a file set is not kept by the answers, as a flag's
// is), the same answer reused each time.
func TestWatchGradesLiberally(t *testing.T) {
	dir := t.TempDir()
	sheet, out := filepath.Join(dir, "input-w.md"), filepath.Join(dir, "out")
	const liberal = "# W\n#### meta\ngrading: liberal\n## Q1\n#### question\nPick.\n#### answer\nB) 6\n"
	writeFile(t, sheet, liberal)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	var stdout, stderr syncbuf.Buffer
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, &stdout, &stderr, []string{"--watch", "-f", sheet, "-m", "mock", "--mock-reply", "b, since 6", "-o", out})
	}()
	for i, tc := range []struct {
		text, line string
		liberal    bool
	}{
		{liberal, "mock on input-w.md: 1/1 correct, 1 graded liberally, 1 answered", true},
		{strings.Replace(liberal, "grading: liberal\n", "", 1), "mock on input-w.md: 0/1 correct, 0 asked, 1 reused", false},
		{liberal + "\n", "mock on input-w.md: 1/1 correct, 1 graded liberally, 0 asked, 1 reused", true},
	} {
		if i > 0 {
			writeFile(t, sheet, tc.text)
		}
		waitFor(t, &stderr, "watching 1 sheet for changes", i+1)
		if !strings.Contains(stderr.String(), tc.line) {
			t.Errorf("save %d: the run does not say %q:\n%s", i, tc.line, stderr.String())
		}
		var latest *result.File
		for _, p := range outputsOf(t, out, "input-w.md") {
			if f, err := result.Read(p); err == nil && (latest == nil || f.Sheet.Created > latest.Sheet.Created) {
				latest = f
			}
		}
		if q := latest.Questions[0]; q.Liberal() != tc.liberal || q.Grade == nil || *q.Grade != tc.liberal {
			t.Errorf("save %d: graded %v in mode %q (%s), want liberal %v", i, q.Grade, q.Grading, q.GradingFrom, tc.liberal)
		}
	}
	if strings.Contains(stderr.String(), "keep the liberal grading") {
		t.Errorf("a mode the sheet set was kept as a flag's:\n%s", stderr.String())
	}
	cancel()
	if err := <-done; err != nil {
		t.Errorf("the watch ended with %v", err)
	}
}
