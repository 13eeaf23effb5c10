package agg

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
)

// This file holds what agg does with a question answered more than once by
// one model: the epochs of a run (run --epochs N), and the runs of a model
// that asked the same sheet again. The unit of every figure is the
// question, not the answer (Miller 2024, "Adding Error Bars to Evals":
// clustered standard errors): a model's answers to one question are
// reduced to one score, and means, standard errors and intervals are taken
// over those scores, so 5 epochs of 50 questions never claim the
// precision of 250 questions.

// Reducer says how a model's answers to one question become the question's
// score. Its zero value is the mean.
type Reducer struct {
	kind reducerKind
	k    int // pass@k's k
}

type reducerKind uint8

const (
	reduceMean reducerKind = iota
	reduceMajority
	reducePassAtK
	reduceAllCorrect
)

// ReducerNames lists the reducers ParseReducer accepts, for help text.
const ReducerNames = "mean, majority, pass@K (K a number), all-correct"

// ParseReducer reads a reducer's name: mean, majority, pass@K or
// all-correct.
func ParseReducer(s string) (Reducer, error) {
	switch s {
	case "", "mean":
		return Reducer{}, nil
	case "majority":
		return Reducer{kind: reduceMajority}, nil
	case "all-correct":
		return Reducer{kind: reduceAllCorrect}, nil
	}
	if k, ok := strings.CutPrefix(s, "pass@"); ok {
		n, err := strconv.Atoi(k)
		if err != nil || n < 1 || n > 1e6 {
			return Reducer{}, fmt.Errorf("reducer %q: pass@K wants K a whole number from 1", s)
		}
		return Reducer{kind: reducePassAtK, k: n}, nil
	}
	return Reducer{}, fmt.Errorf("reducer %q: known reducers are %s", s, ReducerNames)
}

// String is the reducer's name as ParseReducer reads it.
func (r Reducer) String() string {
	switch r.kind {
	case reduceMajority:
		return "majority"
	case reducePassAtK:
		return fmt.Sprintf("pass@%d", r.k)
	case reduceAllCorrect:
		return "all-correct"
	}
	return "mean"
}

// Reduce is the score of a question of which c of n graded answers are
// right (n >= 1):
//   - mean: c/n;
//   - majority: 1 when most answers are right, 0 when most are wrong, 1/2
//     on a tie;
//   - pass@k: the unbiased estimator of the chance that at least one of k
//     answers drawn without replacement is right, 1 - C(n-c,k)/C(n,k)
//     (Chen et al. 2021); with fewer than k answers, pass@n;
//   - all-correct: 1 when every answer is right.
func (r Reducer) Reduce(c, n int) float64 {
	if n <= 0 {
		return math.NaN()
	}
	switch r.kind {
	case reduceMajority:
		switch {
		case 2*c > n:
			return 1
		case 2*c < n:
			return 0
		}
		return 0.5
	case reducePassAtK:
		k := min(r.k, n)
		if n-c < k {
			return 1
		}
		// C(n-c,k)/C(n,k) = prod over i in (n-c, n] of (1 - k/i), a
		// product of c terms, which neither overflows nor loses digits.
		q := 1.0
		for i := n - c + 1; i <= n; i++ {
			q *= 1 - float64(k)/float64(i)
		}
		return 1 - q
	case reduceAllCorrect:
		if c == n {
			return 1
		}
		return 0
	}
	return float64(c) / float64(n)
}

// answers is one model's answers to one question: n graded, c of them
// right; with every answer counted (answersOf's all), e of them errored
// and u ungraded.
type answers struct {
	q          int32
	n, c, e, u int32
}

// unitIndex numbers the distinct questions the way a question is the same
// across epochs and runs: its sheet, its name and which of the file's
// questions of that name it is (LIME lets a name repeat within a sheet;
// those are different questions, not epochs). idx[i] is row i's question,
// -1 when its sheet or name is null.
func (d *Data) unitIndex() (idx []int32, n int) { return d.units(false) }

// units is unitIndex; with truth, a question graded against two ground
// truths is two questions (the gate pairs a question across folders only
// where its truth is the same).
func (d *Data) units(truth bool) (idx []int32, n int) {
	type ukey struct {
		sheet, name, truth strID
		occ                uint16
	}
	ids := map[ukey]int32{}
	idx = make([]int32, len(d.rows))
	for i := range d.rows {
		r := &d.rows[i]
		if r.sheet == noStr || r.name == noStr {
			idx[i] = -1
			continue
		}
		k := ukey{sheet: r.sheet, name: r.name, truth: noStr, occ: r.occ}
		if truth {
			k.truth = r.truth
		}
		q, ok := ids[k]
		if !ok {
			q = int32(len(ids))
			ids[k] = q
		}
		idx[i] = q
	}
	return idx, len(ids)
}

// answersByModel returns each model's graded answers per question, sorted
// by question.
func (d *Data) answersByModel() map[strID][]answers {
	idx, _ := d.unitIndex()
	return d.answersOf(idx, func(int) bool { return true }, false)
}

