package stats

import (
	"math"
	"testing"
)

func near(a, b, tol float64) bool { return math.Abs(a-b) <= tol }

func TestWilson(t *testing.T) {
	// Expected values computed independently from the closed form in Python.
	tests := []struct {
		k, n   int
		lo, hi float64
	}{
		{5, 10, 0.236593090512564, 0.7634069094874361},
		{0, 10, 0, 0.2775327998628892},
		{33, 59, 0.43289354829158677, 0.678497882323879},
		{10, 10, 1 - 0.2775327998628892, 1},
	}
	for _, tt := range tests {
		lo, hi := wilson(tt.k, tt.n)
		if !near(lo, tt.lo, 1e-12) || !near(hi, tt.hi, 1e-12) {
			t.Errorf("Wilson(%d, %d) = [%v, %v], want [%v, %v]", tt.k, tt.n, lo, hi, tt.lo, tt.hi)
		}
	}
	if lo, hi := wilson(0, 0); !math.IsNaN(lo) || !math.IsNaN(hi) {
		t.Errorf("Wilson(0, 0) = [%v, %v], want NaN", lo, hi)
	}
}

func TestStderr(t *testing.T) {
	tests := []struct {
		k, n int
		want float64
	}{
		{5, 10, math.Sqrt(0.25 / 9)}, // np.std([1]*5+[0]*5, ddof=1)/sqrt(10)
		{1, 4, math.Sqrt(0.25 * 0.75 / 3)},
		{1, 1, 0}, // Inspect returns 0 below two samples
		{0, 0, 0},
		{7, 7, 0},
	}
	for _, tt := range tests {
		if got := inspectStderr(tt.k, tt.n); !near(got, tt.want, 1e-15) {
			t.Errorf("Stderr(%d, %d) = %v, want %v", tt.k, tt.n, got, tt.want)
		}
	}
}

func TestMcNemarExact(t *testing.T) {
	tests := []struct {
		b, c int
		want float64
	}{
		{5, 22, 0.0015137195587158203}, // 2 * sum(C(27,k), k<=5) / 2^27
		{8, 1, 0.0390625},
		{1, 8, 0.0390625},
		{3, 2, 1},
		{0, 10, 0.001953125},
		{0, 0, 1},
	}
	for _, tt := range tests {
		if got := McNemarExact(tt.b, tt.c); !near(got, tt.want, 1e-12) {
			t.Errorf("McNemarExact(%d, %d) = %v, want %v", tt.b, tt.c, got, tt.want)
		}
	}
	// Large counts must neither overflow nor underflow to garbage.
	if p := McNemarExact(50000, 50000); !(p > 0.99 && p <= 1) {
		t.Errorf("McNemarExact(50000, 50000) = %v, want about 1", p)
	}
	if p := McNemarExact(40000, 60000); p != 0 && p > 1e-100 {
		t.Errorf("McNemarExact(40000, 60000) = %v, want tiny", p)
	}
}

// inspectStderr is Inspect AI's stderr metric on 0/1 scores: the sample
// standard deviation (ddof=1) over sqrt(n), which for k of n correct is
// sqrt(p(1-p)/(n-1)); Inspect returns 0 when n < 2.
func inspectStderr(k, n int) float64 {
	if n < 2 {
		return 0
	}
	p := float64(k) / float64(n)
	return math.Sqrt(p * (1 - p) / float64(n-1))
}

// wilson returns the Wilson score interval for k successes in n trials at
// 95%. It is used rather than the normal approximation because it stays
// inside [0, 1] and behaves at 0% and 100%, which small sheets hit often.
// With n == 0 it returns (NaN, NaN).
func wilson(k, n int) (lo, hi float64) { return WilsonZ(k, n, Z95) }
