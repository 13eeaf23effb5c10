package harness

import (
	"context"
	"fmt"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/evalmd/evalmd/internal/testkit/benchkit"
)

// A first run holds its questions only while they are in flight: what it
// holds grows with a sheet's questions by a few hundred bytes each (the
// sheet's items, where each answer lies in the scratch files), not by
// their requests, records and encodings (about 9 kB each when a run held
// them all, and the output's JSON and markdown whole besides).
func TestRunHoldsQuestionsInFlight(t *testing.T) {
	if testing.Short() {
		t.Skip("runs 70,000 questions")
	}
	peak := func(n int) uint64 {
		dir := t.TempDir()
		sheet := filepath.Join(dir, fmt.Sprintf("input-q%d.md", n))
		if err := benchkit.WriteSheet(sheet, n); err != nil {
			t.Fatal(err)
		}
		runtime.GC()
		stop := benchkit.WatchHeap()
		sum, err := Run(context.Background(), Config{NewModel: builtins(), Sheets: []string{sheet}, Models: []string{"oracle"},
			OutDir: filepath.Join(dir, "out"), RunIDLen: 4})
		p := stop()
		if err != nil || len(sum.Outputs) != 1 || sum.Questions != n {
			t.Fatalf("%+v, %v", sum, err)
		}
		return p
	}
	small, large := peak(10_000), peak(60_000)
	perQuestion := (float64(large) - float64(small)) / 50_000
	t.Logf("peak heap %.1f MB at 10k questions, %.1f MB at 60k: %.0f bytes a question", float64(small)/(1<<20), float64(large)/(1<<20), perQuestion)
	if perQuestion > 1500 {
		t.Errorf("the run holds %.0f bytes a question; want its questions held only in flight", perQuestion)
	}
}
