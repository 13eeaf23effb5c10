package dabench

import (
	"context"
	"io"
	"math"
	"reflect"
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

// TestDABenchStrict checks parity and strict ABQ on testdata/strict,
// worked out by hand: s1 right; s2 right but ended by max_turns; s3 empty,
// ended by question_timeout; s4 wrong; s5 empty. The script scores s1, s2
// and s4: ABQ 2/3 = 0.6667, PSAQ (1+1+0)/3, UASQ 4/5. Strict is over all five with only s1 right:
// 1/5 = 0.2000.
func TestDABenchStrict(t *testing.T) {
	runs := runs(load(t, "testdata/strict"))
	if len(runs) != 1 {
		t.Fatalf("runs: %+v", runs)
	}
	r := runs[0]
	if r.report.Scored != 3 || !near(r.report.ABQ.Value, 0.6667, 1e-12) {
		t.Errorf("parity: scored %d, ABQ %v; want 3, 0.6667", r.report.Scored, r.report.ABQ.Value)
	}
	if r.of != 5 || !near(r.strict.Value, 0.2, 1e-12) {
		t.Errorf("strict: over %d, ABQ %v; want 5, 0.2", r.of, r.strict.Value)
	}
	tables := metric{}.Tables(load(t, "testdata/strict"))
	row := tables[0].Rows[0]
	if want := []string{"m2", "3", "0.6667", "0.6667", "0.8000", "-", "5", "0.2000"}; !reflect.DeepEqual(row, want) {
		t.Errorf("main row %q, want %q", row, want)
	}
	if rate, n := strictABQ(nil); n != 0 || !rate.Int {
		t.Errorf("Strict(nil) = %v, %d", rate, n)
	}
}
