package agg

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/evalmd/evalmd/agg/load"
	"github.com/evalmd/evalmd/agg/render"
	"github.com/evalmd/evalmd/agg/stats"
	"github.com/evalmd/evalmd/internal/mdcell"
	"github.com/evalmd/evalmd/model"
)

// This file builds the sections LIME lacks. Each builder returns plain data
// (a slice of structs); table*.go-style helpers below turn the data into
// Tables.

// ModelTotal is one model's totals over every sheet and run.
type ModelTotal struct {
	Model      string
	Questions  int // question rows
	Graded     int // rows with a non-null grade
	Correct    int
	Errors     int // rows whose error is not null
	Unanswered int // rows the model had no answer for (replay)
	Ungraded   int // rows whose grade is null
	Liberal    int // rows graded in liberal mode (the grading setting); the others strictly
	People     int // grades that are a person's verdict (review), not the grader's
	// Accuracy is Correct/Graded (LIME's pct_correct rule: null grades are
	// left out, not counted wrong); NaN when nothing is graded.
	Accuracy float64
	// Units are the distinct questions graded: Graded unless a question
	// was answered more than once (epochs, or runs of the same sheet).
	Units int
	// Score is the mean over the Units of each question's score, its
	// answers reduced by Data.Reducer; Accuracy when no question was
	// answered twice.
	Score  float64
	Lo, Hi float64 // 95% interval of Score over questions (Wilson's where every score is 0 or 1)
	Stderr float64 // of Score over questions; Inspect's stderr when no question was answered twice
	// Repeated counts the questions answered more than once, Agreed those
	// of them whose answers were all right or all wrong; Consistency is
	// Agreed/Repeated, NaN when nothing was repeated.
	Repeated, Agreed int
	Consistency      float64
}

// Totals returns per-model totals, best score first, then by name.
func (d *Data) Totals() []ModelTotal {
	ts, _ := d.totals()
	return ts
}

// totals is Totals and whether some question was answered more than once.
func (d *Data) totals() ([]ModelTotal, bool) {
	by := map[load.Str]*ModelTotal{}
	for i := range d.Rows() {
		r := &d.Rows()[i]
		if r.Model == load.NoStr {
			continue
		}
		t := by[r.Model]
		if t == nil {
			t = &ModelTotal{Model: d.Str(r.Model)}
			by[r.Model] = t
		}
		t.Questions++
		switch r.Grade {
		case load.GradeNull:
			t.Ungraded++
		case load.GradeTrue:
			t.Correct++
			t.Graded++
		default:
			t.Graded++
		}
		if r.Errored {
			t.Errors++
		}
		if r.Unanswered {
			t.Unanswered++
		}
		if r.Liberal {
			t.Liberal++
		}
	}
	for _, rv := range d.Reviews() {
		if r := &d.Rows()[rv.Row]; r.Model != load.NoStr && r.Grade != load.GradeNull {
			by[r.Model].People++
		}
	}
	answered := d.answersByModel()
	out := make([]ModelTotal, 0, len(by))
	for m, t := range by {
		t.Accuracy = math.NaN()
		if t.Graded > 0 {
			t.Accuracy = float64(t.Correct) / float64(t.Graded)
		}
		as := answered[m]
		scores := make([]float64, len(as))
		for i, a := range as {
			scores[i] = d.Reducer.Reduce(int(a.C), int(a.N))
			if a.N > 1 {
				t.Repeated++
				if a.C == 0 || a.C == a.N {
					t.Agreed++
				}
			}
		}
		t.Units = len(as)
		t.Score, t.Stderr, t.Lo, t.Hi = stats.MeanCI(scores)
		t.Consistency = math.NaN()
		if t.Repeated > 0 {
			t.Consistency = float64(t.Agreed) / float64(t.Repeated)
		}
		out = append(out, *t)
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i].Score, out[j].Score
		if math.IsNaN(a) != math.IsNaN(b) {
			return !math.IsNaN(a)
		}
		if a != b {
			return a > b
		}
		return out[i].Model < out[j].Model
	})
	return out, repeated(answered)
}

// qkey names a question across files: its sheet and its name.
type qkey struct{ sheet, name load.Str }

