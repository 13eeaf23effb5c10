package agg

import (
	"bytes"
	"fmt"
	"image/color"
	"math"
	"path/filepath"

	"github.com/evalmd/evalmd/internal/outfile"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"
)

// Chart is a chart drawn from the data.
type Chart struct {
	Title string
	File  string // file name, relative to the report
	SVG   []byte // the chart itself
}

// WriteCharts writes the charts the data calls for (see Charts) into dir.
// Every chart's file is checked before any is written.
func (d *Data) WriteCharts(dir, base string, opt outfile.Options) ([]Chart, error) {
	charts, err := d.Charts(base)
	if err != nil {
		return nil, err
	}
	for _, c := range charts {
		if err := outfile.Check(filepath.Join(dir, c.File), opt); err != nil {
			return nil, fmt.Errorf("agg: chart %w", err)
		}
	}
	for _, c := range charts {
		if err := outfile.Write(filepath.Join(dir, c.File), c.SVG, opt); err != nil {
			return nil, fmt.Errorf("agg: chart %w", err)
		}
	}
	return charts, nil
}

// Charts draws the charts the data calls for as SVG, their file names
// starting with base (the report's name without extension): a leaderboard
// of per-model accuracy with Wilson 95% intervals, then the charts of the
// metrics that draw any (ChartMetric).
func (d *Data) Charts(base string) ([]Chart, error) {
	var out []Chart
	if ts := d.Totals(); len(ts) > 0 {
		p, h, err := leaderboardPlot(ts)
		if err != nil {
			return nil, err
		}
		out = append(out, Chart{Title: "Leaderboard: accuracy with 95% interval", File: base + "-leaderboard.svg",
			SVG: renderSVG(p, 6*vg.Inch, h)})
	}
	plots, err := d.metricPlots()
	if err != nil {
		return nil, err
	}
	for _, p := range plots {
		out = append(out, Chart{Title: p.Title, File: base + "-" + p.Name + ".svg",
			SVG: renderSVG(p.Plot, p.Width, p.Height)})
	}
	return out, nil
}

// renderSVG draws p as SVG. Fonts are named, not embedded (embedding adds
// half a megabyte per chart): gonum lays text out with Liberation Serif's
// metrics, which Times New Roman shares; row labels leave room for a wider
// substitute (see rowLabels).
func renderSVG(p *plot.Plot, w, h vg.Length) []byte {
	c := vgsvg.NewWith(vgsvg.UseWH(w, h))
	// A small margin keeps the longest label off the edge.
	m := vg.Points(6)
	p.Draw(draw.Crop(draw.New(c), m, -m, m, -m))
	var b bytes.Buffer
	c.WriteTo(&b) // writing to memory does not fail
	return b.Bytes()
}

// labelSlack is how much wider than Liberation Serif a viewer's substitute
// font may be: DejaVu Serif, the usual fallback on Linux, sets model names
// about 20% wider.
const labelSlack = 1.3

// rowLabels draws a horizontal bar chart's row names left-aligned at the
// chart's left edge, in a margin sized to the longest name with
// labelSlack to spare. gonum's own nominal axis right-aligns names against
// the bars at positions computed with Liberation Serif's metrics, so a
// viewer without that font draws long names into the bars, which hide
// their ends ("gpt-3.5-turbo (n=1").
type rowLabels struct {
	names []string
	style text.Style
	room  vg.Length // from the labels' left edge to the bars
}

// NominalY names the rows 0..n-1 of p's Y axis (a horizontal bar chart's
// bars) with rowLabels instead of gonum's tick labels.
func NominalY(p *plot.Plot, names []string) {
	sty := p.Y.Tick.Label
	sty.XAlign = draw.XLeft
	sty.YAlign = draw.YCenter
	var w vg.Length
	for _, n := range names {
		w = max(w, sty.Width(n))
	}
	p.NominalY(make([]string, len(names))...) // rows at 0..n-1, no tick labels
	p.Add(&rowLabels{names: names, style: sty, room: w*labelSlack + sty.Width("  ")})
}

