package stats

import "math"

// Agreement counts two raters' grades, right or wrong, of the same
// answers: both said right, only A did, only B did, both said wrong. In
// agg, A is a grader and B the people who reviewed its answers.
type Agreement struct {
	BothRight, OnlyA, OnlyB, BothWrong int
}

// N is the number of answers both rated.
func (a Agreement) N() int { return a.BothRight + a.OnlyA + a.OnlyB + a.BothWrong }

// Observed is the share of answers the raters agree on; NaN when N is 0.
func (a Agreement) Observed() float64 {
	if a.N() == 0 {
		return math.NaN()
	}
	return float64(a.BothRight+a.BothWrong) / float64(a.N())
}

// Kappa is Cohen's kappa of a with its standard error and the normal
// interval kappa -+ z*se, held to [-1, 1]. ok is false, and the figures
// NaN, when kappa is undefined: no answer, or an expected agreement of 1
// (both raters gave one grade to every answer, the same one).
//
// With p the 2x2 table of shares (rows: A right, A wrong; columns: B
// right, B wrong), p_i. and p_.j its margins, po = p_11 + p_22 and
// pe = p_1. p_.1 + p_2. p_.2:
//
//	kappa = (po - pe) / (1 - pe)
//
// and the standard error is the large-sample one of Fleiss, Cohen and
// Everitt (1969), which holds for any kappa, not only under kappa = 0
// (statsmodels' cohens_kappa computes the same var_kappa):
//
//	var = (A + B - C) / (n (1 - pe)^2)
//	A = sum_i p_ii (1 - (p_i. + p_.i)(1 - kappa))^2
//	B = (1 - kappa)^2 sum_{i != j} p_ij (p_.i + p_j.)^2
//	C = (kappa - pe (1 - kappa))^2
func (a Agreement) Kappa(z float64) (kappa, se, lo, hi float64, ok bool) {
	nan := math.NaN()
	n := float64(a.N())
	if n == 0 {
		return nan, nan, nan, nan, false
	}
	p := [2][2]float64{
		{float64(a.BothRight) / n, float64(a.OnlyA) / n},
		{float64(a.OnlyB) / n, float64(a.BothWrong) / n},
	}
	row := [2]float64{p[0][0] + p[0][1], p[1][0] + p[1][1]}
	col := [2]float64{p[0][0] + p[1][0], p[0][1] + p[1][1]}
	po := p[0][0] + p[1][1]
	pe := row[0]*col[0] + row[1]*col[1]
	if pe >= 1 {
		return nan, nan, nan, nan, false
	}
	kappa = (po - pe) / (1 - pe)
	var sa, sb float64
	for i := range 2 {
		for j := range 2 {
			if i == j {
				d := 1 - (row[i]+col[i])*(1-kappa)
				sa += p[i][i] * d * d
			} else {
				s := col[i] + row[j]
				sb += p[i][j] * s * s
			}
		}
	}
	sb *= (1 - kappa) * (1 - kappa)
	c := kappa - pe*(1-kappa)
	// Rounding may take a variance of 0 (perfect agreement) just below it.
	v := math.Max(0, (sa+sb-c*c)/(n*(1-pe)*(1-pe)))
	se = math.Sqrt(v)
	return kappa, se, math.Max(-1, kappa-z*se), math.Min(1, kappa+z*se), true
}
