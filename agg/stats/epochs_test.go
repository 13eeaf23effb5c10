package stats

import (
	"math"
	"testing"
)

// choose is C(n, k), computed the schoolbook way.
func choose(n, k int) float64 {
	if k < 0 || k > n {
		return 0
	}
	x := 1.0
	for i := 1; i <= k; i++ {
		x = x * float64(n-k+i) / float64(i)
	}
	return x
}

// TestReduce: pass@k is 1 - C(n-c,k)/C(n,k), computed here by hand on
// three questions of five answers (2, 0 and 4 right); majority on a tie
// is a half; ParseReducer refuses what it does not know. agg's
// TestReducers checks the models table's score under each reducer.
func TestReduce(t *testing.T) {
	right := []int{2, 0, 4} // of 5, per question
	for _, name := range []string{"pass@1", "pass@2", "pass@3", "pass@7"} {
		r, err := ParseReducer(name)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range right {
			got := r.Reduce(c, 5)
			if r.kind == reducePassAtK && r.k <= 5 {
				if formula := 1 - choose(5-c, r.k)/choose(5, r.k); math.Abs(got-formula) > 1e-12 {
					t.Errorf("%s of %d right in 5: %v, formula %v", name, c, got, formula)
				}
			}
		}
	}
	// Majority on a tie is a half.
	if got := (Reducer{kind: reduceMajority}).Reduce(2, 4); got != 0.5 {
		t.Errorf("majority of 2 in 4 = %v, want 0.5", got)
	}
	for _, bad := range []string{"pass@0", "pass@x", "median", "pass@"} {
		if _, err := ParseReducer(bad); err == nil {
			t.Errorf("ParseReducer(%q) accepted", bad)
		}
	}
}
