package agg

import (
	"fmt"
	"sort"
	"strings"

	"github.com/evalmd/evalmd/grade"
)

// DSBench reports data-analysis accuracy two ways (DSBench paper, section
// 4): task-level, correct answers over all questions, and competition-level,
// the mean of each competition's accuracy. A competition is a sheet here. A
// question with an error or no grade counts as wrong, as the paper's
// evaluation scores a missing answer 0.

// DSBenchRow is one model's DSBench figures.
type DSBenchRow struct {
	Model        string
	Questions    int
	Correct      int
	Task         float64 // Correct / Questions
	Competitions int
	Competition  float64 // mean over sheets of correct/questions
}

// DSBench returns the DSBench figures per model, by model name, from the
// rows whose sheet or grader names DSBench.
func (d *Data) DSBench() []DSBenchRow {
	type tally struct{ n, correct int }
	per := map[strID]map[strID]*tally{} // model -> sheet -> tally
	for i := range d.rows {
		r := &d.rows[i]
		if r.bench != benchDSBench || r.model == noStr {
			continue
		}
		m := per[r.model]
		if m == nil {
			m = map[strID]*tally{}
			per[r.model] = m
		}
		t := m[r.sheet]
		if t == nil {
			t = &tally{}
			m[r.sheet] = t
		}
		t.n++
		if r.grade == gradeTrue {
			t.correct++
		}
	}
	var out []DSBenchRow
	for model, sheets := range per {
		row := DSBenchRow{Model: d.strs.str(model), Competitions: len(sheets)}
		// Sum the per-competition accuracies in sheet order so the float sum
		// does not depend on map order.
		keys := make([]strID, 0, len(sheets))
		for s := range sheets {
			keys = append(keys, s)
		}
		sort.Slice(keys, func(i, j int) bool { return d.less(keys[i], keys[j]) })
		var sum float64
		for _, s := range keys {
			t := sheets[s]
			row.Questions += t.n
			row.Correct += t.correct
			sum += float64(t.correct) / float64(t.n)
		}
		row.Task = float64(row.Correct) / float64(row.Questions)
		row.Competition = sum / float64(len(sheets))
		out = append(out, row)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Model < out[j].Model })
	return out
}

func dsbenchTable(rows []DSBenchRow) Table {
	t := Table{
		Title: "DSBench: task-level and competition-level accuracy",
		Note: "task-level: correct / all questions (errors and ungraded count as wrong); " +
			"competition-level: mean of per-competition accuracies, a competition being a sheet.",
		Columns: cols("model", "#questions", "#correct", "#task-level", "#competitions", "#competition-level"),
	}
	for _, r := range rows {
		t.Rows = append(t.Rows, []string{r.Model, itoa(r.Questions), itoa(r.Correct),
			fmtPct(r.Task), itoa(r.Competitions), fmtPct(r.Competition)})
	}
	return t
}

// DABenchRun is one model run's DABench figures, computed by
// grade.DABenchMetrics (InfiAgent's eval_closed_form.py rules), plus ABQ per
// question level, which the script does not report.
type DABenchRun struct {
	Label  string // the model, with the run id when the model has several runs
	Report grade.DABenchReport
	Levels []grade.DABenchNamedRate // ABQ per level, levels sorted
}

// DABench returns the DABench figures per model run. Each run is scored as
// the script scores one responses file.
func (d *Data) DABench() []DABenchRun {
	type runKey struct{ model, run strID }
	qs := map[runKey][]grade.DABenchScored{}
	levels := map[runKey]map[string][]grade.DABenchScored{}
	runsOf := map[strID]map[strID]bool{}
	for i := range d.rows {
		r := &d.rows[i]
		if r.bench != benchDABench || r.model == noStr {
			continue
		}
		k := runKey{r.model, r.run}
		if runsOf[r.model] == nil {
			runsOf[r.model] = map[strID]bool{}
		}
		runsOf[r.model][r.run] = true
		parts := make([]grade.Part, r.subTotal)
		for j := range parts {
			parts[j].Correct = j < int(r.subCorrect)
		}
		s := grade.DABenchScored{
			ID:    d.strs.str(r.name),
			Level: d.strs.str(r.level),
			Parts: parts,
			// A question with no response leaves every denominator, as in
			// the script; so does one the run could not answer.
			Answered: !r.noResponse && !r.unanswered,
		}
		if r.concepts != noStr {
			// Present but empty is not absent: as bench/dabench.Concepts,
			// the question then counts under zero concepts.
			s.Concepts = []string{}
			for _, c := range strings.Split(d.strs.str(r.concepts), ",") {
				if c = strings.TrimSpace(c); c != "" {
					s.Concepts = append(s.Concepts, c)
				}
			}
		}
		qs[k] = append(qs[k], s)
		if r.level != noStr {
			if levels[k] == nil {
				levels[k] = map[string][]grade.DABenchScored{}
			}
			levels[k][s.Level] = append(levels[k][s.Level], s)
		}
	}
	keys := make([]runKey, 0, len(qs))
	for k := range qs {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if keys[i].model != keys[j].model {
			return d.less(keys[i].model, keys[j].model)
		}
		return d.less(keys[i].run, keys[j].run)
	})
	var out []DABenchRun
	for _, k := range keys {
		label := d.strs.str(k.model)
		if len(runsOf[k.model]) > 1 {
			label += " (" + d.strs.str(k.run) + ")"
		}
		run := DABenchRun{Label: label, Report: grade.DABenchMetrics(qs[k])}
		names := make([]string, 0, len(levels[k]))
		for l := range levels[k] {
			names = append(names, l)
		}
		sort.Slice(names, func(i, j int) bool { return levelLess(names[i], names[j]) })
		for _, l := range names {
			rep := grade.DABenchMetrics(levels[k][l])
			run.Levels = append(run.Levels, grade.DABenchNamedRate{Name: l, Rate: rep.ABQ})
		}
		out = append(out, run)
	}
	return out
}

