package render

import (
	"slices"
	"strings"
	"testing"
)

func TestPeopleColumn(t *testing.T) {
	for _, tc := range []struct {
		name           string
		people, graded []int
		want           []string // the column's cells; nil: no column
	}{
		{"none", []int{0, 0}, []int{3, 4}, nil},
		{"some", []int{0, 2}, []int{3, 4}, []string{"0 of 3", "2 of 4"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tb := Table{Title: "T", Note: "n.", Columns: Cols("model"), Rows: [][]string{{"a"}, {"b"}}}
			PeopleColumn(&tb, tc.people, tc.graded)
			if tc.want == nil {
				if len(tb.Columns) != 1 || tb.Note != "n." {
					t.Errorf("a column or a note added where no grade is people's: %+v", tb)
				}
				return
			}
			var got []string
			for _, r := range tb.Rows {
				got = append(got, r[len(r)-1])
			}
			if tb.Columns[1].Name != "people's grades" || !slices.Equal(got, tc.want) || !strings.HasPrefix(tb.Note, "n. people's grades: ") {
				t.Errorf("columns %v, cells %q, note %q; want %q", tb.Columns, got, tb.Note, tc.want)
			}
		})
	}
}
