package plan

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/evalmd/evalmd/result"
)

// Shard is a share of a run split over several machines (run --shard
// K/N): the questions of every sheet, model and epoch whose work item
// hashes to shard K of N. The zero Shard is the whole run.
type Shard struct {
	K, N int
}

// ParseShard reads "K/N", K from 1 to N, as Playwright's and Jest's
// --shard take it.
func ParseShard(s string) (Shard, error) {
	k, n, ok := strings.Cut(s, "/")
	ki, kerr := strconv.Atoi(strings.TrimSpace(k))
	ni, nerr := strconv.Atoi(strings.TrimSpace(n))
	if !ok || kerr != nil || nerr != nil {
		return Shard{}, fmt.Errorf("--shard %q: give K/N, this machine's share K of N (1/4 to 4/4)", s)
	}
	sh := Shard{K: ki, N: ni}
	if err := sh.Check(); err != nil {
		return Shard{}, fmt.Errorf("--shard %s: %w", s, err)
	}
	return sh, nil
}

// IsZero says the shard is the whole run.
func (s Shard) IsZero() bool { return s.N == 0 }

// Check refuses a shard outside 1..N, and N outside 1..result.MaxShards.
func (s Shard) Check() error { return result.CheckShard(s.K, s.N) }

func (s Shard) String() string { return fmt.Sprintf("%d/%d", s.K, s.N) }

// Item names one work item of a run: a question of a sheet asked of a
// model in an epoch. Sheet is the sheet's path below the -d folder, or its
// file name (SheetName); Occurrence tells apart questions of one name in
// a sheet (0 for the first, as LIME lets a name repeat).
type Item struct {
	Model, Sheet string
	Epoch        int
	Name         string
	Occurrence   int
}

// ShardOf is the shard (1..n) that asks the item: a hash of what names
// it, never its place in a list, so an item falls in the same shard on
// every machine and at every rerun, whatever the other sheets, models
// and questions of the run.
func ShardOf(it Item, n int) int {
	if n <= 1 {
		return 1
	}
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%s\x00%d\x00%s\x00%d", it.Model, it.Sheet, max(it.Epoch, 1), it.Name, it.Occurrence)
	return int(binary.BigEndian.Uint64(h.Sum(nil))%uint64(n)) + 1
}

// SheetName is a sheet as shards name it: its path below root (the -d
// folder), slash-separated, or its file name when there is no root or it
// lies outside. Machines that mount the sheets at other places agree on
// it.
func SheetName(path, root string) string {
	if root != "" {
		if rel, err := filepath.Rel(root, path); err == nil && !strings.HasPrefix(rel, "..") {
			return filepath.ToSlash(rel)
		}
	}
	return filepath.Base(path)
}

// occurrences is, for each question of a sheet, how many before it have
// its name.
func occurrences(qs []Question) []int {
	seen := make(map[string]int, len(qs))
	occ := make([]int, len(qs))
	for i, q := range qs {
		occ[i] = seen[q.Name]
		seen[q.Name]++
	}
	return occ
}
