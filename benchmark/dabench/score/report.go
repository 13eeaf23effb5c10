package score

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"sort"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"

	"github.com/evalmd/evalmd/agg"
	"github.com/evalmd/evalmd/agg/render"
	"github.com/evalmd/evalmd/agg/stats"
	"github.com/evalmd/evalmd/grade"
)

// metric is DABench's figures in agg's report: each model run scored as
// eval_closed_form.py scores one responses file, plus ABQ per question
// level, which the script does not report. A run of several epochs is
// scored epoch by epoch (each epoch is one responses file to the script)
// and its figures are the epochs' means; ABQ's 95% intervals are over
// questions (each question's share of epochs all right), never answers.
type metric struct{}

func (metric) Benchmark() string { return Name }

// MetaKeys are the question meta the converter writes and the figures use.
func (metric) MetaKeys() []string { return []string{"concepts", "level"} }

// run is one model run's figures, each the mean over its epochs.
type run struct {
	label  string // the model, with the run id when the model has several runs
	report scriptReport
	// strict is ABQ over all questions, those without a response or
	// stopped by a limit counted wrong; of is how many.
	strict rateFigure
	of     int
	levels []namedRate // ABQ per level, levels sorted
	epochs int
	// abqLo, abqHi and strictLo, strictHi are the 95% intervals of ABQ and
	// strict ABQ over questions (stats.MeanCI).
	abqLo, abqHi, strictLo, strictHi float64
	// conceptCI is each concept's ABQ interval over its questions, as
	// abqLo and abqHi are ABQ's.
	conceptCI map[string][2]float64
}

// runs scores each model run. A question with no response leaves every
// denominator, as in the script; so does one the run could not answer.
func runs(qs []agg.Question) []run {
	tallies, runsOf := tallyRuns(qs)
	keys := make([]runKey, 0, len(tallies))
	for k := range tallies {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if keys[i].model != keys[j].model {
			return keys[i].model < keys[j].model
		}
		return keys[i].run < keys[j].run
	})
	var out []run
	for _, k := range keys {
		label := k.model
		if len(runsOf[k.model]) > 1 {
			label += " (" + k.run + ")"
		}
		out = append(out, tallies[k].figures(label))
	}
	return out
}

// runKey names a model run.
type runKey struct{ model, run string }

// runTally is one model run's questions: by epoch, as the script scores
// them, and by question (unit), for the intervals.
type runTally struct {
	epochs map[int]*epochTally
	units  map[int]*unitTally
}

// epochTally is one epoch's questions, all and by level.
type epochTally struct {
	scored []scoredQuestion
	levels map[string][]scoredQuestion
}

// unitTally is one question's epochs: how many it was scored in
// (answered) and all right in, and all right without a limit (strict),
// and its concepts.
type unitTally struct {
	n, scored, right, strict int
	concepts                 []string
}

// tallyRuns sorts the questions into their runs, and says which runs each
// model has.
func tallyRuns(qs []agg.Question) (map[runKey]*runTally, map[string]map[string]bool) {
	tallies := map[runKey]*runTally{}
	runsOf := map[string]map[string]bool{}
	for _, q := range qs {
		if q.Model == "" {
			continue
		}
		k := runKey{q.Model, q.RunID}
		if runsOf[q.Model] == nil {
			runsOf[q.Model] = map[string]bool{}
		}
		runsOf[q.Model][q.RunID] = true
		t := tallies[k]
		if t == nil {
			t = &runTally{epochs: map[int]*epochTally{}, units: map[int]*unitTally{}}
			tallies[k] = t
		}
		t.add(q)
	}
	return tallies, runsOf
}

