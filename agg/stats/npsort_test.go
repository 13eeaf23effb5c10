package stats

import (
	"sort"
	"testing"
)

func TestNpArgsortQuick(t *testing.T) {
	// Sorted permutations for sizes on both sides of the insertion-sort
	// cutoff and with many ties.
	for _, n := range []int{0, 1, 2, 15, 16, 17, 23, 100, 1000} {
		v := make([]int64, n)
		for i := range v {
			v[i] = int64((i*7919 + 13) % 5)
		}
		idx := npArgsortQuick(v)
		seen := make([]bool, n)
		for i, j := range idx {
			if seen[j] {
				t.Fatalf("n=%d: index %d twice", n, j)
			}
			seen[j] = true
			if i > 0 && v[idx[i-1]] > v[j] {
				t.Fatalf("n=%d: not sorted at %d", n, i)
			}
		}
	}
}

// TestRunsOrderIsNotStable pins down why npArgsortQuick exists: on LIME's
// Runs counts (23 groups in groupby order) a stable descending sort would
// order the ties differently from pandas, which the reference shows.
func TestRunsOrderIsNotStable(t *testing.T) {
	counts := []int64{2, 1, 1, 1, 2, 1, 1, 1, 1, 1, 2, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1}
	got := PdSortDescending(counts)
	stable := make([]int, len(counts))
	for i := range stable {
		stable[i] = i
	}
	sort.SliceStable(stable, func(a, b int) bool { return counts[stable[a]] > counts[stable[b]] })
	same := true
	for i := range got {
		if got[i] != stable[i] {
			same = false
		}
	}
	if same {
		t.Fatal("numpy quicksort order equals the stable order; the reference says it should not")
	}
	for i := 1; i < len(got); i++ {
		if counts[got[i-1]] < counts[got[i]] {
			t.Fatalf("not descending at %d", i)
		}
	}
}