// Plot draws the names in the margin left of the data area.
func (l *rowLabels) Plot(c draw.Canvas, p *plot.Plot) {
	for i, n := range l.names {
		y := c.Y(p.Y.Norm(float64(i)))
		c.FillText(l.style, vg.Point{X: c.X(p.X.Norm(p.X.Min)) - l.room, Y: y}, n)
	}
}

// GlyphBoxes reserves the margin, so the plot moves its data area right.
func (l *rowLabels) GlyphBoxes(p *plot.Plot) []plot.GlyphBox {
	out := make([]plot.GlyphBox, len(l.names))
	for i := range l.names {
		h := l.style.Height(l.names[i])
		out[i] = plot.GlyphBox{X: 0, Y: p.Y.Norm(float64(i)),
			Rectangle: vg.Rectangle{Min: vg.Point{X: -l.room, Y: -h / 2}, Max: vg.Point{X: 0, Y: h / 2}}}
	}
	return out
}

// intervals holds bar values and their asymmetric error bars for
// plotter.XErrorBars: X is the value, Y the bar's row.
type intervals struct {
	xys plotter.XYs
	lo  []float64
	hi  []float64
}

func (v intervals) Len() int                        { return len(v.xys) }
func (v intervals) XY(i int) (float64, float64)     { return v.xys[i].X, v.xys[i].Y }
func (v intervals) XError(i int) (float64, float64) { return v.lo[i], v.hi[i] }

// barColor fills the leaderboard's bars: a neutral blue. (gonum's first
// default colour is a red, which reads as "bad", on every bar.)
var barColor = color.RGBA{R: 0x4c, G: 0x78, B: 0xa8, A: 0xff}

// leaderboardPlot draws per-model accuracy as horizontal bars, best at the
// top, with their intervals as error bars (Wilson's, unless a question
// was answered more than once: see ModelTotal).
func leaderboardPlot(ts []ModelTotal) (*plot.Plot, vg.Length, error) {
	p := plot.New()
	p.Title.Text = "Accuracy per model (95% Wilson interval)"
	for _, t := range ts {
		if t.Repeated > 0 {
			p.Title.Text = "Accuracy per model (95% interval over questions)"
		}
	}
	p.Title.Padding = vg.Points(8)
	p.X.Label.Text = "accuracy (correct / graded)"
	p.X.Min, p.X.Max = 0, 1
	n := len(ts)
	vals := make(plotter.Values, n)
	iv := intervals{xys: make(plotter.XYs, n), lo: make([]float64, n), hi: make([]float64, n)}
	names := make([]string, n)
	for i, t := range ts {
		// Row 0 is drawn at the bottom, so the best model goes last.
		j := n - 1 - i
		acc := t.Score
		if math.IsNaN(acc) {
			acc = 0
		}
		vals[j] = acc
		names[j] = fmt.Sprintf("%s (n=%d)", t.Model, t.Units)
		iv.xys[j] = plotter.XY{X: acc, Y: float64(j)}
		if t.Units > 0 {
			iv.lo[j], iv.hi[j] = acc-t.Lo, t.Hi-acc
		}
	}
	bars, err := plotter.NewBarChart(vals, vg.Points(14))
	if err != nil {
		return nil, 0, fmt.Errorf("agg: leaderboard chart: %w", err)
	}
	bars.Horizontal = true
	bars.Color = barColor
	bars.LineStyle.Width = 0
	errs, err := plotter.NewXErrorBars(iv)
	if err != nil {
		return nil, 0, fmt.Errorf("agg: leaderboard chart: %w", err)
	}
	errs.LineStyle.Width = vg.Points(1.2)
	p.Add(plotter.NewGrid(), bars, errs)
	NominalY(p, names)
	h := vg.Length(n)*vg.Points(22) + vg.Inch
	return p, h, nil
}