// add counts one question of the run.
func (t *runTally) add(q agg.Question) {
	parts := make([]grade.SubAnswer, q.SubAnswers)
	for j := range parts {
		parts[j].Correct = j < q.SubCorrect
	}
	s := scoredQuestion{ID: q.Name, Level: q.Meta["level"], Parts: parts,
		Answered: q.Responded && !q.Unanswered, Limited: q.Limited, Concepts: conceptsMeta(q.Meta)}
	e := t.epochs[q.Epoch]
	if e == nil {
		e = &epochTally{levels: map[string][]scoredQuestion{}}
		t.epochs[q.Epoch] = e
	}
	e.scored = append(e.scored, s)
	if _, ok := q.Meta["level"]; ok {
		e.levels[s.Level] = append(e.levels[s.Level], s)
	}
	u := t.units[q.Unit]
	if u == nil {
		u = &unitTally{concepts: s.Concepts}
		t.units[q.Unit] = u
	}
	u.n++
	if s.Answered {
		u.scored++
		if q.SubCorrect == q.SubAnswers {
			u.right++
			if !s.Limited {
				u.strict++
			}
		}
	}
}

// figures are the run's figures: each epoch scored as the script scores
// it, the epochs' means, and ABQ's intervals over questions.
func (t *runTally) figures(label string) run {
	nums := slices.Sorted(maps.Keys(t.epochs))
	var reps []scriptReport
	var stricts []rateFigure
	levels := map[string][]rateFigure{}
	for _, e := range nums {
		ep := t.epochs[e]
		reps = append(reps, scriptMetrics(ep.scored))
		st, _ := strictABQ(ep.scored)
		stricts = append(stricts, st)
		for l, lqs := range ep.levels {
			levels[l] = append(levels[l], scriptMetrics(lqs).ABQ)
		}
	}
	r := run{label: label, report: meanReport(reps), strict: meanRate(stricts), of: len(t.units), epochs: len(nums)}
	names := slices.Collect(maps.Keys(levels))
	sort.Slice(names, func(i, j int) bool { return levelLess(names[i], names[j]) })
	for _, l := range names {
		r.levels = append(r.levels, namedRate{Name: l, Rate: meanRate(levels[l])})
	}
	var abq, strict []float64
	byConcept := map[string][]float64{}
	for _, id := range slices.Sorted(maps.Keys(t.units)) {
		u := t.units[id]
		if u.scored > 0 {
			share := float64(u.right) / float64(u.scored)
			abq = append(abq, share)
			for _, c := range u.concepts {
				byConcept[c] = append(byConcept[c], share)
			}
		}
		strict = append(strict, float64(u.strict)/float64(u.n))
	}
	_, _, r.abqLo, r.abqHi = stats.MeanCI(abq)
	_, _, r.strictLo, r.strictHi = stats.MeanCI(strict)
	r.conceptCI = map[string][2]float64{}
	for c, shares := range byConcept {
		_, _, lo, hi := stats.MeanCI(shares)
		r.conceptCI[c] = [2]float64{lo, hi}
	}
	return r
}

// conceptsMeta reads the concepts meta a DABench sheet writes (", "-joined).
// It returns nil when the meta has none, which scriptMetrics reads
// as "not in the questions file".
func conceptsMeta(meta map[string]string) []string {
	v, ok := meta["concepts"]
	if !ok {
		return nil
	}
	out := []string{}
	for _, c := range strings.Split(v, ",") {
		if c = strings.TrimSpace(c); c != "" {
			out = append(out, c)
		}
	}
	return out
}

// meanRate is the mean of one figure over epochs, leaving out an epoch
// where the script divided by nothing (the integer 0); with only such
// epochs, the integer 0.
func meanRate(rs []rateFigure) rateFigure {
	var sum float64
	n := 0
	for _, r := range rs {
		if !r.Int {
			sum += r.Value
			n++
		}
	}
	if n == 0 {
		return rateFigure{Int: true}
	}
	if n == 1 {
		return rateFigure{Value: sum}
	}
	return rateFigure{Value: round4(sum / float64(n))}
}

