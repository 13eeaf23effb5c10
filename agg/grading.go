package agg

import (
	"fmt"

	"github.com/evalmd/evalmd/agg/load"
)

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
