package load

import (
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"testing"

	"github.com/evalmd/evalmd/internal/testkit/outputs"
	"github.com/evalmd/evalmd/result"
)

// manyParts are the places of n parts' questions, ten a part, spread as
// a run's shards spread them.
func manyParts(n int) [][]int {
	at := make([][]int, n)
	for pos := 1; pos <= 10*n; pos++ {
		k := (pos * 7919) % n
		at[k] = append(at[k], pos)
	}
	return at
}

// mergeScan reads the parts of a run in the order result.MergeParts puts
// their questions: by position, the earlier part's first on a tie, those
// without a position last in their parts' order; parts out of that order
// and runs in many shards too.
func TestMergeScanIsMergeParts(t *testing.T) {
	for _, tc := range []struct {
		name string
		at   [][]int
		err  error
	}{
		{"interleaved", [][]int{{1, 4, 7}, {2, 5}, {3, 6, 8}}, nil},
		{"ties", [][]int{{1, 2, 2}, {2, 3}}, nil},
		{"without positions", [][]int{{1, 4, 0, 0}, {0, 0}, {2, 3, 5, 0}}, nil},
		{"empty parts", [][]int{{}, {1, 2}, {}}, nil},
		{"one part", [][]int{{1, 2, 3}}, nil},
		{"decreasing", [][]int{{1, 3}, {4, 2}}, nil},
		{"positioned after none", [][]int{{1, 0, 2}, {3}}, nil},
		{"many parts", manyParts(300), nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			parts := shardParts("s", "r1", tc.at)
			var paths []string
			for _, p := range parts {
				path := filepath.Join(dir, result.ShardName("output-s-m-r1.json", p.Sheet.Shard, p.Sheet.Shards))
				outputs.Write(t, path, p)
				paths = append(paths, path)
			}
			var got []string
			err := mergeScan(paths, func(q *result.Question) { got = append(got, *q.Completion) })
			if !errors.Is(err, tc.err) {
				t.Fatalf("mergeScan: %v, want %v", err, tc.err)
			}
			if err != nil {
				return
			}
			var want []string
			for _, q := range result.MergeParts(parts).Questions {
				want = append(want, *q.Completion)
			}
			if !slices.Equal(got, want) {
				t.Errorf("got %v, want %v", got, want)
			}
		})
	}
}

// shardParts are the parts of a run (id id) of sheet on model m in
// len(at) shards, part k's questions at the positions at[k] (0: none),
// each named after its position or, without one, its part and place; a
// nil at[k] is a part not written (nil).
func shardParts(sheet, id string, at [][]int) []*result.File {
	parts := make([]*result.File, len(at))
	for k, pos := range at {
		if pos == nil {
			continue
		}
		p := &result.File{Sheet: result.Sheet{Name: sheet, RunID: id, ModelName: "m", Shard: k + 1, Shards: len(at)}, Questions: []result.Question{}}
		for i, n := range pos {
			name := fmt.Sprintf("Q%d", n)
			if n == 0 {
				name = fmt.Sprintf("U%d.%d", k+1, i)
			}
			c, g := fmt.Sprintf("answer %d.%d", k+1, i), (n+k+i)%3 != 0
			p.Questions = append(p.Questions, result.Question{Name: name, Question: "ask " + name, Completion: &c, ModelName: "m",
				Grade: &g, Position: n, InputTokens: 10 + n, RequestKey: name})
		}
		parts[k] = p
	}
	return parts
}
