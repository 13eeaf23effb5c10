package score

import (
	"context"
	"io"
	"math"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/evalmd/evalmd/agg"
	"github.com/evalmd/evalmd/agg/render"
	"github.com/evalmd/evalmd/agg/stats"
	"github.com/evalmd/evalmd/internal/outfile"
	"github.com/evalmd/evalmd/result"
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

// capture is DABench's metric, keeping the questions agg hands it.
type capture struct {
	metric
	qs []agg.Question
}

func (c *capture) Tables(qs []agg.Question) []render.Table {
	c.qs = qs
	return c.metric.Tables(qs)
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
	// The intervals are Wilson's over questions: 2 of 3 scored, 1 of 5.
	if want := []string{"m2", "3", "0.6667", "0.6667", "0.8000", "-", "5", "0.2000", "1", "[0.2077, 0.9385]", "[0.0362, 0.6245]"}; !reflect.DeepEqual(row, want) {
		t.Errorf("main row %q, want %q", row, want)
	}
	if rate, n := strictABQ(nil); n != 0 || !rate.Int {
		t.Errorf("Strict(nil) = %v, %d", rate, n)
	}
}

// TestDABenchEpochs: a run of two epochs is scored epoch by epoch as the
// script scores a responses file, and its figures are the epochs' means:
// epoch 1 has d1 right (2 of 2 sub-answers) and d2 wrong (1 of 2),
// epoch 2 both right. ABQ (1/2 + 1)/2 = 0.75, PSAQ (0.75 + 1)/2 = 0.875,
// UASQ the same; strict ABQ over the 2 questions, not 4 answers; ABQ's
// interval over the questions' shares, 1 and 1/2.
func TestDABenchEpochs(t *testing.T) {
	dir := t.TempDir()
	for e := 1; e <= 2; e++ {
		f := &result.File{Sheet: result.Sheet{Name: "da", ModelName: "m", RunID: "r", Epoch: e, Epochs: 2,
			MetaData: map[string]string{"benchmark": Name}}}
		for _, name := range []string{"d1", "d2"} {
			second := name == "d1" || e == 2
			c := "@a[1] @b[2]"
			f.Questions = append(f.Questions, result.Question{Name: name, Question: name, Completion: &c, ModelName: "m",
				MetaData:   map[string]string{"benchmark": Name, "concepts": "A", "level": "easy"},
				SubAnswers: []result.SubAnswer{{Name: "a", Correct: true}, {Name: "b", Correct: second}}})
		}
		path := filepath.Join(dir, result.EpochName(result.FileName("input-da.md", "m", "r"), e, 2))
		if err := f.Write(path, outfile.Options{}); err != nil {
			t.Fatal(err)
		}
	}
	rs := runs(load(t, dir))
	if len(rs) != 1 {
		t.Fatalf("runs %+v", rs)
	}
	r := rs[0]
	if r.epochs != 2 || r.of != 2 || r.report.Scored != 4 {
		t.Errorf("epochs %d, questions %d, scored %d; want 2, 2, 4", r.epochs, r.of, r.report.Scored)
	}
	for _, c := range []struct {
		name      string
		got, want float64
	}{{"ABQ", r.report.ABQ.Value, 0.75}, {"PSAQ", r.report.PSAQ.Value, 0.875}, {"UASQ", r.report.UASQ.Value, 0.875},
		{"strict", r.strict.Value, 0.75}, {"concept A", r.report.Concepts[0].Rate.Value, 0.75}, {"easy", r.levels[0].Rate.Value, 0.75}} {
		if !near(c.got, c.want, 1e-12) {
			t.Errorf("%s = %v, want %v", c.name, c.got, c.want)
		}
	}
	_, _, lo, hi := stats.MeanCI([]float64{1, 0.5})
	if r.abqLo != lo || r.abqHi != hi {
		t.Errorf("ABQ interval [%v, %v], want [%v, %v] over 2 questions", r.abqLo, r.abqHi, lo, hi)
	}
}

func FuzzConcepts(f *testing.F) {
	f.Add("Summary Statistics, Feature Engineering")
	f.Add(" , ,")
	f.Fuzz(func(t *testing.T, s string) {
		cs := conceptsMeta(map[string]string{"concepts": s})
		if cs == nil {
			t.Fatal("nil with the key present")
		}
		for _, c := range cs {
			if c == "" || c != strings.TrimSpace(c) || strings.Contains(c, ",") {
				t.Fatalf("concept %q from %q", c, s)
			}
		}
	})
}
