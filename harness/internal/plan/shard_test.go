package plan

import (
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestParseShard(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Shard
		err  string
	}{
		{"1/4", Shard{1, 4}, ""},
		{"4/4", Shard{4, 4}, ""},
		{" 2 / 3 ", Shard{2, 3}, ""},
		{"1/1", Shard{1, 1}, ""},
		{"0/4", Shard{}, "--shard 0/4: shard 0 of 4: 1 to 4"},
		{"5/4", Shard{}, "shard 5 of 4: 1 to 4"},
		{"1/0", Shard{}, "shards 0: 1 to 10000"},
		{"1/10001", Shard{}, "shards 10001: 1 to 10000"},
		{"2", Shard{}, `--shard "2": give K/N`},
		{"a/b", Shard{}, "give K/N"},
		{"", Shard{}, "give K/N"},
	} {
		got, err := ParseShard(tc.in)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%q: %v, want an error with %q", tc.in, err, tc.err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("%q: %+v, %v; want %+v", tc.in, got, err, tc.want)
		}
	}
}

func TestSheetName(t *testing.T) {
	for _, tc := range []struct{ path, root, want string }{
		{filepath.Join("sheets", "x", "input-a.md"), "sheets", "x/input-a.md"},
		{filepath.Join("/mnt", "s", "x", "input-a.md"), filepath.Join("/mnt", "s"), "x/input-a.md"},
		{filepath.Join("sheets", "input-a.md"), "", "input-a.md"},
		{filepath.Join("/home", "u", "input-a.md"), "", "input-a.md"},
		{filepath.Join("other", "input-a.md"), "sheets", "input-a.md"}, // outside the root
	} {
		if got := SheetName(tc.path, tc.root); got != tc.want {
			t.Errorf("SheetName(%q, %q) = %q, want %q", tc.path, tc.root, got, tc.want)
		}
	}
}

// ShardOf is a hash of the item alone: these values are what every
// machine and every version computes, or shards of one run written by
// two versions would overlap and miss questions. (Computed apart, with
// Python's hashlib: sha256 of the fields joined by NUL, its first 8 bytes
// big-endian, mod n, plus 1.)
func TestShardOfIsFixed(t *testing.T) {
	for _, tc := range []struct {
		it   Item
		n    int
		want int
	}{
		{Item{Model: "m1", Sheet: "input-a.md", Epoch: 1, Name: "Q1"}, 4, 1},
		{Item{Model: "m1", Sheet: "input-a.md", Epoch: 2, Name: "Q1"}, 4, 1},
		{Item{Model: "m2", Sheet: "input-a.md", Epoch: 1, Name: "Q1"}, 4, 2},
		{Item{Model: "m1", Sheet: "x/input-a.md", Epoch: 1, Name: "Q1"}, 4, 3},
		{Item{Model: "m1", Sheet: "input-a.md", Epoch: 1, Name: "Q1", Occurrence: 1}, 4, 2},
		{Item{Model: "m1", Sheet: "input-a.md", Epoch: 1, Name: "Q1"}, 1, 1},
		{Item{Model: "m1", Sheet: "input-a.md", Epoch: 0, Name: "Q1"}, 4, 1}, // epoch 0 is 1
	} {
		if got := ShardOf(tc.it, tc.n); got != tc.want {
			t.Errorf("ShardOf(%+v, %d) = %d, want %d", tc.it, tc.n, got, tc.want)
		}
	}
}

// shardSheets are two sheets for the shard tests: one with a repeated
// name and questions of 3 epochs, one of 40 questions.
func shardSheets() []Sheet {
	a := Sheet{Path: filepath.Join("d", "input-a.md"), Key: "/abs/d/input-a.md"}
	for _, n := range []string{"A1", "A2", "A1", "A3", "A4"} {
		a.Questions = append(a.Questions, Question{Name: n, Epochs: 3})
	}
	b := Sheet{Path: filepath.Join("d", "x", "input-b.md"), Key: "/abs/d/x/input-b.md"}
	for i := range 40 {
		b.Questions = append(b.Questions, Question{Name: fmt.Sprintf("B%d", i)})
	}
	return []Sheet{a, b}
}

// workItems lists each job's questions as "model sheet epoch index", and
// the output files.
func workItems(jobs []Job) (items, outs []string) {
	for _, j := range jobs {
		outs = append(outs, filepath.ToSlash(j.OutPath))
		for _, q := range j.Questions {
			items = append(items, fmt.Sprintf("%s %d %d %d", j.Model, j.Sheet, j.Epoch, q))
		}
	}
	return items, outs
}