// Pair is McNemar's comparison of two models on the questions both have a
// grade for.
type Pair struct {
	A, B               string
	Both               int // questions graded for both
	ACorrect, BCorrect int
	OnlyA, OnlyB       int // discordant questions: only A right, only B right
	P                  float64
}

// questionIndex numbers the distinct questions (sheet, name) of the rows:
// idx[i] is row i's question, -1 when its sheet or name is null.
func (d *Data) questionIndex() (idx []int32, n int) {
	ids := map[qkey]int32{}
	idx = make([]int32, len(d.Rows()))
	for i := range d.Rows() {
		r := &d.Rows()[i]
		if r.Sheet == load.NoStr || r.Name == load.NoStr {
			idx[i] = -1
			continue
		}
		k := qkey{r.Sheet, r.Name}
		q, ok := ids[k]
		if !ok {
			q = int32(len(ids))
			ids[k] = q
		}
		idx[i] = q
	}
	return idx, len(ids)
}

// graded is one model's grade on one question.
type graded struct {
	q     int32
	run   load.Str
	epoch uint16
	grade int8
}

// firstGrades returns, per model, its graded questions sorted by question,
// each with the grade from the model's first run (run ids in string order)
// that graded it, and of that run its first epoch, so a model run twice
// is compared once per question. A question whose first epoch there has
// no grade (its call failed) is left out, not graded by a later epoch.
func (d *Data) firstGrades() map[load.Str][]graded {
	idx, _ := d.questionIndex()
	count := map[load.Str]int{}
	for i := range d.Rows() {
		if r := &d.Rows()[i]; r.Model != load.NoStr && idx[i] >= 0 {
			count[r.Model]++
		}
	}
	all := make(map[load.Str][]graded, len(count))
	for m, n := range count {
		all[m] = make([]graded, 0, n)
	}
	for i := range d.Rows() {
		r := &d.Rows()[i]
		if r.Model == load.NoStr || idx[i] < 0 {
			continue
		}
		all[r.Model] = append(all[r.Model], graded{idx[i], r.Run, r.Epoch, r.Grade})
	}
	for m, gs := range all {
		// Stable, so within one run the first row of a repeated name wins.
		sort.SliceStable(gs, func(i, j int) bool {
			if gs[i].q != gs[j].q {
				return gs[i].q < gs[j].q
			}
			if gs[i].run != gs[j].run {
				return d.less(gs[i].run, gs[j].run)
			}
			return gs[i].epoch < gs[j].epoch
		})
		all[m] = firstOfGradingRun(gs)
	}
	return all
}

// firstOfGradingRun keeps, of each question of gs (sorted by question,
// run and epoch), the first row of the first run that graded it in any
// epoch, when that row has a grade.
func firstOfGradingRun(gs []graded) []graded {
	out := gs[:0]
	for i := 0; i < len(gs); {
		j := i
		for j < len(gs) && gs[j].q == gs[i].q {
			j++
		}
		for k := i; k < j; {
			l, first, grades := k, gs[k], false
			for l < j && gs[l].run == first.run {
				grades = grades || gs[l].grade != load.GradeNull
				l++
			}
			if grades {
				if first.grade != load.GradeNull {
					out = append(out, first)
				}
				break
			}
			k = l
		}
		i = j
	}
	return out
}

// Pairs compares every two models with McNemar's exact test.
func (d *Data) Pairs() []Pair {
	var out []Pair
	eachPair(d, d.firstGrades(), func(a, b load.Str, ga, gb []graded) {
		p := Pair{A: d.Str(a), B: d.Str(b)}
		matched(ga, gb, func(x, y graded) {
			ra, rb := x.grade == load.GradeTrue, y.grade == load.GradeTrue
			p.Both++
			if ra {
				p.ACorrect++
			}
			if rb {
				p.BCorrect++
			}
			switch {
			case ra && !rb:
				p.OnlyA++
			case !ra && rb:
				p.OnlyB++
			}
		})
		if p.Both > 0 {
			p.P = stats.McNemarExact(p.OnlyA, p.OnlyB)
			out = append(out, p)
		}
	})
	return out
}

// Discrepancy is a question whose grades differ between models or runs.
type Discrepancy struct {
	Sheet, Name  string
	Right, Wrong []string // "model (run)" labels, sorted
}

