package agg

import "math"

// z95 is the standard normal quantile for a two-sided 95% interval.
const z95 = 1.959963984540054

// wilson returns the Wilson score interval for k successes in n trials at
// 95%. It is used rather than the normal approximation because it stays
// inside [0, 1] and behaves at 0% and 100%, which small sheets hit often.
// With n == 0 it returns (NaN, NaN).
func wilson(k, n int) (lo, hi float64) {
	if n <= 0 {
		return math.NaN(), math.NaN()
	}
	p := float64(k) / float64(n)
	fn := float64(n)
	z2 := z95 * z95
	den := 1 + z2/fn
	centre := (p + z2/(2*fn)) / den
	half := z95 * math.Sqrt(p*(1-p)/fn+z2/(4*fn*fn)) / den
	return math.Max(0, centre-half), math.Min(1, centre+half)
}

// mcNemarExact is McNemar's exact test: b questions only the first model got
// right, c only the second. Under the null hypothesis the b+c discordant
// questions split as Binomial(b+c, 1/2); the two-sided p-value is
// min(1, 2 * P(X <= min(b, c))). With no discordant question it is 1.
func mcNemarExact(b, c int) float64 {
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
