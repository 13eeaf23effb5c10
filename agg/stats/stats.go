// Package stats holds the statistics of agg's tables and gate: Wilson's
// interval (WilsonZ, at the level whose normal quantile is Z95 or ZFor's),
// McNemar's exact test (McNemarExact), paired differences with their
// interval (PairedDiffs), the reducers of a question answered more than
// once (Reducer, ParseReducer) and the mean of per-question scores with
// its interval (MeanCI, OverQuestionsZ), Cohen's kappa of two raters'
// right-or-wrong grades with its interval (Agreement), and pandas' descending sort
// (PdSortDescending, a port of numpy's quicksort) that LIME's Runs table
// orders its ties by. It knows nothing of output files: every function
// takes counts or scores.
package stats

import "math"

// Z95 is the standard normal quantile for a two-sided 95% interval.
const Z95 = 1.959963984540054

// WilsonZ is wilson's interval at the level whose normal quantile is z.
func WilsonZ(k, n int, z float64) (lo, hi float64) {
	if n <= 0 {
		return math.NaN(), math.NaN()
	}
	p := float64(k) / float64(n)
	fn := float64(n)
	z2 := z * z
	den := 1 + z2/fn
	centre := (p + z2/(2*fn)) / den
	half := z * math.Sqrt(p*(1-p)/fn+z2/(4*fn*fn)) / den
	return math.Max(0, centre-half), math.Min(1, centre+half)
}

// McNemarExact is McNemar's exact test: b questions only the first model got
// right, c only the second. Under the null hypothesis the b+c discordant
// questions split as Binomial(b+c, 1/2); the two-sided p-value is
// min(1, 2 * P(X <= min(b, c))). With no discordant question it is 1.
func McNemarExact(b, c int) float64 {
	n := b + c
	if n == 0 {
		return 1
	}
	m := min(b, c)
	// Sum the binomial tail in log space so n in the millions neither
	// overflows nor underflows term by term. For k <= m <= n/2 the terms
	// grow with k, so the largest is the last; scale by it.
	lgN, _ := math.Lgamma(float64(n + 1))
	term := func(k int) float64 {
		lk, _ := math.Lgamma(float64(k + 1))
		lnk, _ := math.Lgamma(float64(n - k + 1))
		return lgN - lk - lnk + float64(n)*math.Log(0.5)
	}
	maxLog := term(m)
	var s float64
	for k := 0; k <= m; k++ {
		s += math.Exp(term(k) - maxLog)
	}
	p := 2 * math.Exp(maxLog+math.Log(s))
	return math.Min(1, p)
}

// ZFor is the standard normal quantile of a two-sided interval at
// significance level alpha (1.96 for 0.05).
func ZFor(alpha float64) float64 { return math.Sqrt2 * math.Erfinv(1-alpha) }

// PairedDiffs is the mean of paired differences, one per question (each
// question's score under one condition minus its score under the other),
// with its standard error over questions (the differences' sample standard
// deviation over sqrt(n): clustered by question, however many answers a
// score reduces), the normal interval mean -+ z*stderr and the two-sided
// normal p-value (1 when nothing differs, 0 when every difference is the
// same and not 0); scores lie in [0, 1], so the interval is held to
// [-1, 1]. With no difference it returns NaNs and p 1.
func PairedDiffs(diffs []float64, z float64) (mean, stderr, lo, hi, p float64) {
	n := len(diffs)
	if n == 0 {
		return math.NaN(), math.NaN(), math.NaN(), math.NaN(), 1
	}
	for _, x := range diffs {
		mean += x
	}
	mean /= float64(n)
	if n > 1 {
		var ss float64
		for _, x := range diffs {
			ss += (x - mean) * (x - mean)
		}
		stderr = math.Sqrt(ss / float64(n-1) / float64(n))
	}
	switch {
	case stderr > 0:
		p = math.Erfc(math.Abs(mean/stderr) / math.Sqrt2)
	case mean == 0:
		p = 1
	}
	return mean, stderr, math.Max(-1, mean-z*stderr), math.Min(1, mean+z*stderr), p
}
