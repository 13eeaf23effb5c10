package render

import (
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/evalmd/evalmd/internal/mdcell"
	"github.com/evalmd/evalmd/internal/py"
)

// This file renders LIME's three tables the way pandas DataFrame.to_markdown
// does: python-tabulate's "pipe" format with showindex=False. tablewriter's
// markdown renderer pads and aligns differently (no minimum padding of two
// past the header, no decimal alignment), and LIME's tables must be
// byte-identical to the reference, so these tables get their own renderer.
// The new tables use tablewriter (see render.go).

// CellValue is one cell of a LIME table before formatting. Exactly one of
// the kinds is set: a string (Str, with cellNull for pandas' None/NaN), an
// integer or a float.
type CellValue struct {
	Kind  cellKind
	Str   string
	Int   int64
	Float float64
}

// cellKind says which field of a cellValue holds the cell.
type cellKind uint8

// The kinds of cellValue.
const (
	cellString cellKind = iota // Str holds the cell
	cellInt                    // Int holds the cell
	cellFloat                  // Float holds the cell
	cellNull                   // no value
	cellText                   // Str holds the cell, text even where it reads as a number
)

// StrCell builds a string cellValue.
func StrCell(s string) CellValue { return CellValue{Kind: cellString, Str: s} }

// IntCell builds an integer cellValue.
func IntCell(i int64) CellValue { return CellValue{Kind: cellInt, Int: i} }

// FloatCell builds a float cellValue; NaN prints as pandas does, "nan".
func FloatCell(f float64) CellValue { return CellValue{Kind: cellFloat, Float: f} }

// TextCell builds a text cellValue: tabulate would read "0001" or "1e10"
// as numbers (LIME's tables do, and so must tabulate there); the report
// types keep run ids and model text as written.
func TextCell(s string) CellValue { return CellValue{Kind: cellText, Str: s} }

// NullCell builds a null cellValue (pandas' None in an object column).
func NullCell() CellValue { return CellValue{Kind: cellNull} }

// DataFrame is a pandas-like table: named columns of cells, rows in order.
type DataFrame struct {
	Columns []string
	Rows    [][]CellValue
}

// tabulate's column types, from least to most generic (its _more_generic).
type colType int

const (
	typeNone colType = iota
	typeInt
	typeFloat
	typeString
)

// pyInt and pyFloat accept what Python's int() and float() accept from a
// string (surrounding white space, underscores between digits), because
// tabulate's number parsing turns such strings into numbers.
var (
	pyInt   = regexp.MustCompile(`^\s*[-+]?(?:0(?:_?0)*|[1-9](?:_?[0-9])*)\s*$`)
	pyFloat = regexp.MustCompile(`(?i)^\s*[-+]?(?:(?:[0-9](?:_?[0-9])*)?\.?[0-9](?:_?[0-9])*(?:e[-+]?[0-9](?:_?[0-9])*)?|[0-9](?:_?[0-9])*\.(?:e[-+]?[0-9](?:_?[0-9])*)?|inf|-inf|nan|infinity)\s*$`)
)

// cellType is tabulate's _type for one cell.
func cellType(v CellValue) colType {
	switch v.Kind {
	case cellNull:
		return typeNone
	case cellInt:
		return typeInt
	case cellFloat:
		return typeFloat
	case cellText:
		return typeString
	}
	if pyInt.MatchString(v.Str) {
		return typeInt
	}
	if isPyNumber(v.Str) {
		return typeFloat
	}
	return typeString
}

// isPyNumber is tabulate's _isnumber on a string: float() accepts it, and an
// infinite or NaN value is spelled exactly inf, -inf or nan.
func isPyNumber(s string) bool {
	if !pyFloat.MatchString(s) {
		return false
	}
	t := strings.ToLower(strings.TrimSpace(s))
	switch strings.TrimLeft(t, "+-") {
	case "inf", "infinity", "nan":
		return t == "inf" || t == "-inf" || t == "nan"
	}
	return true
}

// pyFloatValue converts a string tabulate called a float.
func pyFloatValue(s string) float64 {
	t := strings.ReplaceAll(strings.TrimSpace(s), "_", "")
	f, err := strconv.ParseFloat(t, 64)
	if err != nil {
		// ParseFloat reports range errors with ±Inf or 0, as Python does.
		return f
	}
	return f
}

