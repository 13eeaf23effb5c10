package score

import (
	"context"
	"io"
	"math"
	"testing"

	"github.com/evalmd/evalmd/agg"
)

// capture is the metric, keeping the questions agg hands it.
type capture struct {
	metric
	qs []agg.Question
}

func (c *capture) Tables(qs []agg.Question) []agg.Table {
	c.qs = qs
	return c.metric.Tables(qs)
}

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

// TestDSBench checks the DSBench figures against numbers worked out by hand
// on testdata/agg:
//
//	m1: comp-a 1 of 3 right (one errored, ungraded), comp-b 1 of 1;
//	    task-level 2/4 = 50%, competition-level (1/3 + 1)/2 = 66.67%.
//	m2: comp-a 3 of 3, comp-b 0 of 1;
//	    task-level 3/4 = 75%, competition-level (1 + 0)/2 = 50%.
//
// The plain sheet m1 also answered is not DSBench and must not count.
func TestDSBench(t *testing.T) {
	qs := load(t, "testdata/agg")
	got := rows(qs)
	want := []row{
		{model: "m1", questions: 4, correct: 2, task: 0.5, competitions: 2, competition: (1.0/3 + 1) / 2},
		{model: "m2", questions: 4, correct: 3, task: 0.75, competitions: 2, competition: 0.5},
	}
	if len(got) != len(want) {
		t.Fatalf("got %d rows, want %d: %+v", len(got), len(want), got)
	}
	for i := range want {
		g, w := got[i], want[i]
		if g.model != w.model || g.questions != w.questions || g.correct != w.correct ||
			g.competitions != w.competitions || !near(g.task, w.task, 1e-12) || !near(g.competition, w.competition, 1e-12) {
			t.Errorf("row %d: got %+v, want %+v", i, g, w)
		}
	}
	tbl := metric{}.Tables(qs)[0]
	if tbl.Rows[0][5] != "66.67%" || tbl.Rows[1][3] != "75.00%" {
		t.Errorf("formatted rows: %v", tbl.Rows)
	}
}
