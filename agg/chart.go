package agg

import (
	"fmt"
	"math"
	"path/filepath"
	"strconv"

	"github.com/evalmd/evalmd/agg/render"
	"github.com/evalmd/evalmd/internal/outfile"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
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
			SVG: render.RenderSVG(p, 6*vg.Inch, h)})
	}
	plots, err := d.metricPlots()
	if err != nil {
		return nil, err
	}
	for _, p := range plots {
		out = append(out, Chart{Title: p.Title, File: base + "-" + p.Name + ".svg",
			SVG: render.RenderSVG(p.Plot, p.Width, p.Height)})
	}
	return out, nil
}

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
	iv := render.Intervals{XYs: make(plotter.XYs, n), Lo: make([]float64, n), Hi: make([]float64, n)}
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
		iv.XYs[j] = plotter.XY{X: acc, Y: float64(j)}
		if t.Units > 0 {
			iv.Lo[j], iv.Hi[j] = acc-t.Lo, t.Hi-acc
		}
	}
	bars, err := plotter.NewBarChart(vals, vg.Points(14))
	if err != nil {
		return nil, 0, fmt.Errorf("agg: leaderboard chart: %w", err)
	}
	bars.Horizontal = true
	bars.Color = render.BarColor
	bars.LineStyle.Width = 0
	errs, err := plotter.NewXErrorBars(iv)
	if err != nil {
		return nil, 0, fmt.Errorf("agg: leaderboard chart: %w", err)
	}
	errs.LineStyle.Width = vg.Points(1.2)
	// Each value is written past its interval's end, where no bar hides it.
	ends := make([]float64, n)
	for j := range ends {
		ends[j] = vals[j] + iv.Hi[j]
	}
	labels, err := render.ValueLabels(ends, 0)
	if err != nil {
		return nil, 0, fmt.Errorf("agg: leaderboard chart: %w", err)
	}
	for j := range labels.Labels {
		labels.Labels[j] = strconv.FormatFloat(vals[j], 'f', 2, 64)
	}
	p.Add(plotter.NewGrid(), bars, errs, labels)
	render.NominalY(p, names)
	h := vg.Length(n)*vg.Points(22) + vg.Inch
	return p, h, nil
}