// meanReport is the epochs' reports in one: each figure the mean over the
// epochs that have it (a concept's in the order of first appearance),
// Scored the sum (answers scored).
func meanReport(reps []scriptReport) scriptReport {
	if len(reps) == 1 {
		return reps[0]
	}
	var out scriptReport
	var abq, psaq, uasq, two []rateFigure
	pivot := func(get func(scriptReport) []namedRate) []namedRate {
		var order []string
		by := map[string][]rateFigure{}
		for _, r := range reps {
			for _, nr := range get(r) {
				if by[nr.Name] == nil {
					order = append(order, nr.Name)
				}
				by[nr.Name] = append(by[nr.Name], nr.Rate)
			}
		}
		var rows []namedRate
		for _, n := range order {
			rows = append(rows, namedRate{Name: n, Rate: meanRate(by[n])})
		}
		return rows
	}
	for _, r := range reps {
		out.Scored += r.Scored
		abq = append(abq, r.ABQ)
		psaq = append(psaq, r.PSAQ)
		uasq = append(uasq, r.UASQ)
		if r.TwoOrMore != nil {
			two = append(two, *r.TwoOrMore)
		}
	}
	out.ABQ, out.PSAQ, out.UASQ = meanRate(abq), meanRate(psaq), meanRate(uasq)
	if len(two) > 0 {
		t := meanRate(two)
		out.TwoOrMore = &t
	}
	out.Concepts = pivot(func(r scriptReport) []namedRate { return r.Concepts })
	out.ConceptCounts = pivot(func(r scriptReport) []namedRate { return r.ConceptCounts })
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

// fmtCI is an interval to four places, "-" over no question.
func fmtCI(lo, hi float64) string {
	if math.IsNaN(lo) {
		return "-"
	}
	return fmt.Sprintf("[%.4f, %.4f]", lo, hi)
}

func fmtRate(r rateFigure) string {
	if r.Int {
		return "0"
	}
	return fmt.Sprintf("%.4f", r.Value)
}

// Tables renders the figures: the main ones, then ABQ per concept, per
// number of concepts and per level, one column per run.
func (metric) Tables(qs []agg.Question) []render.Table {
	runs := runs(qs)
	if len(runs) == 0 {
		return nil
	}
	main := render.Table{
		Title: "DABench: accuracy by question, proportional and by sub-question",
		Note: "InfiAgent-DABench's eval_closed_form.py figures: ABQ (every sub-answer right), " +
			"PSAQ (mean share of sub-answers right), UASQ (right sub-answers over all); " +
			"questions without a response are left out, as the script does, which inflates them. " +
			"ABQ strict is over every question: one without a response, or stopped by an agent-mode limit, counts as wrong. " +
			"A run of several epochs: each figure is the mean of the epochs' (scored counts every epoch's answers); " +
			"95% CI over questions (each question's share of epochs right), not answers: Wilson's where every share is 0 or 1, else normal.",
		Columns: render.Cols("model", "#scored", "#ABQ", "#PSAQ", "#UASQ", "#ABQ 2+ concepts", "#questions", "#ABQ strict",
			"#epochs", "ABQ 95% CI", "strict 95% CI"),
	}
	for _, r := range runs {
		two := "-"
		if r.report.TwoOrMore != nil {
			two = fmtRate(*r.report.TwoOrMore)
		}
		main.Rows = append(main.Rows, []string{r.label, fmt.Sprint(r.report.Scored),
			fmtRate(r.report.ABQ), fmtRate(r.report.PSAQ), fmtRate(r.report.UASQ), two,
			fmt.Sprint(r.of), fmtRate(r.strict), fmt.Sprint(r.epochs), fmtCI(r.abqLo, r.abqHi), fmtCI(r.strictLo, r.strictHi)})
	}
	pivot := func(title, first string, get func(run) []namedRate, less func(a, b string) bool) render.Table {
		names := []string{first}
		for _, r := range runs {
			names = append(names, "#"+r.label)
		}
		t := render.Table{Title: title, Columns: render.Cols(names...)}
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
		func(r run) []namedRate { return r.report.Concepts },
		func(a, b string) bool { return a < b })
	counts := pivot("DABench: ABQ by number of concepts", "concepts",
		func(r run) []namedRate { return r.report.ConceptCounts },
		func(a, b string) bool { // numbers as numbers: "2" before "10"
			if len(a) != len(b) {
				return len(a) < len(b)
			}
			return a < b
		})
	levels := pivot("DABench: ABQ per level", "level",
		func(r run) []namedRate { return r.levels }, levelLess)
	return []render.Table{main, concepts, counts, levels}
}

// Charts draws ABQ per concept, one bar per run in each concept's group,
// each with its 95% interval over the concept's questions and its value
// written past the interval; the legend sits above the bars. The DABench
// paper draws concepts as a spider chart; grouped horizontal bars show
// the same numbers, stay readable with many models and need no custom
// plotter.
func (metric) Charts(qs []agg.Question) ([]agg.Plot, error) {
	runs := runs(qs)
	var concepts []string
	seen := map[string]bool{}
	for _, r := range runs {
		for _, c := range r.report.Concepts {
			if !seen[c.Name] {
				seen[c.Name] = true
				concepts = append(concepts, c.Name)
			}
		}
	}
	if len(concepts) == 0 {
		return nil, nil
	}
	sort.Strings(concepts) // the order of the per-concept table
	p := plot.New()
	p.Title.Text = "DABench: accuracy by question (ABQ) per concept, 95% interval"
	p.Title.Padding = vg.Points(8)
	p.X.Label.Text = "ABQ"
	p.X.Min, p.X.Max = 0, 1
	p.Legend.TextStyle.Font.Size = vg.Points(10)
	nr := len(runs)
	barW := vg.Points(10)
	rowH := barW*vg.Length(nr) + vg.Points(12) // one concept's group
	p.Y.Min, p.Y.Max = -0.6, float64(len(concepts))-0.4
	p.Add(plotter.NewGrid()) // first, under the bars
	for i, r := range runs {
		// Spread the group around the concept's row, first run on top as in
		// the legend.
		bars, err := conceptBars(p, r, concepts, barW, barW*vg.Length(float64(nr-1)/2-float64(i)))
		if err != nil {
			return nil, fmt.Errorf("concept chart: %w", err)
		}
		bars.Color = plotutil.Color(i)
		p.Legend.Add(r.label, bars)
	}
	names := make([]string, len(concepts))
	for j, c := range concepts {
		names[len(concepts)-1-j] = c
	}
	render.NominalY(p, names)
	render.LegendAbove(p)
	h := vg.Length(len(concepts))*rowH + vg.Inch + vg.Points(16)*vg.Length(nr)
	return []agg.Plot{{Title: "DABench: accuracy by question per concept", Name: "concepts",
		Plot: p, Width: 7 * vg.Inch, Height: h}}, nil
}

// conceptBars adds to p run r's bars of ABQ per concept (row 0 at the
// bottom: the first concept on top), at offset in each group, with their
// intervals and values, and returns the bars for the legend.
func conceptBars(p *plot.Plot, r run, concepts []string, barW, offset vg.Length) (*plotter.BarChart, error) {
	n := len(concepts)
	vals := make(plotter.Values, n)
	lo, hi, ends := make([]float64, n), make([]float64, n), make([]float64, n)
	for j := range lo {
		lo[j], hi[j] = math.NaN(), math.NaN()
	}
	for _, c := range r.report.Concepts {
		j := n - 1 - slices.Index(concepts, c.Name)
		vals[j], ends[j] = c.Rate.Value, c.Rate.Value
		if ci, ok := r.conceptCI[c.Name]; ok && !math.IsNaN(ci[0]) {
			lo[j], hi[j] = ci[0], ci[1]
			ends[j] = max(ci[1], c.Rate.Value)
		}
	}
	bars, err := plotter.NewBarChart(vals, barW)
	if err != nil {
		return nil, err
	}
	bars.Horizontal = true
	bars.LineStyle.Width = 0
	bars.Offset = offset
	// Each value is written past its interval's end, where no bar or
	// interval hides it.
	labels, err := render.ValueLabels(ends, offset)
	if err != nil {
		return nil, err
	}
	for j := range labels.Labels {
		labels.Labels[j] = fmt.Sprintf("%.2f", vals[j])
	}
	p.Add(bars, render.NewWhiskers(lo, hi, offset), labels)
	return bars, nil
}