// The N shards of a run together ask every question of every sheet,
// model and epoch exactly once, each shard writes its part of every
// output, and the keys of a shard's questions are the whole run's.
func TestShardsSplitTheRun(t *testing.T) {
	sheets := shardSheets()
	base := Options{Models: []string{"m1", "m2"}, OutDir: "out", SheetRoot: "d", RunID: "ab12"}
	whole, err := Make(sheets, base)
	if err != nil {
		t.Fatal(err)
	}
	all, wholeOuts := workItems(whole)
	keyOf := map[string]string{}
	for _, j := range whole {
		for i, q := range j.Questions {
			keyOf[fmt.Sprintf("%s %d %d %d", j.Model, j.Sheet, j.Epoch, q)] = keys(sheets, j)[i]
		}
	}
	for _, n := range []int{1, 2, 3, 4, 7} {
		seen := map[string]int{}
		for k := 1; k <= n; k++ {
			opt := base
			opt.Shard = Shard{K: k, N: n}
			jobs, err := Make(sheets, opt)
			if err != nil {
				t.Fatal(err)
			}
			items, outs := workItems(jobs)
			if len(jobs) != len(whole) {
				t.Fatalf("shard %d/%d: %d jobs, want %d (every output has its part)", k, n, len(jobs), len(whole))
			}
			for i, o := range outs {
				want := strings.TrimSuffix(wholeOuts[i], ".json") + fmt.Sprintf("-shard%dof%d.json", k, n)
				if o != want {
					t.Errorf("shard %d/%d writes %s, want %s", k, n, o, want)
				}
			}
			for _, it := range items {
				seen[it]++
			}
			for _, j := range jobs {
				if j.Shard != opt.Shard {
					t.Errorf("shard %d/%d: job %s records shard %v", k, n, j.OutPath, j.Shard)
				}
				for i, q := range j.Questions {
					if it := fmt.Sprintf("%s %d %d %d", j.Model, j.Sheet, j.Epoch, q); keyOf[it] != keys(sheets, j)[i] {
						t.Errorf("shard %d/%d: %s keyed %q, the whole run %q", k, n, it, keys(sheets, j)[i], keyOf[it])
					}
				}
			}
		}
		for _, it := range all {
			if seen[it] != 1 {
				t.Errorf("%d shards: %s asked %d times, want once", n, it, seen[it])
			}
		}
		if len(seen) != len(all) {
			t.Errorf("%d shards ask %d items, the whole run %d", n, len(seen), len(all))
		}
	}
}

// A question's shard does not depend on where it stands: the sheets,
// models and questions of the run in another order, with others added
// and a subset taken, leave each question in its shard. So does a folder
// mounted elsewhere.
func TestShardIgnoresPositions(t *testing.T) {
	const n = 4
	sheets := shardSheets()
	shardOf := func(sheets []Sheet, opt Options) map[string]int {
		got := map[string]int{}
		for k := 1; k <= n; k++ {
			opt.Shard = Shard{K: k, N: n}
			jobs, err := Make(sheets, opt)
			if err != nil {
				t.Fatal(err)
			}
			for _, j := range jobs {
				for _, q := range j.Questions {
					s := sheets[j.Sheet]
					occ := 0
					for _, p := range s.Questions[:q] {
						if p.Name == s.Questions[q].Name {
							occ++
						}
					}
					got[fmt.Sprintf("%s %s %d %s#%d", j.Model, filepath.Base(s.Path), j.Epoch, s.Questions[q].Name, occ)] = k
				}
			}
		}
		return got
	}
	want := shardOf(sheets, Options{Models: []string{"m1", "m2"}, SheetRoot: "d"})

	moved := shardSheets()
	r := rand.New(rand.NewPCG(1, 2))
	b := &moved[1]
	r.Shuffle(len(b.Questions), func(i, j int) { b.Questions[i], b.Questions[j] = b.Questions[j], b.Questions[i] })
	b.Questions = append([]Question{{Name: "new"}}, b.Questions...)
	for i := range moved {
		moved[i].Path = filepath.Join("/mnt", "elsewhere", strings.TrimPrefix(moved[i].Path, "d"+string(filepath.Separator)))
	}
	slices.Reverse(moved)
	got := shardOf(moved, Options{Models: []string{"m3", "m2", "m1"}, SheetRoot: filepath.Join("/mnt", "elsewhere"), Subset: Subset{Questions: []string{"A*", "B1*", "B2*", "new"}}})
	checked := 0
	for item, k := range got {
		if w, ok := want[item]; ok {
			checked++
			if w != k {
				t.Errorf("%s: shard %d, was %d", item, k, w)
			}
		}
	}
	if checked < 50 {
		t.Errorf("only %d items compared", checked)
	}
	// The shards share the work out: none of 4 has less than half or more
	// than twice its share of the 2 x (5 x 3 + 40) items.
	count := map[int]int{}
	for _, k := range want {
		count[k]++
	}
	for k := 1; k <= n; k++ {
		if share := len(want) / n; count[k] < share/2 || count[k] > 2*share {
			t.Errorf("shard %d asks %d of %d items", k, count[k], len(want))
		}
	}
}
