package agg

import (
	"fmt"

	"github.com/evalmd/evalmd/agg/load"
	"github.com/evalmd/evalmd/agg/render"
)

// GradingColumn adds to t, whose row i counts answers[i] answers of which
// liberal[i] were graded liberally (the grading setting), a column saying
// each row's grading mode, when some answer was graded liberally: strict,
// liberal, or both and how many of its answers were liberal; its note
// says what the column means. Where no answer was, t is left as it is.
func GradingColumn(t *render.Table, liberal, answers []int) {
	some := false
	for _, n := range liberal {
		some = some || n > 0
	}
	if !some {
		return
	}
	note := "grading: the mode the answers were graded in (liberal: LIME's -l, the grading setting); a row of both modes counts answers of both."
	if t.Note != "" {
		note = t.Note + " " + note
	}
	t.Note = note
	t.Columns = append(t.Columns, render.Cols("grading")...)
	for i := range t.Rows {
		cell := "strict"
		switch {
		case liberal[i] == answers[i]:
			cell = "liberal"
		case liberal[i] > 0:
			cell = fmt.Sprintf("both: %d of %d liberal", liberal[i], answers[i])
		}
		t.Rows[i] = append(t.Rows[i], cell)
	}
}

// mixedGrading says, when the answers counted were graded in both modes
// (strict and liberal: the grading setting), which Leaderboard cells hold
// liberal ones, one line per (sheet, model) in the Leaderboard's group
// order: LIME's tables, which have no column for it, count them together.
// It is nil when every answer was graded in one mode.
func (d *Data) mixedGrading() []string {
	liberal := map[sheetModel]int{}
	all := map[sheetModel]int{}
	keys := map[sheetModel]bool{}
	strict := 0
	for i := range d.Rows() {
		r := &d.Rows()[i]
		if r.Sheet == load.NoStr || r.Model == load.NoStr {
			continue
		}
		k := sheetModel{r.Sheet, r.Model}
		keys[k] = true
		all[k]++
		if r.Liberal {
			liberal[k]++
		} else {
			strict++
		}
	}
	if len(liberal) == 0 || strict == 0 {
		return nil
	}
	var out []string
	for _, k := range d.sortedSheetModels(keys) {
		if n := liberal[k]; n > 0 {
			out = append(out, fmt.Sprintf("sheet %s, model %s: %d of %d answers graded liberally, counted with the %d graded strictly (grade --grading MODE -w grades them alike)",
				d.Str(k.sheet), d.Str(k.model), n, all[k], strict))
		}
	}
	return out
}
