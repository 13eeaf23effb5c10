package agg

import (
	"math"
	"testing"
)

func TestTabulate(t *testing.T) {
	tests := []struct {
		name string
		f    dataFrame
		want string
	}{{
		name: "decimal alignment and the two-space header minimum",
		f: dataFrame{Columns: []string{"m", "pct"}, Rows: [][]cellValue{
			{strCell("a"), floatCell(1)}, {strCell("bb"), floatCell(0.33)}, {strCell("c"), floatCell(0.4)}}},
		want: "" +
			"| m   |   pct |\n" +
			"|:----|------:|\n" +
			"| a   |  1    |\n" +
			"| bb  |  0.33 |\n" +
			"| c   |  0.4  |",
	}, {
		name: "strings that read as numbers make a number column",
		f:    dataFrame{Columns: []string{"name"}, Rows: [][]cellValue{{strCell("10")}, {strCell("2")}}},
		want: "" +
			"|   name |\n" +
			"|-------:|\n" +
			"|     10 |\n" +
			"|      2 |",
	}, {
		name: "float strings are reformatted with %g",
		f:    dataFrame{Columns: []string{"x"}, Rows: [][]cellValue{{strCell("1.50")}, {strCell("2")}}},
		want: "" +
			"|   x |\n" +
			"|----:|\n" +
			"| 1.5 |\n" +
			"| 2   |",
	}, {
		name: "left-aligned strings are stripped; NaN prints nan",
		f: dataFrame{Columns: []string{"s", "v"}, Rows: [][]cellValue{
			{strCell("  pad "), floatCell(math.NaN())}, {strCell("x"), floatCell(0.5)}}},
		want: "" +
			"| s   |     v |\n" +
			"|:----|------:|\n" +
			"| pad | nan   |\n" +
			"| x   |   0.5 |",
	}, {
		name: "a null string cell is empty",
		f:    dataFrame{Columns: []string{"name", "n"}, Rows: [][]cellValue{{nullCell(), intCell(3)}, {strCell("q"), intCell(12)}}},
		want: "" +
			"| name   |   n |\n" +
			"|:-------|----:|\n" +
			"|        |   3 |\n" +
			"| q      |  12 |",
	}}
	for _, tt := range tests {
		if got := tabulate(tt.f); got != tt.want {
			t.Errorf("%s:\ngot\n%s\nwant\n%s", tt.name, got, tt.want)
		}
	}
}

func TestPdRound2(t *testing.T) {
	tests := []struct{ in, want float64 }{
		{0.375, 0.38}, // 37.5 rounds half to even: 38
		{0.125, 0.12}, // 12.5 -> 12
		{2.0 / 15, 0.13},
		{1.0 / 3, 0.33},
		{0.105, 0.1}, // 0.105*100 = 10.499999999999998 in binary
	}
	for _, tt := range tests {
		if got := pdRound2(tt.in); got != tt.want {
			t.Errorf("pdRound2(%v) = %v, want %v", tt.in, got, tt.want)
		}
	}
}
