package agg

import (
	"fmt"
	"strings"
	"testing"

	"github.com/evalmd/evalmd/internal/testkit/outputs"
	"github.com/evalmd/evalmd/internal/testkit/shared"
)

// TestLIMEAggReadsEpochs runs LIME's own agg.py on a run of 4 epochs (one
// file per epoch under one run id) beside a run of one epoch: it reads
// them, its Leaderboard's pct_correct is the epoch mean agg computes (LIME
// rounds it to 2 places), its Runs table counts the epochs as one run,
// and its three tables are byte for byte what agg writes.
func TestLIMEAggReadsEpochs(t *testing.T) {
	dir := t.TempDir()
	// 5 questions, 4 epochs: 3, 2, 4 and 2 right, a mean of 11/20.
	right := []int{3, 2, 4, 2}
	grades := make([][]bool, len(right))
	for e, c := range right {
		for q := range 5 {
			grades[e] = append(grades[e], (q+e)%5 < c)
		}
	}
	outputs.WriteRun(t, dir, "s", "model-a", "r1", grades)
	outputs.WriteRun(t, dir, "s", "model-b", "r2", [][]bool{{true, false, false, true, false}})
	lime := shared.LIMEAgg(t, dir)
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
		if !strings.Contains(lime, want) {
			t.Errorf("LIME's agg.py wrote no line %q:\n%s", want, lime)
		}
	}
	if got := d.LIMEMarkdown(); got != lime {
		t.Errorf("agg's LIME tables differ from LIME's agg.py:\n--- agg\n%s\n--- agg.py\n%s", got, lime)
	}
}
