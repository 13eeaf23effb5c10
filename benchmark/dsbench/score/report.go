package score

import (
	"fmt"
	"sort"

	"github.com/evalmd/evalmd/agg"
	"github.com/evalmd/evalmd/agg/render"
	"github.com/evalmd/evalmd/agg/stats"
)

// metric reports data-analysis accuracy two ways (DSBench paper, section
// 4): task-level, correct answers over all questions, and
// competition-level, the mean of each competition's accuracy. A
// competition is a sheet here. A question with an error or no grade counts
// as wrong, as the paper's evaluation scores a missing answer 0. A
// question asked in several epochs (or runs) scores the mean of its
// answers, and each figure is the mean over questions (competitions) with
// its 95% interval over them (stats.MeanCI), so epochs never count as
// questions.
type metric struct{}

func (metric) Benchmark() string  { return Name }
func (metric) MetaKeys() []string { return nil }

// row is one model's figures.
type row struct {
	model          string
	questions      int // distinct questions
	answers        int // every epoch's answer
	correct        int // right answers
	task           float64
	taskLo, taskHi float64
	competitions   int
	competition    float64
	compLo, compHi float64
}

// rows computes the figures per model, sorted by model.
func rows(qs []agg.Question) []row {
	type tally struct {
		sheet   string
		n, good int
	}
	per := map[string]map[int]*tally{} // model -> question unit -> its answers
	for _, q := range qs {
		if q.Model == "" {
			continue
		}
		m := per[q.Model]
		if m == nil {
			m = map[int]*tally{}
			per[q.Model] = m
		}
		t := m[q.Unit]
		if t == nil {
			t = &tally{sheet: q.Sheet}
			m[q.Unit] = t
		}
		t.n++
		if q.Grade != nil && *q.Grade {
			t.good++
		}
	}
	var out []row
	for model, units := range per {
		r := row{model: model, questions: len(units)}
		// Sum in question order so the float sums do not depend on map
		// order.
		ids := make([]int, 0, len(units))
		for u := range units {
			ids = append(ids, u)
		}
		sort.Ints(ids)
		scores := make([]float64, 0, len(ids))
		bySheet := map[string][]float64{}
		for _, u := range ids {
			t := units[u]
			r.answers += t.n
			r.correct += t.good
			s := float64(t.good) / float64(t.n)
			scores = append(scores, s)
			bySheet[t.sheet] = append(bySheet[t.sheet], s)
		}
		r.task, _, r.taskLo, r.taskHi = stats.MeanCI(scores)
		sheets := make([]string, 0, len(bySheet))
		for s := range bySheet {
			sheets = append(sheets, s)
		}
		sort.Strings(sheets)
		comps := make([]float64, len(sheets))
		for i, s := range sheets {
			var sum float64
			for _, x := range bySheet[s] {
				sum += x
			}
			comps[i] = sum / float64(len(bySheet[s]))
		}
		r.competitions = len(sheets)
		r.competition, _, r.compLo, r.compHi = stats.MeanCI(comps)
		out = append(out, r)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].model < out[j].model })
	return out
}

func pct(x float64) string { return fmt.Sprintf("%.2f%%", 100*x) }

// pctCI is an interval in percent.
func pctCI(lo, hi float64) string { return fmt.Sprintf("[%.2f%%, %.2f%%]", 100*lo, 100*hi) }

// Tables is one table: the two accuracies per model.
func (metric) Tables(qs []agg.Question) []render.Table {
	t := render.Table{
		Title: "DSBench: task-level and competition-level accuracy",
		Note: "task-level: correct / all questions (errors and ungraded count as wrong); " +
			"competition-level: mean of per-competition accuracies, a competition being a sheet. " +
			"A question answered in several epochs (or runs) scores the share of its answers right; " +
			"95% CI over questions (task-level) and over competitions (competition-level), not answers: " +
			"Wilson's where every score is 0 or 1, else the normal interval.",
		Columns: render.Cols("model", "#questions", "#answers", "#correct", "#task-level", "95% CI",
			"#competitions", "#competition-level", "95% CI"),
	}
	rs := rows(qs)
	if len(rs) == 0 {
		return nil
	}
	for _, r := range rs {
		t.Rows = append(t.Rows, []string{r.model, fmt.Sprint(r.questions), fmt.Sprint(r.answers), fmt.Sprint(r.correct),
			pct(r.task), pctCI(r.taskLo, r.taskHi), fmt.Sprint(r.competitions), pct(r.competition), pctCI(r.compLo, r.compHi)})
	}
	return []render.Table{t}
}
