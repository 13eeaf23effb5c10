package harness

import (
	"context"
	"fmt"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/evalmd/evalmd/internal/testkit/benchkit"
)

// A run holds its questions only while they are in flight: what it holds
// grows with a sheet's questions by under a kilobyte each at its peak (the
// sheet's items, where each answer lies in the scratch files), not by
// their requests, records and encodings, and the output's JSON and
// markdown whole. So does a rerun beside the first run's output, which
// takes every answer from it: it holds where each answer lies in that file
// and an outline of each question (reuse.Outline), not the file (2.8 kB a
// question when it read it whole); and a dry run, which writes each
// question unanswered and counts its tokens as it builds it (1.4 kB when
// it built them all first). What is measured is the heap each collection
// found live (benchkit.WatchLive), which a busy machine does not swell.
func TestRunHoldsQuestionsInFlight(t *testing.T) {
	if testing.Short() {
		t.Skip("runs 140,000 questions")
	}
	peaks := func(n int) (first, rerun, dry uint64) {
		dir := t.TempDir()
		sheet := filepath.Join(dir, fmt.Sprintf("input-q%d.md", n))
		if err := benchkit.WriteSheet(sheet, n); err != nil {
			t.Fatal(err)
		}
		cfg := Config{NewModel: builtins(), Sheets: []string{sheet}, Models: []string{"oracle"}, OutDir: filepath.Join(dir, "out"), RunIDLen: 4, Key: testKey(t)}
		run := func(current int) uint64 {
			runtime.GC()
			stop := benchkit.WatchLive()
			sum, err := Run(context.Background(), cfg)
			p := stop()
			ran := len(sum.Files) == 1 && len(sum.Current) == current && sum.Files[0].Tally.Questions == n
			if err != nil || !ran && !(cfg.DryRun && len(sum.Outputs) == 1) {
				t.Fatalf("%+v, %v", sum, err)
			}
			return p
		}
		first, rerun = run(0), run(1)
		cfg.DryRun, cfg.OutDir = true, filepath.Join(dir, "dry")
		return first, rerun, run(0)
	}
	small, smallRerun, smallDry := peaks(10_000)
	large, largeRerun, largeDry := peaks(60_000)
	for _, c := range []struct {
		what         string
		small, large uint64
	}{{"first run", small, large}, {"rerun", smallRerun, largeRerun}, {"dry run", smallDry, largeDry}} {
		perQuestion := (float64(c.large) - float64(c.small)) / 50_000
		t.Logf("%s: peak live heap %.1f MB at 10k questions, %.1f MB at 60k: %.0f bytes a question", c.what, float64(c.small)/(1<<20), float64(c.large)/(1<<20), perQuestion)
		if perQuestion > 1200 {
			t.Errorf("%s: the run holds %.0f bytes a question; want its questions held only in flight", c.what, perQuestion)
		}
	}
}
