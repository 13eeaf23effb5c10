package score

import (
	"fmt"
	"sort"

	"github.com/evalmd/evalmd/agg"
)

// metric reports data-analysis accuracy two ways (DSBench paper, section
// 4): task-level, correct answers over all questions, and
// competition-level, the mean of each competition's accuracy. A
// competition is a sheet here. A question with an error or no grade counts
// as wrong, as the paper's evaluation scores a missing answer 0.
type metric struct{}

func (metric) Benchmark() string  { return Name }
func (metric) MetaKeys() []string { return nil }

// row is one model's figures.
type row struct {
	model        string
	questions    int
	correct      int
	task         float64 // correct / questions
	competitions int
	competition  float64 // mean over sheets of correct/questions
}

// rows computes the figures per model, sorted by model.
func rows(qs []agg.Question) []row {
	type tally struct{ n, correct int }
	per := map[string]map[string]*tally{} // model -> sheet -> tally
	for _, q := range qs {
		if q.Model == "" {
			continue
		}
		m := per[q.Model]
		if m == nil {
			m = map[string]*tally{}
			per[q.Model] = m
		}
		t := m[q.Sheet]
		if t == nil {
			t = &tally{}
			m[q.Sheet] = t
		}
		t.n++
		if q.Grade != nil && *q.Grade {
			t.correct++
		}
	}
	var out []row
	for model, sheets := range per {
		r := row{model: model, competitions: len(sheets)}
		// Sum the per-competition accuracies in sheet order so the float sum
		// does not depend on map order.
		keys := make([]string, 0, len(sheets))
		for s := range sheets {
			keys = append(keys, s)
		}
		sort.Strings(keys)
		var sum float64
		for _, s := range keys {
			t := sheets[s]
			r.questions += t.n
			r.correct += t.correct
			sum += float64(t.correct) / float64(t.n)
		}
		r.task = float64(r.correct) / float64(r.questions)
		r.competition = sum / float64(len(sheets))
		out = append(out, r)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].model < out[j].model })
	return out
}

func pct(x float64) string { return fmt.Sprintf("%.2f%%", 100*x) }

// Tables is one table: the two accuracies per model.
func (metric) Tables(qs []agg.Question) []agg.Table {
	t := agg.Table{
		Title: "DSBench: task-level and competition-level accuracy",
		Note: "task-level: correct / all questions (errors and ungraded count as wrong); " +
			"competition-level: mean of per-competition accuracies, a competition being a sheet.",
		Columns: agg.Cols("model", "#questions", "#correct", "#task-level", "#competitions", "#competition-level"),
	}
	rs := rows(qs)
	if len(rs) == 0 {
		return nil
	}
	for _, r := range rs {
		t.Rows = append(t.Rows, []string{r.model, fmt.Sprint(r.questions), fmt.Sprint(r.correct),
			pct(r.task), fmt.Sprint(r.competitions), pct(r.competition)})
	}
	return []agg.Table{t}
}
