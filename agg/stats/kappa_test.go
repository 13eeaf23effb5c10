package stats

import (
	"math"
	"testing"
)

// The expected figures are worked out by hand from the formulas, in the
// comments, apart from the code.
func TestKappa(t *testing.T) {
	tests := []struct {
		name      string
		a         Agreement
		observed  float64
		kappa, se float64
		lo, hi    float64
		undefined bool // kappa is undefined
	}{
		{
			// n 20; p = [[.45 .15] [.05 .35]]; rows .6 .4, columns .5 .5;
			// po .8, pe .6*.5 + .4*.5 = .5, kappa .3/.5 = .6;
			// A = .45 (1 - 1.1*.4)^2 + .35 (1 - .9*.4)^2 = .14112 + .14336 = .28448
			// B = .4^2 (.15 (.5+.4)^2 + .05 (.5+.6)^2) = .16 * .182 = .02912
			// C = (.6 - .5*.4)^2 = .16
			// var = (.28448 + .02912 - .16) / (20 * .5^2) = .1536 / 5 = .03072
			name: "9 3 1 7", a: Agreement{9, 3, 1, 7}, observed: 0.8, kappa: 0.6, se: math.Sqrt(0.03072),
			lo: 0.6 - Z95*math.Sqrt(0.03072), hi: 0.6 + Z95*math.Sqrt(0.03072),
		},
		{
			// p = [[.5 0] [0 .5]]: po 1, pe .5, kappa 1;
			// A = .5 (1 - 0)^2 * 2 = 1, B = 0, C = (1 - 0)^2 = 1: var 0.
			name: "perfect", a: Agreement{5, 0, 0, 5}, observed: 1, kappa: 1, se: 0, lo: 1, hi: 1,
		},
		{
			// p = [[0 .5] [.5 0]]: po 0, pe .5, kappa -1;
			// A = 0, B = 2^2 (.5 (.5+.5)^2 * 2) = 4, C = (-1 - .5*2)^2 = 4: var 0.
			name: "opposite", a: Agreement{0, 2, 2, 0}, observed: 0, kappa: -1, se: 0, lo: -1, hi: -1,
		},
		{
			// A always right, B half: p = [[.5 .5] [0 0]]; rows 1 0, columns .5 .5;
			// po .5, pe .5, kappa 0;
			// A = .5 (1 - 1.5)^2 = .125, B = .5 (.5 + 0)^2 = .125, C = .25: var 0.
			name: "one rater constant", a: Agreement{5, 5, 0, 0}, observed: 0.5, kappa: 0, se: 0, lo: 0, hi: 0,
		},
		{name: "all right by both: pe 1", a: Agreement{BothRight: 4}, observed: 1, undefined: true},
		{name: "all wrong by both: pe 1", a: Agreement{BothWrong: 3}, observed: 1, undefined: true},
		{name: "none", a: Agreement{}, observed: math.NaN(), undefined: true},
	}
	same := func(a, b float64) bool { return math.IsNaN(a) && math.IsNaN(b) || near(a, b, 1e-12) }
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.a.Observed(); !same(got, tt.observed) {
				t.Errorf("Observed = %v, want %v", got, tt.observed)
			}
			k, se, lo, hi, ok := tt.a.Kappa(Z95)
			if tt.undefined {
				if ok || !math.IsNaN(k) || !math.IsNaN(se) || !math.IsNaN(lo) || !math.IsNaN(hi) {
					t.Errorf("Kappa = %v %v [%v, %v] %v, want undefined", k, se, lo, hi, ok)
				}
				return
			}
			if !ok || !same(k, tt.kappa) || !same(se, tt.se) || !same(lo, tt.lo) || !same(hi, tt.hi) {
				t.Errorf("Kappa = %v se %v [%v, %v] %v, want %v se %v [%v, %v]", k, se, lo, hi, ok, tt.kappa, tt.se, tt.lo, tt.hi)
			}
		})
	}
}

// Kappa and its error do not depend on which rater is A; the interval
// stays in [-1, 1].
func TestKappaSymmetricAndBounded(t *testing.T) {
	for _, a := range []Agreement{{9, 3, 1, 7}, {1, 0, 0, 1}, {30, 1, 9, 2}, {0, 3, 1, 0}, {2, 1, 1, 0}} {
		swapped := Agreement{a.BothRight, a.OnlyB, a.OnlyA, a.BothWrong}
		k1, se1, _, _, ok1 := a.Kappa(Z95)
		k2, se2, _, _, ok2 := swapped.Kappa(Z95)
		if ok1 != ok2 || !near(k1, k2, 1e-12) || !near(se1, se2, 1e-12) {
			t.Errorf("%v: kappa %v se %v; swapped %v se %v", a, k1, se1, k2, se2)
		}
		if _, _, lo, hi, _ := a.Kappa(Z95); lo < -1 || hi > 1 || lo > hi {
			t.Errorf("%v: interval [%v, %v]", a, lo, hi)
		}
	}
}
