package render

import (
	"math"
	"strings"
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

// TestCellsTypedAsTabulate: the terminal's cells of a LIME table are
// typed and formatted by the column rule tabulate's markdown uses: the
// most generic of a column's cells, null the least; a number column is
// right-aligned, a text one left.
func TestCellsTypedAsTabulate(t *testing.T) {
	tests := []struct {
		name    string
		cells   []CellValue
		numeric bool
		shown   []string
	}{
		{"ints and a null", []CellValue{IntCell(3), NullCell()}, true, []string{"3", ""}},
		{"an int among floats", []CellValue{IntCell(3), FloatCell(0.5)}, true, []string{"3", "0.5"}},
		{"a null among floats is nan", []CellValue{FloatCell(0.5), NullCell()}, true, []string{"0.5", "nan"}},
		{"strings that read as numbers", []CellValue{StrCell("1e3"), StrCell("2")}, true, []string{"1000", "2"}},
		{"text stays text", []CellValue{TextCell("0001"), IntCell(2)}, false, []string{"0001", "2"}},
		{"only nulls", []CellValue{NullCell()}, false, []string{""}},
	}
	for _, tt := range tests {
		f := DataFrame{Columns: []string{"x"}}
		for _, c := range tt.cells {
			f.Rows = append(f.Rows, []CellValue{c})
		}
		_, numeric, rows := f.Cells()
		if numeric[0] != tt.numeric {
			t.Errorf("%s: numeric %v, want %v", tt.name, numeric[0], tt.numeric)
		}
		for i, want := range tt.shown {
			if rows[i][0] != want {
				t.Errorf("%s: row %d shows %q, want %q", tt.name, i, rows[i][0], want)
			}
		}
		md := Tabulate(f)
		if right := strings.Contains(md, "-:|"); right != tt.numeric {
			t.Errorf("%s: tabulate right-aligns %v, want %v:\n%s", tt.name, right, tt.numeric, md)
		}
	}
}
