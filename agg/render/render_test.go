package render

import (
	"strings"
	"testing"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
)

func TestTableMarkdown(t *testing.T) {
	tests := []struct {
		name string
		t    Table
		want string
	}{{
		name: "pipes escaped, header kept as written, numbers right",
		t: Table{Title: "T", Note: "note", Columns: Cols("model", "#n"),
			Rows: [][]string{{"a|b", "1"}, {"gpt-4o", "10"}}},
		want: "### T\n\nnote\n\n" +
			"| model  |  n |\n" +
			"|:-------|---:|\n" +
			"| a\\|b   |  1 |\n" +
			"| gpt-4o | 10 |\n\n",
	}, {
		name: "empty table",
		t:    Table{Title: "E", Columns: Cols("x")},
		want: "### E\n\n(none)\n\n",
	}, {
		name: "rows left out are counted",
		t:    Table{Title: "M", Columns: Cols("x"), Rows: [][]string{{"line\nbreak"}}, More: 3},
		want: "### M\n\n| x             |\n|:--------------|\n| line<br>break |\n\n(3 more rows not shown)\n\n",
	}}
	for _, tt := range tests {
		got, err := tt.t.Markdown()
		if err != nil {
			t.Fatal(err)
		}
		if got != tt.want {
			t.Errorf("%s:\ngot  %q\nwant %q", tt.name, got, tt.want)
		}
	}
}

// A bar of 0 draws nothing: its value is still written at its end.
func TestValueLabels(t *testing.T) {
	p := plot.New()
	l, err := ValueLabels([]float64{0, 0.5}, vg.Points(2))
	if err != nil {
		t.Fatal(err)
	}
	p.Add(l)
	svg := string(RenderSVG(p, 3*vg.Inch, 2*vg.Inch))
	for _, want := range []string{">0.00<", ">0.50<"} {
		if !strings.Contains(svg, want) {
			t.Errorf("the chart does not write %s", want)
		}
	}
}

// TestOneTableLayout: the markdown and the terminal tables are laid out
// alike (header as written, numbers right, nothing wrapped), each with its
// own frame, and neither changes the rows it was given: a table shown on
// a terminal and then written as markdown writes what it would have.
func TestOneTableLayout(t *testing.T) {
	rows := [][]string{{"a\x1b[2Jb", "7"}, {"a long model name, not wrapped at all", "10"}}
	tbl := Table{Title: "T", Columns: Cols("Model name", "#n"), Rows: rows}
	before, err := tbl.Markdown()
	if err != nil {
		t.Fatal(err)
	}
	screen, err := tbl.Screen()
	if err != nil {
		t.Fatal(err)
	}
	md, err := tbl.Markdown()
	if err != nil {
		t.Fatal(err)
	}
	if rows[0][0] != "a\x1b[2Jb" || md != before {
		t.Errorf("Screen changed the rows: %q; markdown\n%s\nwas\n%s", rows[0][0], md, before)
	}
	for _, tc := range []struct {
		name, got string
		want      []string
	}{
		{"screen", screen, []string{"│ Model name ", "│ a long model name, not wrapped at all │ 10 │", "│  7 │", `a\x1b[2Jb`}},
		{"markdown", md, []string{"| Model name ", "| a long model name, not wrapped at all | 10 |", "|  7 |", "|---:|"}},
	} {
		for _, w := range tc.want {
			if !strings.Contains(tc.got, w) {
				t.Errorf("%s lacks %q:\n%s", tc.name, w, tc.got)
			}
		}
	}
}
