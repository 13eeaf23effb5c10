// Package render lays agg's tables out as text and its charts as SVG:
// a Table (each Column built by Cols) as markdown (tablewriter's) or for
// a terminal (Screen, ScreenTable, with control characters made
// visible); a DataFrame of CellValue cells as pandas' to_markdown prints
// it (Tabulate, python-tabulate's pipe format, byte for byte as LIME's
// tables); and a gonum plot as SVG (RenderSVG), a bar chart's rows named
// by NominalY with their Intervals, in BarColor, each value written
// (ValueLabels), grouped bars' intervals drawn (Whiskers, NewWhiskers)
// and a legend set above the bars (LegendAbove); the columns of a
// leaderboard's grading (GradingColumn, PeopleColumn) and the tables of
// graders against people (AgreementTables). It knows nothing of output
// files: every table comes to it as text cells and counts.
package render

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strings"

	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/renderer"
	"github.com/olekukonko/tablewriter/tw"

	"github.com/evalmd/evalmd/internal/mdcell"
)

// Table is one of agg's own sections, already reduced to text cells: a
// heading, an optional note under it, and rows. Building a Table (from the
// data) is kept apart from rendering it (markdown text).
type Table struct {
	Title   string
	Note    string // a line under the heading saying how the numbers are made
	Columns []Column
	Rows    [][]string
	// More is how many rows were left out of a long table.
	More int
}

// Column is a table column; numbers are right-aligned. Its name and
// cells are text, shown as they are (mdcell.Literal), unless Markdown.
type Column struct {
	Name    string
	Numeric bool
	// Markdown says the column's cells are markdown agg wrote ("**regression**"),
	// holding no text from a file, and are written as they are.
	Markdown bool
}

// Cols builds columns from names; a leading '#' marks a numeric column.
func Cols(names ...string) []Column {
	out := make([]Column, len(names))
	for i, n := range names {
		if strings.HasPrefix(n, "#") {
			out[i] = Column{Name: n[1:], Numeric: true}
		} else {
			out[i] = Column{Name: n}
		}
	}
	return out
}

// Markdown renders the table with tablewriter's markdown renderer: header
// text as given (its auto-format would upper-case it), no wrapping.
func (t *Table) Markdown() (string, error) {
	var b strings.Builder
	b.WriteString("### " + t.Title + "\n\n")
	if t.Note != "" {
		b.WriteString(t.Note + "\n\n")
	}
	if len(t.Rows) == 0 {
		b.WriteString("(none)\n\n")
		return b.String(), nil
	}
	header := make([]string, len(t.Columns))
	numeric := make([]bool, len(t.Columns))
	for i, c := range t.Columns {
		header[i], numeric[i] = mdcell.Literal(c.Name), c.Numeric
	}
	cell := func(col int, s string) string {
		if col < len(t.Columns) && t.Columns[col].Markdown {
			return mdcell.Escape(s)
		}
		return mdcell.Literal(s)
	}
	if err := writeTable(&b, t.Title, header, numeric, t.Rows, cell, tablewriter.WithRenderer(renderer.NewMarkdown())); err != nil {
		return "", err
	}
	if t.More > 0 {
		fmt.Fprintf(&b, "\n(%d more rows not shown)\n", t.More)
	}
	b.WriteString("\n")
	return b.String(), nil
}

// writeTable writes header and rows (each cell as cell makes it of the
// text of column col) to w through tablewriter, in the one configuration
// agg's markdown and terminal tables share: header text as given (its
// auto-format would upper-case it), no wrapping, numeric columns right
// and the others left. opts choose the renderer (tablewriter's boxed one
// when none). The rows given are not changed.
func writeTable(w io.Writer, title string, header []string, numeric []bool, rows [][]string, cell func(col int, s string) string, opts ...tablewriter.Option) error {
	aligns := make([]tw.Align, len(header))
	for i := range aligns {
		aligns[i] = tw.AlignLeft
		if i < len(numeric) && numeric[i] {
			aligns[i] = tw.AlignRight
		}
	}
	cfg := tablewriter.Config{
		Header: tw.CellConfig{
			Formatting: tw.CellFormatting{AutoFormat: tw.Off, AutoWrap: tw.WrapNone},
			Alignment:  tw.CellAlignment{PerColumn: aligns},
		},
		Row: tw.CellConfig{
			Formatting: tw.CellFormatting{AutoWrap: tw.WrapNone},
			Alignment:  tw.CellAlignment{PerColumn: aligns},
		},
	}
	tbl := tablewriter.NewTable(w, append(opts, tablewriter.WithConfig(cfg))...)
	tbl.Header(header)
	for _, r := range rows {
		cells := make([]string, len(r))
		for i, c := range r {
			cells[i] = cell(i, c)
		}
		if err := tbl.Append(cells); err != nil {
			return fmt.Errorf("agg: table %q: %w", title, err)
		}
	}
	if err := tbl.Render(); err != nil {
		return fmt.Errorf("agg: table %q: %w", title, err)
	}
	return nil
}

// GradingColumn adds to t, whose row i counts answers[i] answers of which
// liberal[i] were graded liberally (the grading setting), a column saying
// each row's grading mode, when some answer was graded liberally: strict,
// liberal, or both and how many of its answers were liberal; its note
// says what the column means. Where no answer was, t is left as it is.
func GradingColumn(t *Table, liberal, answers []int) {
	countColumn(t, liberal, "grading", "grading: the mode the answers were graded in (liberal: LIME's -l, the grading setting); a row of both modes counts answers of both.",
		func(i int) string {
			switch {
			case liberal[i] == answers[i]:
				return "liberal"
			case liberal[i] > 0:
				return fmt.Sprintf("both: %d of %d liberal", liberal[i], answers[i])
			}
			return "strict"
		})
}

// PeopleColumn adds to t, whose row i counts graded[i] grades of which
// people[i] are a person's verdict (an output question's review), a
// column saying how many, when some row has one; its note says what
// the column means. Where none has, t is left as it is.
func PeopleColumn(t *Table, people, graded []int) {
	countColumn(t, people, "people's grades", "people's grades: how many of the grades are a person's verdict (review), counted in place of the grader's.",
		func(i int) string { return fmt.Sprintf("%d of %d", people[i], graded[i]) })
}

// countColumn adds the column name to t, its cells cell(i) and note after
// t's, when some of counts is not 0; else t is left as it is.
func countColumn(t *Table, counts []int, name, note string, cell func(i int) string) {
	if !slices.ContainsFunc(counts, func(n int) bool { return n > 0 }) {
		return
	}
	if t.Note != "" {
		note = t.Note + " " + note
	}
	t.Note = note
	t.Columns = append(t.Columns, Cols(name)...)
	for i := range t.Rows {
		t.Rows[i] = append(t.Rows[i], cell(i))
	}
}

// Frac is a fraction with three decimals, "-" for NaN (nothing to divide).
func Frac(x float64) string {
	if math.IsNaN(x) {
		return "-"
	}
	return fmt.Sprintf("%.3f", x)
}

// PValue is a p-value with four decimals, "<0.0001" below them.
func PValue(p float64) string {
	if p < 0.0001 {
		return "<0.0001"
	}
	return fmt.Sprintf("%.4f", p)
}
