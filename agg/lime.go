package agg

import (
	"math"
	"sort"

	"github.com/evalmd/evalmd/agg/load"
	"github.com/evalmd/evalmd/agg/render"
	"github.com/evalmd/evalmd/agg/stats"
)

// LIME's agg.py (sutt/lime at e03f8c2) loads every question of every output
// file into one pandas frame, with the sheet's name, model and run id on each
// row, and prints three group-bys of it. The functions here rebuild those
// group-bys, keeping pandas' rules: group keys that are null drop the row,
// groups come out sorted by key, `count` skips null names, `mean` skips null
// grades, and the sorts are pandas' (stable for several keys, numpy's
// unstable quicksort for one).

// sheetModel is a group key of the Leaderboard and Runs tables.
type sheetModel struct{ sheet, model load.Str }

// less orders interned strings as Python orders str: by code point, which is
// byte order for UTF-8.
func (d *Data) less(a, b load.Str) bool { return d.Str(a) < d.Str(b) }

// sortedSheetModels returns the (sheet, model) groups in pandas groupby order.
func (d *Data) sortedSheetModels(keys map[sheetModel]bool) []sheetModel {
	out := make([]sheetModel, 0, len(keys))
	for k := range keys {
		out = append(out, k)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].sheet != out[j].sheet {
			return d.less(out[i].sheet, out[j].sheet)
		}
		return d.less(out[i].model, out[j].model)
	})
	return out
}

// LeaderRow is one row of LIME's Leaderboard.
type LeaderRow struct {
	Sheet, Model string
	Questions    int     // rows with a question name (pandas count of "name")
	Correct      int     // true grades
	Graded       int     // non-null grades
	Mean         float64 // Correct/Graded, NaN when nothing is graded
	Rounded      float64 // Mean rounded as pandas' round(2)
}

// Leaderboard is LIME's sheet_by_model_pct_correct: per (sheet, model), the
// number of questions and the mean grade, sorted by sheet then mean, both
// descending, ties in group order.
func (d *Data) Leaderboard() []LeaderRow {
	type acc struct{ n, correct, graded int }
	groups := map[sheetModel]*acc{}
	keys := map[sheetModel]bool{}
	for i := range d.Rows() {
		r := &d.Rows()[i]
		if r.Sheet == load.NoStr || r.Model == load.NoStr {
			continue
		}
		k := sheetModel{r.Sheet, r.Model}
		a := groups[k]
		if a == nil {
			a = &acc{}
			groups[k] = a
			keys[k] = true
		}
		if r.Name != load.NoStr {
			a.n++
		}
		if r.Grade != load.GradeNull {
			a.graded++
			if r.Grade == load.GradeTrue {
				a.correct++
			}
		}
	}
	order := d.sortedSheetModels(keys)
	out := make([]LeaderRow, len(order))
	for i, k := range order {
		a := groups[k]
		m := math.NaN()
		if a.graded > 0 {
			// pandas' nanmean on an object column: the Python sum of the
			// bools divided by their count, one float division.
			m = float64(a.correct) / float64(a.graded)
		}
		out[i] = LeaderRow{Sheet: d.Str(k.sheet), Model: d.Str(k.model),
			Questions: a.n, Correct: a.correct, Graded: a.graded, Mean: m, Rounded: pdRound2(m)}
	}
	// sort_values(["input_name", "pct_correct"], ascending=False) goes
	// through lexsort_indexer, which is stable; NaN means sort last.
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.Sheet != b.Sheet {
			return a.Sheet > b.Sheet
		}
		an, bn := math.IsNaN(a.Mean), math.IsNaN(b.Mean)
		switch {
		case an || bn:
			return !an && bn
		}
		return a.Mean > b.Mean
	})
	return out
}

// pdRound2 is pandas' Series.round(2), which is numpy's round: scale by 100,
// round half to even, scale back.
func pdRound2(x float64) float64 {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return x
	}
	return math.RoundToEven(x*100) / 100
}

// RunsRow is one row of LIME's Runs table.
type RunsRow struct {
	Sheet, Model string
	Runs         int // distinct non-null run ids
}

