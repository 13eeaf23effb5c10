package result

import (
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/evalmd/evalmd/internal/aimd"
)

func TestUnshardName(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"output-s-m-ab12-shard2of4.json", "output-s-m-ab12.json"},
		{"output-s-m-ab12-epoch3-shard10of12.json", "output-s-m-ab12-epoch3.json"},
		{"output-s-m-shard1of1.json", "output-s-m.json"},
		{ShardName("output-a-b.json", 3, 7), "output-a-b.json"},
		{"output-s-m-ab12.json", "output-s-m-ab12.json"},
		{"output-s-m-shard5of4.json", "output-s-m-shard5of4.json"}, // no shard's name
		{"output-s-m-shard0of4.json", "output-s-m-shard0of4.json"},
		{"output-s-m-shard1of4.md", "output-s-m-shard1of4.md"},
		{"output-s-m-shard01of4.json", "output-s-m-shard01of4.json"},
	} {
		if got := unshardName(tc.in); got != tc.want {
			t.Errorf("unshardName(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// splitFile cuts f into n parts as n shards would write it: question i
// to the part ask(i) says, each with its position; each part's run
// started start[k] and took wall[k] seconds.
func splitFile(f *File, n int, ask func(i int) int, start []time.Time, wall []float64) []*File {
	parts := make([]*File, n)
	for k := range parts {
		p := &File{Sheet: f.Sheet, Questions: []Question{}}
		p.Sheet.Shard, p.Sheet.Shards = k+1, n
		p.Sheet.Created = start[k].Format(CreatedLayout)
		p.Sheet.Totals = &Totals{WallSeconds: wall[k]}
		parts[k] = p
	}
	for i, q := range f.Questions {
		p := parts[ask(i)]
		q.Position = i + 1
		p.Questions = append(p.Questions, q)
		t := p.Sheet.Totals
		t.Questions++
		t.Answered++
		t.InputTokens += q.InputTokens
		c := 0.5
		if t.Cost != nil {
			c += *t.Cost
		}
		t.Cost = &c
	}
	return parts
}

// The parts of a file merge into the file: its questions in sheet order
// (repeated names too), the shard and positions gone, the totals summed,
// the start the earliest part's, the wall time from it to the last end,
// the connection limits' changes in time order.
func TestMerge(t *testing.T) {
	t0 := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	s := func(x string) *string { return &x }
	whole := &File{Sheet: Sheet{Name: "S", RunID: "r1", ModelName: "m", Version: "v1"}}
	for i, name := range []string{"Q1", "Q2", "Q1", "Q3", "Q4", "Q5", "Q1"} {
		whole.Questions = append(whole.Questions, Question{Name: name, Completion: s(fmt.Sprint(i)), InputTokens: i})
	}
	start := []time.Time{t0.Add(2 * time.Second), t0, t0.Add(time.Second)}
	parts := splitFile(whole, 3, func(i int) int { return (i * 5 / 3) % 3 }, start, []float64{10, 5, 30})
	parts[0].Sheet.ConnectionLimits = []aimd.Change{{Time: t0.Add(3 * time.Second), Limit: 9, From: 10}}
	parts[2].Sheet.ConnectionLimits = []aimd.Change{{Time: t0.Add(time.Second), Limit: 10}, {Time: t0.Add(4 * time.Second), Limit: 8, From: 10}}

	got := MergeParts([]*File{parts[0], parts[1], parts[2]})
	if !reflect.DeepEqual(got.Questions, whole.Questions) {
		t.Errorf("questions:\n%+v\nwant\n%+v", got.Questions, whole.Questions)
	}
	sh := got.Sheet
	if sh.Shard != 0 || sh.Shards != 0 || sh.Name != "S" || sh.RunID != "r1" || sh.Version != "v1" {
		t.Errorf("sheet %+v", sh)
	}
	if sh.Created != t0.Format(CreatedLayout) {
		t.Errorf("created %s, want the earliest part's %s", sh.Created, t0.Format(CreatedLayout))
	}
	// Part 3 started at t0+1s and took 30 s: the run ended at t0+31s.
	want := Totals{Questions: 7, Answered: 7, InputTokens: 21, WallSeconds: 31}
	if tot := sh.Totals; tot == nil || tot.Cost == nil || *tot.Cost != 3.5 {
		t.Errorf("totals %+v, want a cost of 3.5", tot)
	} else if tot.Cost = nil; *tot != want {
		t.Errorf("totals %+v, want %+v", *tot, want)
	}
	var times []time.Duration
	for _, c := range sh.ConnectionLimits {
		times = append(times, c.Time.Sub(t0))
	}
	if !reflect.DeepEqual(times, []time.Duration{time.Second, 3 * time.Second, 4 * time.Second}) {
		t.Errorf("connection limit changes at %v", times)
	}
	for i, p := range parts {
		for _, q := range p.Questions {
			if q.Position == 0 {
				t.Errorf("part %d lost its positions", i+1)
			}
		}
	}
	// A part whose cost is unknown makes the whole's unknown.
	parts[1].Sheet.Totals.Cost = nil
	if c := MergeParts(parts).Sheet.Totals.Cost; c != nil {
		t.Errorf("cost %v with a part's unknown", *c)
	}
}

// Parts gives a run's whole once its last part is in, whatever the order
// they come in; a second copy of a part is named and not taken; Rest
// gives the runs with parts missing, saying which.
func TestParts(t *testing.T) {
	t0 := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	mk := func(run, model string, epoch int) *File {
		f := &File{Sheet: Sheet{Name: "S", RunID: run, ModelName: model, Epoch: epoch, Epochs: 2 * min(epoch, 1)}}
		for i := range 6 {
			f.Questions = append(f.Questions, Question{Name: fmt.Sprintf("Q%d", i)})
		}
		return f
	}
	starts := []time.Time{t0, t0, t0}
	walls := []float64{1, 1, 1}
	ask := func(i int) int { return i % 3 }
	a := splitFile(mk("r1", "m", 0), 3, ask, starts, walls)
	b := splitFile(mk("r1", "m2", 0), 3, ask, starts, walls)
	e2 := splitFile(mk("r1", "m", 2), 3, ask, starts, walls)
	dir := "out"
	path := func(f *File) string {
		return filepath.Join(dir, ShardName(EpochName(FileName("input-s.md", f.Sheet.ModelName, f.Sheet.RunID), max(f.Sheet.Epoch, 1), f.Sheet.Epochs), f.Sheet.Shard, f.Sheet.Shards))
	}
	var p Parts
	var wholes []string
	for _, f := range []*File{a[2], b[0], a[0], e2[1], b[1], a[0], a[1], b[2]} {
		w, dup := p.Add(path(f), f)
		if dup != "" && (f != a[0] || dup != path(a[0])) {
			t.Errorf("%s: a copy of %s", path(f), dup)
		}
		if w == nil {
			continue
		}
		wholes = append(wholes, filepath.ToSlash(w.Path))
		if len(w.File.Questions) != 6 || len(w.Parts) != 3 {
			t.Errorf("%s: %d questions from %v", w.Path, len(w.File.Questions), w.Parts)
		}
		for k, part := range w.Parts {
			if !strings.HasSuffix(part, fmt.Sprintf("-shard%dof3.json", k+1)) {
				t.Errorf("%s: parts %v, want them by shard", w.Path, w.Parts)
			}
		}
	}
	if want := []string{"out/output-s-m-r1.json", "out/output-s-m2-r1.json"}; !reflect.DeepEqual(wholes, want) {
		t.Errorf("wholes %v, want %v", wholes, want)
	}
	rest := p.Rest()
	if len(rest) != 1 || filepath.ToSlash(rest[0].Path) != "out/output-s-m-r1-epoch2.json" || !reflect.DeepEqual(rest[0].Missing, []int{1, 3}) ||
		rest[0].Shards != 3 || len(rest[0].File.Questions) != 2 {
		t.Errorf("rest %+v", rest)
	}
	if len(p.Rest()) != 0 {
		t.Error("Rest twice gave the runs twice")
	}
	// A run whose absent shard another run split alike has a part of (a
	// later run's, which superseded it) misses nothing.
	var later Parts
	r1 := splitFile(mk("r1", "m", 0), 3, ask, starts, walls)
	r2 := splitFile(mk("r2", "m", 0), 3, ask, starts, walls)
	for _, f := range []*File{r1[0], r1[2], r2[1]} {
		later.Add(path(f), f)
	}
	for _, w := range later.Rest() {
		if len(w.Missing) != 0 {
			t.Errorf("%s misses shards %v, which the other run has", w.Path, w.Missing)
		}
	}
	// Runs without an id are told apart by their folder.
	var q Parts
	noID := splitFile(mk("", "m", 0), 2, func(i int) int { return i % 2 }, starts, walls)
	if w, _ := q.Add(filepath.Join("x", "output-s-m-shard1of2.json"), noID[0]); w != nil {
		t.Error("a whole of one part of two")
	}
	if w, _ := q.Add(filepath.Join("y", "output-s-m-shard2of2.json"), noID[1]); w != nil {
		t.Error("parts of two folders put together though their run has no id")
	}
}

// A file put together from parts says where each question was read: its
// part and its index there, which Keep keeps; a file read whole says its
// own index.
func TestOrigin(t *testing.T) {
	s := func(x string) *string { return &x }
	var p Parts
	var w *Merged
	for k, qs := range [][]Question{{{Name: "Q2", Position: 2}, {Name: "Q3", Position: 3}}, {{Name: "Q1", Position: 1, Completion: s("a")}}} {
		f := &File{Sheet: Sheet{Name: "S", RunID: "r1", ModelName: "m", Shard: k + 1, Shards: 2}, Questions: qs}
		w, _ = p.Add(fmt.Sprintf("out/part%d.json", k+1), f)
	}
	if w == nil {
		t.Fatal("no whole of two parts of two")
	}
	want := []Origin{{"out/part2.json", 0}, {"out/part1.json", 0}, {"out/part1.json", 1}}
	for i, o := range want {
		if got := w.File.Origin(i); got != o || w.File.Questions[i].Name != fmt.Sprintf("Q%d", i+1) {
			t.Errorf("question %d (%s) read at %+v, want %+v", i, w.File.Questions[i].Name, got, o)
		}
	}
	w.File.Keep([]bool{false, true, true})
	if got := w.File.Origin(0); got != want[1] || len(w.File.Questions) != 2 {
		t.Errorf("after Keep: %d questions, the first read at %+v", len(w.File.Questions), got)
	}
	whole := &File{Questions: []Question{{Name: "A"}, {Name: "B"}, {Name: "C"}}}
	if whole.Origin(2) != (Origin{Index: 2}) {
		t.Errorf("a file read whole: question 2 at %+v", whole.Origin(2))
	}
	whole.Keep([]bool{true, false, true})
	if whole.Origin(1) != (Origin{Index: 2}) || whole.Questions[1].Name != "C" {
		t.Errorf("after Keep: question 1 (%s) at %+v", whole.Questions[1].Name, whole.Origin(1))
	}
}
