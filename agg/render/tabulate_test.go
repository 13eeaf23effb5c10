package render

import (
	"math"
	"testing"
)

func TestTabulate(t *testing.T) {
	tests := []struct {
		name string
		f    DataFrame
		want string
	}{{
		name: "decimal alignment and the two-space header minimum",
		f: DataFrame{Columns: []string{"m", "pct"}, Rows: [][]CellValue{
			{StrCell("a"), FloatCell(1)}, {StrCell("bb"), FloatCell(0.33)}, {StrCell("c"), FloatCell(0.4)}}},
		want: "" +
			"| m   |   pct |\n" +
			"|:----|------:|\n" +
			"| a   |  1    |\n" +
			"| bb  |  0.33 |\n" +
			"| c   |  0.4  |",
	}, {
		name: "strings that read as numbers make a number column",
		f:    DataFrame{Columns: []string{"name"}, Rows: [][]CellValue{{StrCell("10")}, {StrCell("2")}}},
		want: "" +
			"|   name |\n" +
			"|-------:|\n" +
			"|     10 |\n" +
			"|      2 |",
	}, {
		name: "float strings are reformatted with %g",
		f:    DataFrame{Columns: []string{"x"}, Rows: [][]CellValue{{StrCell("1.50")}, {StrCell("2")}}},
		want: "" +
			"|   x |\n" +
			"|----:|\n" +
			"| 1.5 |\n" +
			"| 2   |",
	}, {
		name: "left-aligned strings are stripped; NaN prints nan",
		f: DataFrame{Columns: []string{"s", "v"}, Rows: [][]CellValue{
			{StrCell("  pad "), FloatCell(math.NaN())}, {StrCell("x"), FloatCell(0.5)}}},
		want: "" +
			"| s   |     v |\n" +
			"|:----|------:|\n" +
			"| pad | nan   |\n" +
			"| x   |   0.5 |",
	}, {
		name: "a null string cell is empty",
		f:    DataFrame{Columns: []string{"name", "n"}, Rows: [][]CellValue{{NullCell(), IntCell(3)}, {StrCell("q"), IntCell(12)}}},
		want: "" +
			"| name   |   n |\n" +
			"|:-------|----:|\n" +
			"|        |   3 |\n" +
			"| q      |  12 |",
	}}
	for _, tt := range tests {
		if got := Tabulate(tt.f); got != tt.want {
			t.Errorf("%s:\ngot\n%s\nwant\n%s", tt.name, got, tt.want)
		}
	}
}
