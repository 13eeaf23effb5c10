package stats

import "math/bits"

// LIME's Runs table is sort_values("run_id", ascending=False) on a pandas
// frame, and pandas sorts one column with numpy's default "quicksort", which
// is not stable: rows with equal run counts come out in an order that only
// numpy's introsort decides. The reference was made with numpy's classic
// (non-SIMD) introsort, so it is reproduced here step for step. Newer numpy
// builds on AVX-512 machines dispatch to another algorithm and would order
// ties differently; the reference, not those, is the target.

// npSmallQuicksort is numpy's SMALL_QUICKSORT: partitions at most this long
// are finished by insertion sort.
const npSmallQuicksort = 15

// npArgsortQuick returns numpy's v.argsort(kind="quicksort") for int64
// values.
func npArgsortQuick(v []int64) []int {
	idx := make([]int, len(v))
	for i := range idx {
		idx[i] = i
	}
	if len(v) < 2 {
		return idx
	}
	less := func(a, b int64) bool { return a < b }
	type span struct{ l, r, depth int }
	var stack []span
	pl, pr := 0, len(v)-1
	cdepth := (bits.Len(uint(len(v))) - 1) * 2 // npy_get_msb(num) * 2
	for {
		if cdepth < 0 {
			npAheapsort(v, idx[pl:pr+1])
		} else {
			for pr-pl > npSmallQuicksort {
				pm := pl + (pr-pl)>>1
				if less(v[idx[pm]], v[idx[pl]]) {
					idx[pm], idx[pl] = idx[pl], idx[pm]
				}
				if less(v[idx[pr]], v[idx[pm]]) {
					idx[pr], idx[pm] = idx[pm], idx[pr]
				}
				if less(v[idx[pm]], v[idx[pl]]) {
					idx[pm], idx[pl] = idx[pl], idx[pm]
				}
				vp := v[idx[pm]]
				pi, pj := pl, pr-1
				idx[pm], idx[pj] = idx[pj], idx[pm]
				for {
					pi++
					for less(v[idx[pi]], vp) {
						pi++
					}
					pj--
					for less(vp, v[idx[pj]]) {
						pj--
					}
					if pi >= pj {
						break
					}
					idx[pi], idx[pj] = idx[pj], idx[pi]
				}
				pk := pr - 1
				idx[pi], idx[pk] = idx[pk], idx[pi]
				// Push the larger partition, loop on the smaller.
				cdepth--
				if pi-pl < pr-pi {
					stack = append(stack, span{pi + 1, pr, cdepth})
					pr = pi - 1
				} else {
					stack = append(stack, span{pl, pi - 1, cdepth})
					pl = pi + 1
				}
			}
			// Insertion sort.
			for pi := pl + 1; pi <= pr; pi++ {
				vi := idx[pi]
				vp := v[vi]
				pj := pi
				for pj > pl && less(vp, v[idx[pj-1]]) {
					idx[pj] = idx[pj-1]
					pj--
				}
				idx[pj] = vi
			}
		}
		if len(stack) == 0 {
			break
		}
		top := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		pl, pr, cdepth = top.l, top.r, top.depth
	}
	return idx
}

// npAheapsort is numpy's aheapsort, used when introsort recurses too deep.
func npAheapsort(v []int64, tosort []int) {
	n := len(tosort)
	// numpy indexes the heap from 1.
	a := func(i int) *int { return &tosort[i-1] }
	for l := n >> 1; l > 0; l-- {
		tmp := *a(l)
		i, j := l, l<<1
		for j <= n {
			if j < n && v[*a(j)] < v[*a(j + 1)] {
				j++
			}
			if v[tmp] < v[*a(j)] {
				*a(i) = *a(j)
				i = j
				j += j
			} else {
				break
			}
		}
		*a(i) = tmp
	}
	for n > 1 {
		tmp := *a(n)
		*a(n) = *a(1)
		n--
		i, j := 1, 2
		for j <= n {
			if j < n && v[*a(j)] < v[*a(j + 1)] {
				j++
			}
			if v[tmp] < v[*a(j)] {
				*a(i) = *a(j)
				i = j
				j += j
			} else {
				break
			}
		}
		*a(i) = tmp
	}
}

// PdSortDescending is pandas' nargsort(values, kind="quicksort",
// ascending=False) for a column without NaN: reverse, argsort, reverse.
func PdSortDescending(v []int64) []int {
	n := len(v)
	rev := make([]int64, n)
	for i := range v {
		rev[i] = v[n-1-i]
	}
	order := npArgsortQuick(rev)
	out := make([]int, n)
	for i := range order {
		// order[i] indexes rev; rev[k] is v[n-1-k]; then reverse the result.
		out[n-1-i] = n - 1 - order[i]
	}
	return out
}