// Discrepancies returns the questions graded both true and false somewhere,
// by sheet then name: the first limit of them (all when limit <= 0) and how
// many there are. Only the rows returned are labelled, which matters when a
// million questions disagree.
func (d *Data) Discrepancies(limit int) ([]Discrepancy, int) {
	idx, n := d.questionIndex()
	// First pass: which questions have both a true and a false grade.
	const seenTrue, seenFalse = 1, 2
	seen := make([]uint8, n)
	for i := range d.Rows() {
		if q := idx[i]; q >= 0 {
			switch d.Rows()[i].Grade {
			case load.GradeTrue:
				seen[q] |= seenTrue
			case load.GradeFalse:
				seen[q] |= seenFalse
			}
		}
	}
	// Second pass: the rows of those questions only.
	type lists struct{ right, wrong []int }
	by := map[int32]*lists{}
	for i := range d.Rows() {
		q := idx[i]
		if q < 0 || seen[q] != seenTrue|seenFalse || d.Rows()[i].Grade == load.GradeNull {
			continue
		}
		l := by[q]
		if l == nil {
			l = &lists{}
			by[q] = l
		}
		if d.Rows()[i].Grade == load.GradeTrue {
			l.right = append(l.right, i)
		} else {
			l.wrong = append(l.wrong, i)
		}
	}
	// A sheet may repeat a question name (LIME allows it), so one run can
	// appear several times: say so once, with a count.
	label := func(rows []int) []string {
		count := map[string]int{}
		for _, j := range rows {
			r := &d.Rows()[j]
			count[d.Str(r.Model)+" ("+d.Str(r.Run)+")"]++
		}
		out := make([]string, 0, len(count))
		for l, k := range count {
			if k > 1 {
				l += fmt.Sprintf(" x%d", k)
			}
			out = append(out, l)
		}
		sort.Strings(out)
		return out
	}
	type found struct {
		sheet, name string
		l           *lists
	}
	all := make([]found, 0, len(by))
	for _, l := range by {
		r := &d.Rows()[l.right[0]]
		all = append(all, found{d.Str(r.Sheet), d.Str(r.Name), l})
	}
	sort.Slice(all, func(i, j int) bool {
		if all[i].sheet != all[j].sheet {
			return all[i].sheet < all[j].sheet
		}
		return all[i].name < all[j].name
	})
	if limit > 0 && len(all) > limit {
		all = all[:limit]
	}
	out := make([]Discrepancy, len(all))
	for i, f := range all {
		out[i] = Discrepancy{Sheet: f.sheet, Name: f.name, Right: label(f.l.right), Wrong: label(f.l.wrong)}
	}
	return out, len(by)
}

// totalsTable renders Totals. When no question was answered twice it is
// the table of one answer per question; else its figures are over
// questions, each question's answers reduced by r.
func totalsTable(ts []ModelTotal, repeats bool, r stats.Reducer) render.Table {
	if repeats {
		return epochTotalsTable(ts, r)
	}
	t := render.Table{
		Title: "Models: accuracy over all sheets, with 95% interval",
		Note: "accuracy = correct / graded (null grades left out, as LIME's pct_correct); " +
			"95% CI: Wilson score interval; stderr: Inspect's, sqrt(p(1-p)/(n-1)). " +
			"Every run of a model counts.",
		Columns: render.Cols("model", "#graded", "#correct", "#wrong", "#accuracy", "95% CI", "#stderr"),
	}
	for _, m := range ts {
		t.Rows = append(t.Rows, []string{m.Model, itoa(m.Graded), itoa(m.Correct),
			itoa(m.Graded - m.Correct), render.Frac(m.Accuracy), fmtCI(m), fmt.Sprintf("%.4f", m.Stderr)})
	}
	return withGrading(t, ts)
}

// withGrading is t, a row per model of ts in order, with GradingColumn
// and PeopleColumn.
func withGrading(t render.Table, ts []ModelTotal) render.Table {
	liberal, answers, people, graded := make([]int, len(ts)), make([]int, len(ts)), make([]int, len(ts)), make([]int, len(ts))
	for i, m := range ts {
		liberal[i], answers[i], people[i], graded[i] = m.Liberal, m.Questions, m.People, m.Graded
	}
	render.GradingColumn(&t, liberal, answers)
	render.PeopleColumn(&t, people, graded)
	return t
}

