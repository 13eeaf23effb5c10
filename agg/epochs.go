package agg

import (
	"fmt"
	"sort"

	"github.com/evalmd/evalmd/agg/load"
	"github.com/evalmd/evalmd/agg/render"
	"github.com/evalmd/evalmd/agg/stats"
)

// This file holds what agg does with a question answered more than once by
// one model: the epochs of a run (run --epochs N), and the runs of a model
// that asked the same sheet again. The unit of every figure is the
// question, not the answer (Miller 2024, "Adding Error Bars to Evals":
// clustered standard errors): a model's answers to one question are
// reduced to one score, and means, standard errors and intervals are taken
// over those scores, so 5 epochs of 50 questions never claim the
// precision of 250 questions.

// answers is one model's answers to one question (load.Tally).
type answers = load.Tally

// unitIndex numbers the distinct questions (load.Data.Units without truths).
func (d *Data) unitIndex() (idx []int32, n int) { return d.Units(false) }

// answersByModel returns each model's graded answers per question, sorted
// by question.
func (d *Data) answersByModel() map[load.Str][]answers {
	idx, _ := d.unitIndex()
	return d.Tallies(idx, func(int) bool { return true }, false)
}

// repeated says whether some model answered some question more than once.
func repeated(by map[load.Str][]answers) bool {
	for _, as := range by {
		for _, a := range as {
			if a.N > 1 {
				return true
			}
		}
	}
	return false
}

// MeanPair compares two models on the questions both answered, by the
// difference of their per-question mean scores (paired differences; with
// several epochs the per-question mean is the unit, as for the totals).
type MeanPair struct {
	A, B         string
	Questions    int     // questions both have a graded answer for
	MeanA, MeanB float64 // mean over those questions of each model's per-question mean
	Diff         float64 // MeanA - MeanB
	Stderr       float64 // of Diff: the differences' sample standard deviation over sqrt(n)
	Lo, Hi       float64 // 95% normal interval of Diff
	P            float64 // two-sided, normal approximation; 1 with no difference at all
}

// MeanPairs compares every two models on per-question means.
func (d *Data) MeanPairs() []MeanPair {
	return meanPairs(d, d.answersByModel())
}

func meanPairs(d *Data, by map[load.Str][]answers) []MeanPair {
	var out []MeanPair
	eachPair(d, by, func(a, b load.Str, ga, gb []answers) {
		var diffs []float64
		var sa, sb float64
		matched(ga, gb, func(x, y answers) {
			ma, mb := float64(x.C)/float64(x.N), float64(y.C)/float64(y.N)
			sa += ma
			sb += mb
			diffs = append(diffs, ma-mb)
		})
		n := len(diffs)
		if n == 0 {
			return
		}
		p := MeanPair{A: d.Str(a), B: d.Str(b), Questions: n, MeanA: sa / float64(n), MeanB: sb / float64(n)}
		p.Diff, p.Stderr, p.Lo, p.Hi, p.P = stats.PairedDiffs(diffs, stats.Z95)
		out = append(out, p)
	})
	return out
}

// questioned is a per-question record of one model, in lists sorted by
// question.
type questioned interface{ Question() int32 }

func (g graded) Question() int32 { return g.q }

// eachPair calls pair for every two models of by, in name order.
func eachPair[T any](d *Data, by map[load.Str][]T, pair func(a, b load.Str, ga, gb []T)) {
	models := make([]load.Str, 0, len(by))
	for m := range by {
		models = append(models, m)
	}
	sort.Slice(models, func(i, j int) bool { return d.less(models[i], models[j]) })
	for i := range models {
		for _, b := range models[i+1:] {
			pair(models[i], b, by[models[i]], by[b])
		}
	}
}

// matched calls both for each question ga and gb both hold, walking the
// two sorted lists together.
func matched[T questioned](ga, gb []T, both func(a, b T)) {
	for x, y := 0, 0; x < len(ga) && y < len(gb); {
		switch qa, qb := ga[x].Question(), gb[y].Question(); {
		case qa < qb:
			x++
		case qa > qb:
			y++
		default:
			both(ga[x], gb[y])
			x++
			y++
		}
	}
}

// meanPairsTable renders MeanPairs.
func meanPairsTable(ps []MeanPair) render.Table {
	t := render.Table{
		Title: "Paired comparison over questions: per-question mean differences",
		Note: "on the questions both models have a grade for, each model's mean over its answers to the question " +
			"(every epoch and run), then the mean of the differences; stderr and 95% CI over questions " +
			"(paired, clustered by question); p: two-sided, normal approximation.",
		Columns: render.Cols("model A", "model B", "#questions", "#mean A", "#mean B", "#A - B", "95% CI", "#stderr", "#p"),
	}
	for _, p := range ps {
		t.Rows = append(t.Rows, []string{p.A, p.B, itoa(p.Questions), render.Frac(p.MeanA), render.Frac(p.MeanB),
			fmt.Sprintf("%+.3f", p.Diff), fmt.Sprintf("[%+.3f, %+.3f]", p.Lo, p.Hi),
			fmt.Sprintf("%.4f", p.Stderr), render.PValue(p.P)})
	}
	return t
}
