package load

import (
	"fmt"
	"sort"
)

// MixedGrading says, when the answers counted were graded in both modes
// (strict and liberal: the grading setting), which Leaderboard cells hold
// liberal ones, one line per (sheet, model) in the Leaderboard's group
// order: LIME's tables, which have no column for it, count them together.
// It is nil when every answer was graded in one mode.
func (d *Data) MixedGrading() []string {
	liberal := map[[2]Str]int{}
	all := map[[2]Str]int{}
	strict := 0
	for i := range d.rows {
		r := &d.rows[i]
		if r.Sheet == NoStr || r.Model == NoStr {
			continue
		}
		k := [2]Str{r.Sheet, r.Model}
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
	for _, k := range d.sortedCells(liberal) {
		with := fmt.Sprintf("counted with the %d graded strictly", all[k]-liberal[k])
		if liberal[k] == all[k] {
			with = fmt.Sprintf("beside %d graded strictly in other cells", strict)
		}
		out = append(out, fmt.Sprintf("sheet %s, model %s: %d of %d answers graded liberally, %s (grade --grading MODE -w grades them alike)",
			d.Str(k[0]), d.Str(k[1]), liberal[k], all[k], with))
	}
	return out
}

// PeopleGrades says, where people's verdicts cover answers counted, how
// many grades of each Leaderboard cell are people's, one line per (sheet,
// model) in the Leaderboard's group order: LIME's tables, which have no
// column for it, count them with the graders'. It is nil without any.
func (d *Data) PeopleGrades() []string {
	people := map[[2]Str]int{}
	for _, rv := range d.reviews {
		if r := &d.rows[rv.Row]; r.Grade != GradeNull && r.Sheet != NoStr && r.Model != NoStr {
			people[[2]Str{r.Sheet, r.Model}]++
		}
	}
	if len(people) == 0 {
		return nil
	}
	graded := map[[2]Str]int{}
	for i := range d.rows {
		r := &d.rows[i]
		if k := [2]Str{r.Sheet, r.Model}; people[k] > 0 && r.Grade != GradeNull {
			graded[k]++
		}
	}
	var out []string
	for _, k := range d.sortedCells(people) {
		out = append(out, fmt.Sprintf("sheet %s, model %s: %d of %d grades are a person's verdict (review), counted in place of the grader's",
			d.Str(k[0]), d.Str(k[1]), people[k], graded[k]))
	}
	return out
}

// sortedCells are the (sheet, model) keys of m by sheet, then model, in
// string order (pandas' groupby order).
func (d *Data) sortedCells(m map[[2]Str]int) [][2]Str {
	keys := make([][2]Str, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		a, b := keys[i], keys[j]
		if a[0] != b[0] {
			return d.Str(a[0]) < d.Str(b[0])
		}
		return d.Str(a[1]) < d.Str(b[1])
	})
	return keys
}