// epochTotalsTable is totalsTable where some question was answered more
// than once.
func epochTotalsTable(ts []ModelTotal, r stats.Reducer) render.Table {
	t := render.Table{
		Title: "Models: accuracy over all sheets, with 95% interval over questions",
		Note: fmt.Sprintf("the unit is the question: a model's answers to one question (its epochs, and its runs of the sheet) "+
			"are reduced to one score by %s (agg --reducer), and accuracy is the mean of those scores; "+
			"stderr and 95%% CI over questions, not answers (clustered by question, Miller 2024): "+
			"Wilson's interval where every score is 0 or 1, else the normal one; "+
			"answers: graded answers (null grades left out); consistency: the share of questions answered "+
			"more than once whose answers were all right or all wrong.", r),
		Columns: render.Cols("model", "#questions", "#answers", "#correct", "#accuracy ("+r.String()+")", "95% CI", "#stderr", "#consistency"),
	}
	for _, m := range ts {
		t.Rows = append(t.Rows, []string{m.Model, itoa(m.Units), itoa(m.Graded), itoa(m.Correct),
			render.Frac(m.Score), fmtCI(m), fmt.Sprintf("%.4f", m.Stderr), render.Frac(m.Consistency)})
	}
	return withGrading(t, ts)
}

// fmtCI is a total's interval, "-" when nothing is graded.
func fmtCI(m ModelTotal) string {
	if m.Units == 0 {
		return "-"
	}
	return fmt.Sprintf("[%.3f, %.3f]", m.Lo, m.Hi)
}

// rowsName is what a table that counts question rows calls them:
// "answers" where some question was answered more than once (epochs,
// several runs of a sheet), where the rows are not the questions.
func rowsName(repeats bool) string {
	if repeats {
		return "answers"
	}
	return "questions"
}

// repeatsNote says, where repeats, that a table's counts are of answers.
func repeatsNote(repeats bool) string {
	if !repeats {
		return ""
	}
	return " Counts are of answers: a question answered in several epochs or runs counts once per answer."
}

// errorsTable renders the error counts of Totals; repeats as totals
// says.
func errorsTable(ts []ModelTotal, repeats bool) render.Table {
	unit := "A question"
	if repeats {
		unit = "An answer"
	}
	t := render.Table{
		Title: "Errors: counted apart from wrong answers",
		Note: "errors: the model call failed (error not null); unanswered: no answer to grade; " +
			"ungraded: grade is null. " + unit + " can be in more than one column." + repeatsNote(repeats),
		Columns: render.Cols("model", "#"+rowsName(repeats), "#errors", "#unanswered", "#ungraded"),
	}
	sorted := append([]ModelTotal(nil), ts...)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i].Model < sorted[j].Model })
	for _, m := range sorted {
		t.Rows = append(t.Rows, []string{m.Model, itoa(m.Questions), itoa(m.Errors),
			itoa(m.Unanswered), itoa(m.Ungraded)})
	}
	return t
}

// pairsTable renders Pairs.
func pairsTable(ps []Pair) render.Table {
	t := render.Table{
		Title: "Paired comparison: McNemar's exact test",
		Note: "on the questions (sheet, name) both models have a grade for, each model's " +
			"first run by run id (its first epoch); p: two-sided exact binomial test on the discordant questions.",
		Columns: render.Cols("model A", "model B", "#questions", "#A correct", "#B correct",
			"#only A", "#only B", "#p"),
	}
	for _, p := range ps {
		t.Rows = append(t.Rows, []string{p.A, p.B, itoa(p.Both), itoa(p.ACorrect),
			itoa(p.BCorrect), itoa(p.OnlyA), itoa(p.OnlyB), render.PValue(p.P)})
	}
	return t
}

