package score

import (
	"math"
	"path/filepath"
	"testing"

	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/recorder"

	"github.com/evalmd/evalmd/agg/render"
	"github.com/evalmd/evalmd/agg/stats"
	"github.com/evalmd/evalmd/internal/outfile"
	"github.com/evalmd/evalmd/internal/testkit/golden"
	"github.com/evalmd/evalmd/result"
)

// conceptFolder writes two models' runs of four questions: m1 has d1 (A,
// B) and d3 (B) right, d2 (A) and d4 (C) wrong; m2 has every question
// wrong, so its bars are at 0.
func conceptFolder(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	concepts := map[string]string{"d1": "A, B", "d2": "A", "d3": "B", "d4": "C"}
	for _, m := range []string{"m1", "m2"} {
		f := &result.File{Sheet: result.Sheet{Name: "da", ModelName: m, RunID: "r", MetaData: map[string]string{"benchmark": Name}}}
		for _, name := range []string{"d1", "d2", "d3", "d4"} {
			right := m == "m1" && (name == "d1" || name == "d3")
			c := "@a[1]"
			f.Questions = append(f.Questions, result.Question{Name: name, Question: name, Completion: &c, ModelName: m,
				MetaData:   map[string]string{"benchmark": Name, "concepts": concepts[name], "level": "easy"},
				SubAnswers: []result.SubAnswer{{Name: "a", Correct: right}}})
		}
		if err := f.Write(filepath.Join(dir, result.FileName("input-da.md", m, "r")), outfile.Options{}); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// The per-concept chart draws each bar's 95% interval over the
// concept's questions (stats.MeanCI of their shares, as ABQ's interval),
// writes every value, 0 too, and puts its legend above the bars, where
// it hides none.
func TestConceptChart(t *testing.T) {
	plots, err := metric{}.Charts(load(t, conceptFolder(t)))
	if err != nil || len(plots) != 1 {
		t.Fatalf("%d charts, %v", len(plots), err)
	}
	pl := plots[0]
	golden.Check(t, "testdata/concepts.svg", render.RenderSVG(pl.Plot, pl.Width, pl.Height))

	rec := &recorder.Canvas{}
	c := draw.Canvas{Canvas: rec, Rectangle: vg.Rectangle{Max: vg.Point{X: pl.Width, Y: pl.Height}}}
	pl.Plot.Draw(c)
	data := pl.Plot.DataCanvas(c)
	trX, _ := pl.Plot.Transforms(&data)
	shares := map[string]map[string][]float64{
		"m1": {"A": {1, 0}, "B": {1, 1}, "C": {0}},
		"m2": {"A": {0, 0}, "B": {0, 0}, "C": {0}},
	}
	for m, byConcept := range shares {
		for concept, s := range byConcept {
			_, _, lo, hi := stats.MeanCI(s)
			if !strokedFrom(rec, trX(lo), trX(hi)) {
				t.Errorf("%s, concept %s: no interval drawn from %.4f to %.4f", m, concept, lo, hi)
			}
		}
	}
	texts := map[string]int{}
	for _, a := range rec.Actions {
		s, ok := a.(*recorder.FillString)
		if !ok {
			continue
		}
		texts[s.String]++
		if (s.String == "m1" || s.String == "m2") && s.Point.Y < data.Max.Y {
			t.Errorf("the legend's %s is written at y %.1f, in the bars' area (its top at %.1f)", s.String, s.Point.Y, data.Max.Y)
		}
	}
	if texts["m1"] != 1 || texts["m2"] != 1 || texts["0.00"] < 3 || texts["1.00"] != 1 || texts["0.50"] != 1 {
		t.Errorf("texts written: %v; want the legend's m1 and m2, and every value (three 0.00 of m2, 0.50, 1.00, 0.00 of m1)", texts)
	}
}

// strokedFrom says whether rec strokes a horizontal line from x0 to x1.
func strokedFrom(rec *recorder.Canvas, x0, x1 vg.Length) bool {
	near := func(a, b vg.Length) bool { return math.Abs(float64(a-b)) < 0.01 }
	for _, a := range rec.Actions {
		s, ok := a.(*recorder.Stroke)
		if !ok || len(s.Path) != 2 {
			continue
		}
		p, q := s.Path[0].Pos, s.Path[1].Pos
		if near(p.X, x0) && near(q.X, x1) && near(p.Y, q.Y) {
			return true
		}
	}
	return false
}
