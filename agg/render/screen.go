package render

import (
	"fmt"
	"strings"

	"github.com/evalmd/evalmd/internal/visible"
)

// This file lays tables out for a terminal (LIME's --terminal style):
// tablewriter's boxed renderer, header text as given (its auto-format would
// upper-case it), a cell's own newlines kept as lines. The markdown
// renderers (tabulate for LIME's tables, Table.Markdown for agg's own) stay
// what a file or a pipe gets.

// Screen renders the table for a terminal: its title, its note, and the
// rows in a box.
func (t *Table) Screen() (string, error) {
	header := make([]string, len(t.Columns))
	numeric := make([]bool, len(t.Columns))
	for i, c := range t.Columns {
		header[i], numeric[i] = c.Name, c.Numeric
	}
	return ScreenTable(t.Title, t.Note, header, numeric, t.Rows, t.More)
}

// Screen renders a LIME table for a terminal, its cells formatted as
// tabulate formats them (numbers as Python prints them, null as empty).
func (f DataFrame) Screen(title string) (string, error) {
	header, numeric, rows := f.Cells()
	return ScreenTable(title, "", header, numeric, rows, 0)
}

// Cells formats f's Cells as tabulate does, column by column; numeric says
// which columns tabulate types as numbers.
func (f DataFrame) Cells() (header []string, numeric []bool, rows [][]string) {
	n := len(f.Columns)
	types := make([]colType, n)
	numeric = make([]bool, n)
	for c := range n {
		types[c] = f.columnType(c)
		numeric[c] = types[c].numeric()
	}
	rows = make([][]string, len(f.Rows))
	for r, row := range f.Rows {
		rows[r] = make([]string, n)
		for c := range row {
			rows[r][c] = formatCell(row[c], types[c])
		}
	}
	return f.Columns, numeric, rows
}

// ScreenTable writes a titled boxed table.
func ScreenTable(title, note string, header []string, numeric []bool, rows [][]string, more int) (string, error) {
	var b strings.Builder
	// Text from output files is made visible (an escape sequence in a
	// name or a completion would drive the terminal); line ends stay,
	// the table draws them as lines.
	b.WriteString(visible.Lines(title) + "\n\n")
	if note != "" {
		b.WriteString(visible.Lines(note) + "\n\n")
	}
	if len(rows) == 0 {
		b.WriteString("(none)\n\n")
		return b.String(), nil
	}
	shown := make([]string, len(header))
	for i, h := range header {
		shown[i] = visible.Lines(h)
	}
	if err := writeTable(&b, title, shown, numeric, rows, func(_ int, s string) string { return visible.Lines(s) }); err != nil {
		return "", err
	}
	if more > 0 {
		fmt.Fprintf(&b, "(%d more rows not shown)\n", more)
	}
	b.WriteString("\n")
	return b.String(), nil
}
