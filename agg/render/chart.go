package render

import (
	"bytes"
	"image/color"
	"math"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"
)

// RenderSVG draws p as SVG. Fonts are named, not embedded (embedding adds
// half a megabyte per chart): gonum lays text out with Liberation Serif's
// metrics, which Times New Roman shares; row labels leave room for a wider
// substitute (see rowLabels).
func RenderSVG(p *plot.Plot, w, h vg.Length) []byte {
	c := vgsvg.NewWith(vgsvg.UseWH(w, h))
	// A small margin keeps the longest label off the edge.
	m := vg.Points(6)
	p.Draw(draw.Crop(draw.New(c), m, -m, m, -m))
	var b bytes.Buffer
	c.WriteTo(&b) // writing to memory does not fail
	return b.Bytes()
}

// LabelSlack is how much wider than Liberation Serif a viewer's substitute
// font may be: DejaVu Serif, the usual fallback on Linux, sets model names
// about 20% wider.
const LabelSlack = 1.3

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
	p.Add(&rowLabels{names: names, style: sty, room: w*LabelSlack + sty.Width("  ")})
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

// Intervals holds bar values and their asymmetric error bars for
// plotter.XErrorBars: X is the value, Y the bar's row.
type Intervals struct {
	XYs plotter.XYs
	Lo  []float64
	Hi  []float64
}

func (v Intervals) Len() int                        { return len(v.XYs) }
func (v Intervals) XY(i int) (float64, float64)     { return v.XYs[i].X, v.XYs[i].Y }
func (v Intervals) XError(i int) (float64, float64) { return v.Lo[i], v.Hi[i] }

// BarColor fills the leaderboard's bars: a neutral blue. (gonum's first
// default colour is a red, which reads as "bad", on every bar.)
var BarColor = color.RGBA{R: 0x4c, G: 0x78, B: 0xa8, A: 0xff}

// ValueLabels writes each value of a horizontal bar chart at its bar's end
// (row j at y = j, moved by offset, a bar's own Offset in a group), so a
// bar of 0, which draws nothing, still says its value.
func ValueLabels(vals []float64, offset vg.Length) (*plotter.Labels, error) {
	xys := make(plotter.XYs, len(vals))
	texts := make([]string, len(vals))
	for j, v := range vals {
		xys[j] = plotter.XY{X: v, Y: float64(j)}
		texts[j] = strconv.FormatFloat(v, 'f', 2, 64)
	}
	l, err := plotter.NewLabels(plotter.XYLabels{XYs: xys, Labels: texts})
	if err != nil {
		return nil, err
	}
	for i := range l.TextStyle {
		l.TextStyle[i].Font.Size = vg.Points(8)
		l.TextStyle[i].YAlign = draw.YCenter
	}
	l.Offset = vg.Point{X: vg.Points(3), Y: offset}
	return l, nil
}

// Whiskers draws the 95% intervals of a horizontal bar chart's bars: row
// j's from Lo[j] to Hi[j], capped at both ends, at y = j moved by Offset
// (a bar's own Offset in a group, which plotter.XErrorBars cannot
// follow). A row whose Lo is NaN (no interval) draws nothing.
type Whiskers struct {
	Lo, Hi    []float64
	Offset    vg.Length
	LineStyle draw.LineStyle
	Cap       vg.Length // the caps' length
}

// NewWhiskers returns Whiskers of the intervals lo..hi at offset, drawn
// in a thin dark line.
func NewWhiskers(lo, hi []float64, offset vg.Length) *Whiskers {
	return &Whiskers{Lo: lo, Hi: hi, Offset: offset, Cap: vg.Points(5),
		LineStyle: draw.LineStyle{Color: color.Gray{Y: 0x30}, Width: vg.Points(1)}}
}

// Plot draws the intervals.
func (w *Whiskers) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	for j := range w.Lo {
		if math.IsNaN(w.Lo[j]) || math.IsNaN(w.Hi[j]) {
			continue
		}
		y := trY(float64(j)) + w.Offset
		x0, x1 := trX(w.Lo[j]), trX(w.Hi[j])
		c.StrokeLine2(w.LineStyle, x0, y, x1, y)
		for _, x := range []vg.Length{x0, x1} {
			c.StrokeLine2(w.LineStyle, x, y-w.Cap/2, x, y+w.Cap/2)
		}
	}
}

// LegendAbove moves p's legend, once its entries are added, out of the
// data area into a band of its own between the title and the bars, at
// the right, where gonum draws it over the data (Legend.Top puts it in
// the data area's top corner, on the top bars).
func LegendAbove(p *plot.Plot) {
	gap := vg.Points(4)
	h := p.Legend.Rectangle(draw.Canvas{}).Size().Y
	descent := p.Legend.TextStyle.FontExtents().Descent
	p.Legend.Top = true
	// The legend's top entry is drawn an entry's height and a descent
	// below the data area's top, YOffs above that.
	p.Legend.YOffs = h + descent + gap
	p.Title.Padding += h + descent + 2*gap
}
