package runcmd

import (
	"fmt"
	"io"
	"slices"
	"time"

	"github.com/evalmd/evalmd/agg/render"
	"github.com/evalmd/evalmd/cmd/internal/cli"
	"github.com/evalmd/evalmd/harness"
)

// writeSummary ends a run with one table, a row per model, from what the
// run counted of each output file it wrote (it reads none back):
// questions, correct, answered, errors, tokens, cost and time (the
// longest of its sheets' wall times: its sheets run at once); questions
// answered from earlier outputs are counted apart from those asked.
// A grading column says the mode of each model's answers where some were
// graded liberally. It is boxed on a terminal and markdown otherwise. A run of several
// epochs has an epochs column (a model's most), its questions counted
// once (epoch 1's) and its correct answers out of every epoch's. The
// current files are earlier outputs that held what the run would have
// written (nothing was): their questions are counted as reused, and
// nothing was spent on them.
func writeSummary(w io.Writer, files []harness.OutputFile) error {
	rows, models, epochs := summaryRows(files)
	if len(models) == 0 {
		return nil
	}
	cols := []string{"model", "#questions", "#correct", "#answered", "#errors", "#tokens in", "#tokens out", "#cost", "#time"}
	if epochs {
		cols = slices.Insert(cols, 2, "#epochs")
	}
	cached := false
	for _, m := range models {
		cached = cached || rows[m].cacheRead > 0 || rows[m].cacheWrite > 0
	}
	if cached {
		// After the input tokens, which they are a part of, and the cost.
		at := slices.Index(cols, "#tokens in") + 1
		cols = slices.Insert(cols, at, "#cache read")
		cols = slices.Insert(cols, slices.Index(cols, "#cost")+1, "#cache saved")
	}
	t := render.Table{Title: "Run summary", Columns: render.Cols(cols...)}
	for _, m := range models {
		t.Rows = append(t.Rows, rows[m].cells(m, epochs, cached))
	}
	if cached {
		t.Note = "cache read: input tokens the provider's prompt cache served (a part of tokens in); " +
			"cache saved: the cost at the full input price less the cost paid (cache writes cost more than they save)."
	}
	liberal, answers := make([]int, len(models)), make([]int, len(models))
	for i, m := range models {
		liberal[i], answers[i] = rows[m].liberal, rows[m].answers
	}
	render.GradingColumn(&t, liberal, answers)
	var text string
	var err error
	if cli.IsTerminal(w) {
		text, err = t.Screen()
	} else {
		text, err = t.Markdown()
	}
	if err != nil {
		return err
	}
	_, err = io.WriteString(w, text)
	return err
}

// summaryRow is one model's row of the run summary.
type summaryRow struct {
	questions, correct, answered, errors, in, out, reasoning int
	answers, epochs                                          int
	reused                                                   int // answers from an earlier output, not asked
	liberal                                                  int // answers graded liberally
	of                                                       int // the sheets' questions, when a subset was asked
	subset                                                   bool
	cost                                                     float64
	priced                                                   bool
	cacheRead, cacheWrite                                    int
	saved                                                    float64 // what the prompt cache saved, where priced
	wall                                                     float64
}

// summaryRows are the rows of the models of files, by model label, the
// labels sorted, and whether a run of several epochs is among them.
func summaryRows(files []harness.OutputFile) (map[string]*summaryRow, []string, bool) {
	rows := map[string]*summaryRow{}
	var models []string
	epochs := false
	for _, f := range files {
		name := f.Sheet.ModelLabel()
		r := rows[name]
		if r == nil {
			r = &summaryRow{priced: true}
			rows[name] = r
			models = append(models, name)
		}
		_, n := f.Sheet.EpochOf()
		epochs = epochs || n > 1
		r.add(f)
	}
	slices.Sort(models)
	return rows, models, epochs
}

// add counts one output file of the model.
func (r *summaryRow) add(f harness.OutputFile) {
	k, n := f.Sheet.EpochOf()
	r.epochs = max(r.epochs, n)
	tally := f.Tally
	if k == 1 {
		r.questions += tally.Questions
		r.of += tally.Questions
		if s := f.Sheet.Subset; s != nil {
			r.of += s.Of - tally.Questions
			r.subset = r.subset || s.Limit > 0 || len(s.Questions) > 0
		}
	}
	r.answers += tally.Questions
	r.correct += tally.Correct
	r.liberal += tally.Liberal
	r.reused += tally.Reused
	if f.Current {
		r.reused += tally.Questions - tally.Reused
	}
	if t := f.Sheet.Totals; t != nil && f.Current {
		r.answered += t.Answered
	} else if t != nil {
		r.answered += t.Answered
		r.errors += t.Errors
		r.in += t.InputTokens
		r.out += t.OutputTokens
		r.reasoning += t.ReasoningTokens
		r.cacheRead += t.CacheReadTokens
		r.cacheWrite += t.CacheWriteTokens
		if t.CacheSaved != nil {
			r.saved += *t.CacheSaved
		}
		r.wall = max(r.wall, t.WallSeconds)
		if t.Cost != nil {
			r.cost += *t.Cost
		} else {
			r.priced = false
		}
	}
}

// cells are the row's cells for model m, with an epochs column when the
// run has one and the prompt cache's columns when cached.
func (r *summaryRow) cells(m string, epochs, cached bool) []string {
	correct := fmt.Sprint(r.correct)
	if r.answers > 0 {
		correct = fmt.Sprintf("%d (%.0f%%)", r.correct, 100*float64(r.correct)/float64(r.answers))
		if epochs {
			correct = fmt.Sprintf("%d of %d (%.0f%%)", r.correct, r.answers, 100*float64(r.correct)/float64(r.answers))
		}
	}
	cost := "unknown"
	if r.priced {
		cost = fmt.Sprintf("$%.4f", r.cost)
	}
	questions := fmt.Sprint(r.questions)
	if r.subset {
		questions = fmt.Sprintf("%d of %d", r.questions, r.of)
	}
	if r.reused > 0 {
		questions += fmt.Sprintf(" (%d asked, %d reused)", r.answers-r.reused, r.reused)
	}
	out := fmt.Sprint(r.out)
	if r.reasoning > 0 {
		out += fmt.Sprintf(" (%d reasoning)", r.reasoning)
	}
	cells := []string{m, questions, correct, fmt.Sprint(r.answered), fmt.Sprint(r.errors),
		fmt.Sprint(r.in), out, cost, (time.Duration(r.wall * float64(time.Second))).Round(100 * time.Millisecond).String()}
	if cached {
		saved := "unknown"
		if r.priced {
			saved = fmt.Sprintf("$%.4f", r.saved)
		}
		cells = slices.Insert(cells, 6, fmt.Sprint(r.cacheRead))
		cells = slices.Insert(cells, 9, saved)
	}
	if epochs {
		cells = slices.Insert(cells, 2, fmt.Sprint(r.epochs))
	}
	return cells
}