// answersOf returns each model's answers per question of idx (row i's
// question, -1 for none), sorted by question, of the rows keep keeps:
// the graded answers, or with all every answer (a question answered only
// with errors or without a grade is there too, its n 0).
func (d *Data) answersOf(idx []int32, keep func(row int) bool, all bool) map[strID][]answers {
	type mq struct {
		m strID
		q int32
	}
	at := map[mq]int{}
	out := map[strID][]answers{}
	for i := range d.rows {
		r := &d.rows[i]
		if r.model == noStr || idx[i] < 0 || !all && r.grade == gradeNull || !keep(i) {
			continue
		}
		k := mq{r.model, idx[i]}
		j, ok := at[k]
		if !ok {
			j = len(out[r.model])
			at[k] = j
			out[r.model] = append(out[r.model], answers{q: idx[i]})
		}
		a := &out[r.model][j]
		switch r.grade {
		case gradeTrue:
			a.n++
			a.c++
		case gradeFalse:
			a.n++
		default:
			a.u++
		}
		if r.errored {
			a.e++
		}
	}
	for _, as := range out {
		sort.Slice(as, func(i, j int) bool { return as[i].q < as[j].q })
	}
	return out
}

// repeated says whether some model answered some question more than once.
func repeated(by map[strID][]answers) bool {
	for _, as := range by {
		for _, a := range as {
			if a.n > 1 {
				return true
			}
		}
	}
	return false
}

// MeanCI is a benchmark figure over questions: the mean of per-question
// scores (each question's mean over its epochs, say) with its standard
// error and 95% interval, as agg's own totals compute them (see
// overQuestions). A Metric reports its figures this way so that epochs
// never count as questions.
func MeanCI(scores []float64) (mean, stderr, lo, hi float64) { return overQuestions(scores) }

// overQuestions is the mean of per-question scores with its standard error
// and 95% interval, the question being the unit. The standard error is the
// scores' sample standard deviation over sqrt(n) (for 0/1 scores,
// Inspect's sqrt(p(1-p)/(n-1))). Where every score is 0 or 1 the interval
// is Wilson's on the questions; else the normal interval, held to [0, 1].
func overQuestions(scores []float64) (mean, se, lo, hi float64) { return overQuestionsZ(scores, z95) }

// overQuestionsZ is overQuestions with the interval at the level whose
// normal quantile is z.
func overQuestionsZ(scores []float64, z float64) (mean, se, lo, hi float64) {
	n := len(scores)
	if n == 0 {
		return math.NaN(), 0, math.NaN(), math.NaN()
	}
	var sum float64
	binary, k := true, 0
	for _, s := range scores {
		sum += s
		switch s {
		case 1:
			k++
		case 0:
		default:
			binary = false
		}
	}
	mean = sum / float64(n)
	if n > 1 {
		var ss float64
		for _, s := range scores {
			ss += (s - mean) * (s - mean)
		}
		se = math.Sqrt(ss / float64(n-1) / float64(n))
	}
	if binary {
		lo, hi = wilsonZ(k, n, z)
		return mean, se, lo, hi
	}
	return mean, se, math.Max(0, mean-z*se), math.Min(1, mean+z*se)
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

func meanPairs(d *Data, by map[strID][]answers) []MeanPair {
	models := make([]strID, 0, len(by))
	for m := range by {
		models = append(models, m)
	}
	sort.Slice(models, func(i, j int) bool { return d.less(models[i], models[j]) })
	var out []MeanPair
	for i := 0; i < len(models); i++ {
		for j := i + 1; j < len(models); j++ {
			ga, gb := by[models[i]], by[models[j]]
			var diffs []float64
			var sa, sb float64
			for x, y := 0, 0; x < len(ga) && y < len(gb); {
				switch {
				case ga[x].q < gb[y].q:
					x++
					continue
				case ga[x].q > gb[y].q:
					y++
					continue
				}
				a := float64(ga[x].c) / float64(ga[x].n)
				b := float64(gb[y].c) / float64(gb[y].n)
				sa += a
				sb += b
				diffs = append(diffs, a-b)
				x++
				y++
			}
			n := len(diffs)
			if n == 0 {
				continue
			}
			p := MeanPair{A: d.strs.str(models[i]), B: d.strs.str(models[j]), Questions: n,
				MeanA: sa / float64(n), MeanB: sb / float64(n)}
			p.Diff, p.Stderr, p.Lo, p.Hi, p.P = pairedDiffs(diffs, z95)
			out = append(out, p)
		}
	}
	return out
}

// meanPairsTable renders MeanPairs.
func meanPairsTable(ps []MeanPair) Table {
	t := Table{
		Title: "Paired comparison over questions: per-question mean differences",
		Note: "on the questions both models have a grade for, each model's mean over its answers to the question " +
			"(every epoch and run), then the mean of the differences; stderr and 95% CI over questions " +
			"(paired, clustered by question); p: two-sided, normal approximation.",
		Columns: Cols("model A", "model B", "#questions", "#mean A", "#mean B", "#A - B", "95% CI", "#stderr", "#p"),
	}
	for _, p := range ps {
		t.Rows = append(t.Rows, []string{p.A, p.B, itoa(p.Questions), fmtFrac(p.MeanA), fmtFrac(p.MeanB),
			fmt.Sprintf("%+.3f", p.Diff), fmt.Sprintf("[%+.3f, %+.3f]", p.Lo, p.Hi),
			fmt.Sprintf("%.4f", p.Stderr), fmtP(p.P)})
	}
	return t
}
