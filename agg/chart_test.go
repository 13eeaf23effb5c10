package agg

import (
	"image/color"
	"math"
	"regexp"
	"strconv"
	"testing"

	"github.com/evalmd/evalmd/agg/render"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/recorder"
)

// Row names start inside the chart and leave room, before the bars, for a
// font labelSlack times wider than the one gonum measures with; the
// longest name sets the margin.
func TestLeaderboardLabelsFit(t *testing.T) {
	ts := []ModelTotal{
		{Model: "gpt-4", Graded: 59, Units: 59, Accuracy: 0.56, Score: 0.56, Lo: 0.43, Hi: 0.68},
		{Model: "gpt-3.5-turbo", Graded: 116, Units: 116, Accuracy: 0.31, Score: 0.31, Lo: 0.23, Hi: 0.4},
		{Model: "openai-api/some-server/a-very-long-fine-tuned-model-name-2026", Graded: 1000, Units: 1000, Accuracy: 0.2, Score: 0.2, Lo: 0.18, Hi: 0.23},
	}
	p, h, err := leaderboardPlot(ts)
	if err != nil {
		t.Fatal(err)
	}
	var rec recorder.Canvas
	p.Draw(draw.NewCanvas(&rec, 6*vg.Inch, h))

	var cur color.Color
	barLeft := vg.Length(math.Inf(1))
	labels := map[string]*recorder.FillString{}
	for _, a := range rec.Actions {
		switch a := a.(type) {
		case *recorder.SetColor:
			cur = a.Color
		case *recorder.Fill:
			if cur == render.BarColor {
				for _, c := range a.Path {
					if c.Type != vg.CloseComp {
						barLeft = min(barLeft, c.Pos.X)
					}
				}
			}
		case *recorder.FillString:
			labels[a.String] = a
		}
	}
	if math.IsInf(float64(barLeft), 1) {
		t.Fatal("no bars drawn")
	}
	sty := p.Y.Tick.Label
	for _, want := range []string{"gpt-4 (n=59)", "gpt-3.5-turbo (n=116)", ts[2].Model + " (n=1000)"} {
		l := labels[want]
		if l == nil {
			t.Errorf("label %q not drawn", want)
			continue
		}
		if l.Point.X < 0 {
			t.Errorf("label %q starts at x=%v, outside the chart", want, l.Point.X)
		}
		if end := l.Point.X + render.LabelSlack*sty.Width(want); end > barLeft {
			t.Errorf("label %q, %v wider, would reach x=%v, past the bars at %v", want, render.LabelSlack, end, barLeft)
		}
	}
}

// The leaderboard's bars are a neutral colour, not a red that reads as
// "bad" on the best model: no fill of the chart is a red.
func TestLeaderboardBarsNotRed(t *testing.T) {
	p, h, err := leaderboardPlot([]ModelTotal{{Model: "best", Graded: 10, Accuracy: 0.9, Lo: 0.6, Hi: 0.98},
		{Model: "worst", Graded: 10, Accuracy: 0.1, Lo: 0.02, Hi: 0.4}})
	if err != nil {
		t.Fatal(err)
	}
	svg := render.RenderSVG(p, 6*vg.Inch, h)
	fills := regexp.MustCompile(`fill:#([0-9A-Fa-f]{2})([0-9A-Fa-f]{2})([0-9A-Fa-f]{2})`).FindAllSubmatch(svg, -1)
	if len(fills) == 0 {
		t.Fatal("no fills in the chart")
	}
	for _, f := range fills {
		var rgb [3]uint64
		for i := range rgb {
			rgb[i], _ = strconv.ParseUint(string(f[i+1]), 16, 8)
		}
		if rgb[0] > rgb[1]+60 && rgb[0] > rgb[2]+60 {
			t.Errorf("a red fill %s in the leaderboard chart", f[0])
		}
	}
}