// levelLess orders DABench's levels easy, medium, hard, then any others by
// name.
func levelLess(a, b string) bool {
	rank := func(s string) int {
		switch strings.ToLower(s) {
		case "easy":
			return 0
		case "medium":
			return 1
		case "hard":
			return 2
		}
		return 3
	}
	if ra, rb := rank(a), rank(b); ra != rb {
		return ra < rb
	}
	return a < b
}

func fmtRate(r grade.DABenchRate) string {
	if r.Int {
		return "0"
	}
	return fmt.Sprintf("%.4f", r.Value)
}

// dabenchTables renders the DABench figures: the main figures, then ABQ per
// concept, per number of concepts and per level, one column per run.
func dabenchTables(runs []DABenchRun) []Table {
	main := Table{
		Title: "DABench: accuracy by question, proportional and by sub-question",
		Note: "InfiAgent-DABench's eval_closed_form.py figures: ABQ (every sub-answer right), " +
			"PSAQ (mean share of sub-answers right), UASQ (right sub-answers over all); " +
			"questions without a response are left out, as the script does.",
		Columns: cols("model", "#scored", "#ABQ", "#PSAQ", "#UASQ", "#ABQ 2+ concepts"),
	}
	for _, r := range runs {
		two := "-"
		if r.Report.TwoOrMore != nil {
			two = fmtRate(*r.Report.TwoOrMore)
		}
		main.Rows = append(main.Rows, []string{r.Label, itoa(r.Report.Scored),
			fmtRate(r.Report.ABQ), fmtRate(r.Report.PSAQ), fmtRate(r.Report.UASQ), two})
	}
	pivot := func(title, first string, get func(DABenchRun) []grade.DABenchNamedRate, less func(a, b string) bool) Table {
		names := []string{first}
		for _, r := range runs {
			names = append(names, "#"+r.Label)
		}
		t := Table{Title: title, Columns: cols(names...)}
		val := map[string][]string{}
		var keys []string
		for i, r := range runs {
			for _, nr := range get(r) {
				if val[nr.Name] == nil {
					val[nr.Name] = make([]string, len(runs))
					for j := range val[nr.Name] {
						val[nr.Name][j] = "-"
					}
					keys = append(keys, nr.Name)
				}
				val[nr.Name][i] = fmtRate(nr.Rate)
			}
		}
		sort.Slice(keys, func(i, j int) bool { return less(keys[i], keys[j]) })
		for _, k := range keys {
			t.Rows = append(t.Rows, append([]string{k}, val[k]...))
		}
		return t
	}
	concepts := pivot("DABench: ABQ per concept", "concept",
		func(r DABenchRun) []grade.DABenchNamedRate { return r.Report.Concepts },
		func(a, b string) bool { return a < b })
	counts := pivot("DABench: ABQ by number of concepts", "concepts",
		func(r DABenchRun) []grade.DABenchNamedRate { return r.Report.ConceptCounts },
		func(a, b string) bool { // numbers as numbers: "2" before "10"
			if len(a) != len(b) {
				return len(a) < len(b)
			}
			return a < b
		})
	levels := pivot("DABench: ABQ per level", "level",
		func(r DABenchRun) []grade.DABenchNamedRate { return r.Levels }, levelLess)
	return []Table{main, concepts, counts, levels}
}