// afterPoint is tabulate's _afterpoint: digits after the decimal point (or
// after the exponent mark), -1 for integers and non-numbers.
func afterPoint(s string) int {
	if !isPyNumber(s) || pyInt.MatchString(s) {
		return -1
	}
	pos := strings.LastIndex(s, ".")
	if pos < 0 {
		pos = strings.LastIndex(strings.ToLower(s), "e")
	}
	if pos < 0 {
		return -1
	}
	return utf8.RuneCountInString(s) - pos - 1
}

func width(s string) int { return utf8.RuneCountInString(s) }

// Tabulate renders f as python-Tabulate's Tabulate(f, headers="keys",
// tablefmt="pipe", showindex=False), which DataFrame.to_markdown(index=False)
// calls. The result has no trailing newline, as to_markdown's.
func Tabulate(f DataFrame) string {
	ncol := len(f.Columns)
	cells := make([][]string, ncol)
	aligns := make([]string, ncol)
	widths := make([]int, ncol)
	for c := 0; c < ncol; c++ {
		cells[c], aligns[c], widths[c] = tabulateColumn(f, c)
	}

	var b strings.Builder
	// Header row: numbers' headers are right-aligned, strings' left.
	b.WriteString("|")
	for c, h := range f.Columns {
		pad := strings.Repeat(" ", widths[c]-width(h))
		if aligns[c] == "left" {
			b.WriteString(" " + h + pad + " |")
		} else {
			b.WriteString(" " + pad + h + " |")
		}
	}
	b.WriteString("\n|")
	for c := range f.Columns {
		w := widths[c] + 2
		if aligns[c] == "left" {
			b.WriteString(":" + strings.Repeat("-", w-1))
		} else {
			b.WriteString(strings.Repeat("-", w-1) + ":")
		}
		b.WriteString("|")
	}
	for r := range f.Rows {
		b.WriteString("\n|")
		for c := range f.Columns {
			b.WriteString(" " + cells[c][r] + " |")
		}
	}
	return b.String()
}

// tabulateColumn is column c of f as tabulate pads it: its cells,
// formatted by the column's type, aligned ("left", or "decimal" for
// numbers) and padded to its width, which it returns.
func tabulateColumn(f DataFrame, c int) ([]string, string, int) {
	const minPadding = 2
	t := f.columnType(c)
	col := make([]string, len(f.Rows))
	for r, row := range f.Rows {
		// Beyond tabulate: a '|' or a line break in a name would
		// end the cell or the row, and markup would render (mdcell);
		// an ordinary name is tabulate's, byte for byte.
		col[r] = mdcell.Literal(formatCell(row[c], t))
	}
	align := "left"
	if t.numeric() {
		align = "decimal"
	}
	switch align {
	case "decimal":
		maxDec := -1
		decs := make([]int, len(col))
		for i, s := range col {
			decs[i] = afterPoint(s)
			maxDec = max(maxDec, decs[i])
		}
		for i := range col {
			col[i] += strings.Repeat(" ", maxDec-decs[i])
		}
	default:
		// tabulate strips left-aligned strings (PRESERVE_WHITESPACE off).
		for i := range col {
			col[i] = py.Strip(col[i])
		}
	}
	w := width(f.Columns[c]) + minPadding
	for _, s := range col {
		w = max(w, width(s))
	}
	for i, s := range col {
		pad := strings.Repeat(" ", w-width(s))
		if align == "left" {
			col[i] = s + pad
		} else {
			col[i] = pad + s
		}
	}
	return col, align, w
}

// columnType is the type tabulate gives column c of f: the most generic
// of its cells' (its _column_type).
func (f DataFrame) columnType(c int) colType {
	t := typeNone
	for _, row := range f.Rows {
		t = max(t, cellType(row[c]))
	}
	return t
}

// numeric says whether tabulate aligns a column of type t as numbers.
func (t colType) numeric() bool { return t == typeInt || t == typeFloat }

// formatCell is tabulate's _format for one cell of a column of type t.
func formatCell(v CellValue, t colType) string {
	switch v.Kind {
	case cellNull:
		if t == typeFloat {
			// pandas hands tabulate NaN, not None, in a float column.
			return "nan"
		}
		return ""
	case cellInt:
		if t == typeFloat {
			return py.G(float64(v.Int))
		}
		return strconv.FormatInt(v.Int, 10)
	case cellFloat:
		return py.G(v.Float)
	case cellText:
		return v.Str
	}
	if t == typeFloat {
		return py.G(pyFloatValue(v.Str))
	}
	return v.Str
}
