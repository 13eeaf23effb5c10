package dabench

import (
	"context"
	"io"
	"math"
	"testing"

	"github.com/evalmd/evalmd/agg"
)

// load reads the output files of dir as agg does and returns the
// questions agg gives the metric.
func load(t *testing.T, dir string) []agg.Question {
	t.Helper()
	c := &capture{}
	d, err := agg.Load(context.Background(), dir, io.Discard, agg.LoadOptions{Metrics: []agg.Metric{c}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := d.Markdown(agg.ReportOptions{}); err != nil {
		t.Fatal(err)
	}
	return c.qs
}

func near(a, b, eps float64) bool { return math.Abs(a-b) <= eps }

// TestDABench checks the DABench figures on testdata/agg, worked out by
// hand: d1 (concepts A, B; easy) has both sub-answers right, d2 (A; hard)
// one of two, d3 (B; easy) has an empty response and leaves every
// denominator. ABQ 1/2, PSAQ (1 + 1/2)/2, UASQ 3/4; concept A 1/2, B 1/1;
// one concept 0/1, two 1/1; easy 1/1, hard 0/1.
func TestDABench(t *testing.T) {
	runs := runs(load(t, "testdata/agg"))
	if len(runs) != 1 || runs[0].label != "m1" {
		t.Fatalf("runs: %+v", runs)
	}
	r := runs[0].report
	check := func(name string, got, want float64) {
		t.Helper()
		if !near(got, want, 1e-12) {
			t.Errorf("%s = %v, want %v", name, got, want)
		}
	}
	if r.Scored != 2 {
		t.Errorf("scored %d, want 2", r.Scored)
	}
	check("ABQ", r.ABQ.Value, 0.5)
	check("PSAQ", r.PSAQ.Value, 0.75)
	check("UASQ", r.UASQ.Value, 0.75)
	concepts := map[string]float64{}
	for _, c := range r.Concepts {
		concepts[c.Name] = c.Rate.Value
	}
	check("concept A", concepts["A"], 0.5)
	check("concept B", concepts["B"], 1)
	counts := map[string]float64{}
	for _, c := range r.ConceptCounts {
		counts[c.Name] = c.Rate.Value
	}
	check("1 concept", counts["1"], 0)
	check("2 concepts", counts["2"], 1)
	levels := map[string]float64{}
	for _, l := range runs[0].levels {
		levels[l.Name] = l.Rate.Value
	}
	check("easy", levels["easy"], 1)
	check("hard", levels["hard"], 0)
	if r.TwoOrMore == nil {
		t.Error("two or more concepts: nil")
	} else {
		check("two or more", r.TwoOrMore.Value, 1)
	}
}
