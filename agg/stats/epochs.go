package stats

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// This file holds what agg does with a question answered more than once by
// one model (the epochs of a run, run --epochs N, and the runs of a model
// that asked the same sheet again): the unit of every figure is the
// question, not the answer (Miller 2024, "Adding Error Bars to Evals":
// clustered standard errors). A model's answers to one question are
// reduced to one score (Reducer), and means, standard errors and
// intervals are taken over those scores (MeanCI), so 5 epochs of 50
// questions never claim the precision of 250 questions.

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
func overQuestions(scores []float64) (mean, se, lo, hi float64) { return OverQuestionsZ(scores, Z95) }

// OverQuestionsZ is overQuestions with the interval at the level whose
// normal quantile is z.
func OverQuestionsZ(scores []float64, z float64) (mean, se, lo, hi float64) {
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
		lo, hi = WilsonZ(k, n, z)
		return mean, se, lo, hi
	}
	return mean, se, math.Max(0, mean-z*se), math.Min(1, mean+z*se)
}