// Runs is LIME's input_by_model: distinct run ids per (sheet, model), sorted
// by that count descending with numpy's quicksort, so ties come out in the
// order LIME's pandas gives them.
func (d *Data) Runs() []RunsRow {
	runs := map[sheetModel]map[load.Str]bool{}
	for i := range d.Rows() {
		r := &d.Rows()[i]
		if r.Sheet == load.NoStr || r.Model == load.NoStr {
			continue
		}
		k := sheetModel{r.Sheet, r.Model}
		s := runs[k]
		if s == nil {
			s = map[load.Str]bool{}
			runs[k] = s
		}
		if r.Run != load.NoStr {
			s[r.Run] = true
		}
	}
	keys := map[sheetModel]bool{}
	for k := range runs {
		keys[k] = true
	}
	order := d.sortedSheetModels(keys)
	counts := make([]int64, len(order))
	for i, k := range order {
		counts[i] = int64(len(runs[k]))
	}
	out := make([]RunsRow, len(order))
	for i, j := range stats.PdSortDescending(counts) {
		k := order[j]
		out[i] = RunsRow{Sheet: d.Str(k.sheet), Model: d.Str(k.model), Runs: int(counts[j])}
	}
	return out
}

// QuestionRow is one row of LIME's All Questions table.
type QuestionRow struct{ Sheet, Name string }

// AllQuestions is LIME's all_sheets_all_questions: the distinct (sheet,
// question name) pairs, sorted.
func (d *Data) AllQuestions() []QuestionRow {
	type key struct{ sheet, name load.Str }
	seen := map[key]bool{}
	for i := range d.Rows() {
		r := &d.Rows()[i]
		if r.Sheet == load.NoStr || r.Name == load.NoStr {
			continue
		}
		seen[key{r.Sheet, r.Name}] = true
	}
	out := make([]QuestionRow, 0, len(seen))
	for k := range seen {
		out = append(out, QuestionRow{d.Str(k.sheet), d.Str(k.name)})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Sheet != out[j].Sheet {
			return out[i].Sheet < out[j].Sheet
		}
		return out[i].Name < out[j].Name
	})
	return out
}

// LIME's section headings, as agg.py writes them.
const (
	limeLeaderboardTitle  = "### Leaderboard: `{input_sheet, model}` on `pct_correct`"
	limeRunsTitle         = "### Runs: `{input_sheet, model}` on number of `run_id`'s"
	limeAllQuestionsTitle = "### All Questions: list of all question names by sheet"
)

// limeTable is one of LIME's tables with its heading as agg.py writes it.
type limeTable struct {
	heading string
	frame   render.DataFrame
}

// limeTables are LIME's three tables.
func (d *Data) limeTables() []limeTable {
	lb := render.DataFrame{Columns: []string{"input_name", "model_name", "num_questions", "pct_correct"}}
	for _, r := range d.Leaderboard() {
		lb.Rows = append(lb.Rows, []render.CellValue{render.StrCell(r.Sheet), render.StrCell(r.Model), render.IntCell(int64(r.Questions)), render.FloatCell(r.Rounded)})
	}
	runs := render.DataFrame{Columns: []string{"input_name", "model_name", "run_id"}}
	for _, r := range d.Runs() {
		runs.Rows = append(runs.Rows, []render.CellValue{render.StrCell(r.Sheet), render.StrCell(r.Model), render.IntCell(int64(r.Runs))})
	}
	qs := render.DataFrame{Columns: []string{"input_name", "name"}}
	for _, r := range d.AllQuestions() {
		qs.Rows = append(qs.Rows, []render.CellValue{render.StrCell(r.Sheet), render.StrCell(r.Name)})
	}
	return []limeTable{{limeLeaderboardTitle, lb}, {limeRunsTitle, runs}, {limeAllQuestionsTitle, qs}}
}

// LIMEMarkdown renders LIME's three tables exactly as agg.py writes them:
// each heading, a blank line, the table, a blank line.
func (d *Data) LIMEMarkdown() string {
	var out string
	for _, t := range d.limeTables() {
		out += t.heading + "\n\n" + render.Tabulate(t.frame) + "\n\n"
	}
	return out
}
