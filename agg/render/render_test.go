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
