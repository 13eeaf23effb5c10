package agg

import (
	"slices"
	"strings"
	"testing"
)

// Where answers graded in both modes meet in one table, it says so: the
// Models table has a grading column (strict, liberal, or both and how
// many), and the Leaderboard's cells holding liberal answers are named,
// as LIME's tables have no column for it. Answers of one mode add
// neither.
func TestGradingModesMeet(t *testing.T) {
	const (
		strict  = `{"name": "q%d", "grade": false}`
		liberal = `{"name": "q%d", "grade": true, "grading": "liberal", "grading_from": "flag"}`
	)
	file := func(sheet, model, run string, qs ...string) string {
		for i := range qs {
			qs[i] = strings.Replace(qs[i], "%d", string(rune('1'+i)), 1)
		}
		return `{"sheet": {"name": "` + sheet + `", "model_name": "` + model + `", "run_id": "` + run + `"}, "questions": [` + strings.Join(qs, ", ") + `]}`
	}
	for _, tc := range []struct {
		name  string
		docs  []string
		cells []string // the grading column, models in the table's order; nil: no column
		mixed []string
	}{
		{name: "strict only", docs: []string{file("S", "a", "1", strict, strict), file("S", "b", "2", strict)}},
		{name: "liberal only", docs: []string{file("S", "a", "1", liberal, liberal)}, cells: []string{"liberal"}},
		{name: "both", docs: []string{file("S", "a", "1", liberal, liberal), file("S", "b", "2", strict), file("T", "b", "3", liberal, strict)},
			cells: []string{"liberal", "both: 1 of 3 liberal"},
			mixed: []string{
				"sheet S, model a: 2 of 2 answers graded liberally, beside 2 graded strictly in other cells (grade --grading MODE -w grades them alike)",
				"sheet T, model b: 1 of 2 answers graded liberally, counted with the 1 graded strictly (grade --grading MODE -w grades them alike)",
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := dataFrom(t, tc.docs...)
			if got := d.MixedGrading(); !slices.Equal(got, tc.mixed) {
				t.Errorf("mixed: %q\nwant %q", got, tc.mixed)
			}
			tbl := totalsTable(d.Totals(), false, d.Reducer)
			last := tbl.Columns[len(tbl.Columns)-1].Name
			if (last == "grading") != (tc.cells != nil) || strings.Contains(tbl.Note, "grading:") != (tc.cells != nil) {
				t.Fatalf("columns %v, note %q; want a grading column %v", tbl.Columns, tbl.Note, tc.cells != nil)
			}
			for i, want := range tc.cells {
				if got := tbl.Rows[i][len(tbl.Rows[i])-1]; got != want {
					t.Errorf("row %v: grading %q, want %q", tbl.Rows[i], got, want)
				}
			}
		})
	}
}