// discrepancyTable renders Discrepancies: ds, the first of total.
func discrepancyTable(ds []Discrepancy, total int) render.Table {
	t := render.Table{
		Title:   "Discrepancies: questions graded differently between models or runs",
		Note:    fmt.Sprintf("%d questions; each cell lists model (run id).", total),
		Columns: render.Cols("input_name", "name", "correct", "wrong"),
		More:    total - len(ds),
	}
	for _, x := range ds {
		t.Rows = append(t.Rows, []string{x.Sheet, x.Name,
			strings.Join(x.Right, ", "), strings.Join(x.Wrong, ", ")})
	}
	return t
}

// usageTable renders Usages; repeats as totals says.
func usageTable(us []load.Usage, repeats bool) render.Table {
	rows := rowsName(repeats)
	one := rows[:len(rows)-1]
	t := render.Table{
		Title: "Usage: tokens, cost and time per model",
		Note: "sums over every " + one + " that reported the figure; " +
			"'-' where no " + one + " did (LIME's files carry time only), " +
			"cost 'unknown' where no price was known (--price on run gives one)." + repeatsNote(repeats),
	}
	// Cache and reasoning tokens, where any model reported some, get a
	// column after the input or output tokens they are a part of.
	var read, write, reasoning bool
	for _, u := range us {
		read, write = read || u.CacheReadTokens > 0, write || u.CacheWriteTokens > 0
		reasoning = reasoning || u.ReasoningTokens > 0
	}
	cols := []string{"model", "#" + rows, "#input tokens"}
	if read {
		cols = append(cols, "#cache read tokens")
	}
	if write {
		cols = append(cols, "#cache write tokens")
	}
	if read || write {
		t.Note += " Cache read and write tokens are a part of the input tokens, and costed at the provider's cache rates;" +
			" cache saved is the cost at the full input price less the cost paid."
	}
	cols = append(cols, "#output tokens")
	if reasoning {
		cols = append(cols, "#reasoning tokens")
		t.Note += " Reasoning tokens are a part of the output tokens, and costed as output."
	}
	cols = append(cols, "#cost (USD)")
	if read || write {
		cols = append(cols, "#cache saved (USD)")
	}
	t.Columns = render.Cols(append(cols, "#time (s)", "#mean time (s)")...)
	for _, u := range us {
		t.Rows = append(t.Rows, usageRow(u, read, write, reasoning))
		// A note is markdown: the name in it is made text, as a cell's.
		if u.BadFigures > 0 {
			t.Note += fmt.Sprintf(" %s: %d eval_time or cost values left out (negative, or over a billion: no real figure).",
				mdcell.Literal(u.Model), u.BadFigures)
		}
		if u.BatchQuestions > 0 {
			t.Note += fmt.Sprintf(" %s: %d questions answered through a batch API, their cost at batch prices (%.0f%% of the live price).",
				mdcell.Literal(u.Model), u.BatchQuestions, model.BatchDiscount*100)
		}
	}
	return t
}

// usageRow is u's row of the usage table, with the columns it has.
func usageRow(u load.Usage, read, write, reasoning bool) []string {
	in, out, cost, secs, mean := "-", "-", "unknown", "-", "-"
	if u.TokenQuestions > 0 {
		in, out = fmt.Sprint(u.InputTokens), fmt.Sprint(u.OutputTokens)
	}
	if u.CostQuestions > 0 {
		cost = fmt.Sprintf("%.4f", u.Cost)
	}
	if u.TimeQuestions > 0 {
		secs = fmt.Sprintf("%.1f", u.Seconds)
		mean = fmt.Sprintf("%.2f", u.Seconds/float64(u.TimeQuestions))
	}
	row := []string{u.Model, itoa(u.Questions), in}
	if read {
		row = append(row, fmt.Sprint(u.CacheReadTokens))
	}
	if write {
		row = append(row, fmt.Sprint(u.CacheWriteTokens))
	}
	row = append(row, out)
	if reasoning {
		row = append(row, fmt.Sprint(u.ReasoningTokens))
	}
	row = append(row, cost)
	if read || write {
		saved := "unknown"
		if u.CostQuestions > 0 {
			saved = fmt.Sprintf("%.4f", u.CacheSaved)
		}
		row = append(row, saved)
	}
	return append(row, secs, mean)
}

// itoa is strconv.Itoa for table cells.
func itoa(n int) string { return strconv.Itoa(n) }
