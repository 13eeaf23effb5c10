package agg

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/evalmd/evalmd/internal/testkit/shared"
)

// limeSource is a checkout of LIME (github.com/sutt/lime at e03f8c2, the
// version agg follows), named by EVALMD_LIME_SRC, and Debian's Python with
// pandas and tabulate (DataFrame.to_markdown) to run its agg.py. LIME's
// source is not in ../shared and CI reaches no code host, so without
// EVALMD_LIME_SRC the test is skipped, in CI too; a named checkout that is
// not one fails.
func limeSource(t *testing.T) (python, src string) {
	t.Helper()
	src = os.Getenv("EVALMD_LIME_SRC")
	if src == "" {
		t.Skip("EVALMD_LIME_SRC names no checkout of github.com/sutt/lime (git checkout e03f8c2)")
	}
	if _, err := os.Stat(filepath.Join(src, "agg.py")); err != nil {
		t.Fatalf("EVALMD_LIME_SRC: %v", err)
	}
	python = "/usr/bin/python3"
	if err := exec.Command(python, "-c", "import pandas, tabulate").Run(); err != nil {
		shared.Missing(t, "needs "+python+" with pandas and tabulate (apt-get install python3-pandas python3-tabulate): "+err.Error())
	}
	return python, src
}

// TestLIMEAggReadsEpochs runs LIME's own agg.py on a run of 4 epochs (one
// file per epoch under one run id) beside a run of one epoch: it reads
// them, its Leaderboard's pct_correct is the epoch mean agg computes (LIME
// rounds it to 2 places), its Runs table counts the epochs as one run,
// and its three tables are byte for byte what agg writes.
func TestLIMEAggReadsEpochs(t *testing.T) {
	python, src := limeSource(t)
	dir := t.TempDir()
	// 5 questions, 4 epochs: 3, 2, 4 and 2 right, a mean of 11/20.
	right := []int{3, 2, 4, 2}
	grades := make([][]bool, len(right))
	for e, c := range right {
		for q := range 5 {
			grades[e] = append(grades[e], (q+e)%5 < c)
		}
	}
	writeRun(t, dir, "s", "model-a", "r1", grades)
	writeRun(t, dir, "s", "model-b", "r2", [][]bool{{true, false, false, true, false}})

	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	out := filepath.Join(t.TempDir(), "agg-lime.md")
	cmd := exec.CommandContext(ctx, python, "agg.py", "-i", dir, "-o", out)
	cmd.Dir = src
	if msg, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("LIME's agg.py: %v\n%s", err, msg)
	}
	lime, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	d := loadDir(t, dir)
	var mean float64
	for _, m := range d.Totals() {
		if m.Model == "model-a" {
			mean = m.Score
		}
	}
	if mean != 11.0/20 {
		t.Fatalf("agg's epoch mean of model-a is %v, want 11/20", mean)
	}
	// LIME's leaderboard row: sheet, model, answers (5 questions x 4
	// epochs), pct_correct; its runs row: one run id.
	for _, want := range []string{
		fmt.Sprintf("| s            | model-a      |              20 |          %.2f |", mean),
		"| s            | model-a      |        1 |",
	} {
		if !strings.Contains(string(lime), want) {
			t.Errorf("LIME's agg.py wrote no line %q:\n%s", want, lime)
		}
	}
	if got := d.LIMEMarkdown(); got != string(lime) {
		t.Errorf("agg's LIME tables differ from LIME's agg.py:\n--- agg\n%s\n--- agg.py\n%s", got, lime)
	}
}
