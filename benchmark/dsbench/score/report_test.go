package score

import (
	"context"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"testing"

	"github.com/evalmd/evalmd/agg"
	"github.com/evalmd/evalmd/agg/render"
	"github.com/evalmd/evalmd/agg/stats"
	"github.com/evalmd/evalmd/internal/outfile"
	"github.com/evalmd/evalmd/result"
)

// capture is the metric, keeping the questions agg hands it.
type capture struct {
	metric
	qs []agg.Question
}

func (c *capture) Tables(qs []agg.Question) []render.Table {
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
		{model: "m1", questions: 4, answers: 4, correct: 2, task: 0.5, competitions: 2, competition: (1.0/3 + 1) / 2},
		{model: "m2", questions: 4, answers: 4, correct: 3, task: 0.75, competitions: 2, competition: 0.5},
	}
	if len(got) != len(want) {
		t.Fatalf("got %d rows, want %d: %+v", len(got), len(want), got)
	}
	for i := range want {
		g, w := got[i], want[i]
		if g.model != w.model || g.questions != w.questions || g.answers != w.answers || g.correct != w.correct ||
			g.competitions != w.competitions || !near(g.task, w.task, 1e-12) || !near(g.competition, w.competition, 1e-12) {
			t.Errorf("row %d: got %+v, want %+v", i, g, w)
		}
	}
	tbl := metric{}.Tables(qs)[0]
	if tbl.Rows[0][7] != "66.67%" || tbl.Rows[1][4] != "75.00%" {
		t.Errorf("formatted rows: %v", tbl.Rows)
	}
}

// TestDSBenchEpochs: with 4 epochs, a question's score is the share of its
// epochs right, task-level is the mean over the 4 questions (not the 16
// answers) and competition-level the mean over the 2 competitions, each
// interval over those units (stats.MeanCI).
func TestDSBenchEpochs(t *testing.T) {
	dir := t.TempDir()
	// comp-a: q1 right in 4 epochs of 4, q2 in 1; comp-b: q1 in 2, q2 in 0.
	right := map[string][2]int{"comp-a": {4, 1}, "comp-b": {2, 0}}
	for _, sheet := range []string{"comp-a", "comp-b"} {
		for e := 1; e <= 4; e++ {
			f := &result.File{Sheet: result.Sheet{Name: sheet, ModelName: "m", RunID: "r", Epoch: e, Epochs: 4,
				MetaData: map[string]string{"benchmark": Name}}}
			for i, name := range []string{"q1", "q2"} {
				g := e <= right[sheet][i]
				c := fmt.Sprint(g)
				f.Questions = append(f.Questions, result.Question{Name: name, Question: name, Completion: &c, ModelName: "m", Grade: &g})
			}
			path := filepath.Join(dir, result.EpochName(result.FileName("input-"+sheet+".md", "m", "r"), e, 4))
			if err := f.Write(path, outfile.Options{}); err != nil {
				t.Fatal(err)
			}
		}
	}
	got := rows(load(t, dir))
	if len(got) != 1 {
		t.Fatalf("rows %+v", got)
	}
	r := got[0]
	scores := []float64{1, 0.25, 0.5, 0}
	task, _, lo, hi := stats.MeanCI(scores)
	comp, _, clo, chi := stats.MeanCI([]float64{(1 + 0.25) / 2, (0.5 + 0) / 2})
	if r.questions != 4 || r.answers != 16 || r.correct != 7 || !near(r.task, task, 1e-12) || !near(r.task, 7.0/16, 1e-12) ||
		r.taskLo != lo || r.taskHi != hi || !near(r.competition, comp, 1e-12) || r.compLo != clo || r.compHi != chi {
		t.Errorf("got %+v, want 4 questions of 16 answers, task %v [%v, %v], competition %v [%v, %v]", r, task, lo, hi, comp, clo, chi)
	}
	// Over 4 questions, not 16 answers: wider than Wilson's on 7 of 16.
	if hi-lo < 0.5 {
		t.Errorf("task-level interval [%v, %v] is as narrow as one over answers", lo, hi)
	}
}
