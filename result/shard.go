package result

import (
	"cmp"
	"maps"
	"math"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"time"

	"github.com/evalmd/evalmd/internal/aimd"
)

// shardSuffix is what ShardName adds to a name.
var shardSuffix = regexp.MustCompile(`-shard([1-9][0-9]*)of([1-9][0-9]*)\.json$`)

// unshardName is the name of the file one machine would have written for
// the run of which name is a shard's part (ShardName's inverse); any
// other name is itself.
// IsShardName says whether name is that of a shard's part (ShardName).
func IsShardName(name string) bool { return unshardName(name) != name }

func unshardName(name string) string {
	m := shardSuffix.FindStringSubmatchIndex(name)
	if m == nil {
		return name
	}
	k, _ := strconv.Atoi(name[m[2]:m[3]])
	n, _ := strconv.Atoi(name[m[4]:m[5]])
	if CheckShard(k, n) != nil {
		return name
	}
	return name[:m[0]] + ".json"
}

// Parts gathers the parts of runs split in shards (Sheet.Shards) as
// output files are read, and gives back each run's whole file, as one
// machine would have written it, once its last part is in. The zero
// Parts is ready to use.
type Parts struct {
	groups map[partKey]*partGroup
	order  []partKey
	// seen are the shards read of each split file (a sheet, model and
	// epoch in N shards), whatever their run.
	seen map[partKey]map[int]bool
}

// Merged is a run's file put together from its shards' parts.
type Merged struct {
	// Path is where one machine would have written it: the first part's
	// folder, and its name without the shard (unshardName).
	Path  string
	File  *File
	Parts []string // the parts' paths, by shard
	// Shards is the run's number of shards; Missing are those of which
	// no part was read (Parts.Rest), of this run or of another run split
	// alike (a later run that asked that shard's questions again, whose
	// part superseded this run's).
	Shards  int
	Missing []int
}

// partKey is what the parts of one file share: the run, sheet, model and
// epoch, and the number of shards; a run without an id is told by its
// folder too.
type partKey struct {
	runID, sheet, sheetFile, model, dir string
	epoch, shards                       int
}

type partGroup struct {
	files map[int]*File
	paths map[int]string
}

// Add takes f, a shard's part read from path. It returns the whole once
// the run's last part is in; dup is the path of the part of the same
// shard already read when f is a second copy of it, which is not taken.
func (p *Parts) Add(path string, f *File) (w *Merged, dup string) {
	sh := &f.Sheet
	key := partKey{runID: sh.RunID, sheet: sh.Name, sheetFile: sh.SheetFile, model: sh.ModelLabel(), epoch: max(sh.Epoch, 1), shards: sh.Shards}
	if sh.RunID == "" {
		key.dir = filepath.Dir(path)
	}
	if p.groups == nil {
		p.groups = map[partKey]*partGroup{}
	}
	g := p.groups[key]
	if g == nil {
		g = &partGroup{files: map[int]*File{}, paths: map[int]string{}}
		p.groups[key] = g
		p.order = append(p.order, key)
	}
	if prev, ok := g.paths[sh.Shard]; ok {
		return nil, prev
	}
	split := key
	split.runID, split.dir = "", ""
	if p.seen == nil {
		p.seen = map[partKey]map[int]bool{}
	}
	if p.seen[split] == nil {
		p.seen[split] = map[int]bool{}
	}
	p.seen[split][sh.Shard] = true
	g.files[sh.Shard], g.paths[sh.Shard] = f, path
	if len(g.files) < sh.Shards {
		return nil, ""
	}
	delete(p.groups, key)
	whole := g.merge()
	return &whole, ""
}

// Rest gives back the runs some of whose parts were never read, each
// put together from the parts there are, in the order their first part
// came, and empties p. Missing says which shards no run split alike has
// a part of.
func (p *Parts) Rest() []Merged {
	var out []Merged
	for _, key := range p.order {
		g, ok := p.groups[key]
		if !ok {
			continue
		}
		w := g.merge()
		split := key
		split.runID, split.dir = "", ""
		for k := 1; k <= key.shards; k++ {
			if !p.seen[split][k] {
				w.Missing = append(w.Missing, k)
			}
		}
		out = append(out, w)
	}
	p.groups, p.order, p.seen = nil, nil, nil
	return out
}

// merge puts the group's parts together (MergeParts).
func (g *partGroup) merge() Merged {
	shards := slices.Sorted(maps.Keys(g.files))
	parts := make([]*File, len(shards))
	w := Merged{Shards: g.files[shards[0]].Sheet.Shards}
	for i, k := range shards {
		parts[i] = g.files[k]
		w.Parts = append(w.Parts, g.paths[k])
	}
	w.Path = filepath.Join(filepath.Dir(w.Parts[0]), unshardName(filepath.Base(w.Parts[0])))
	w.File = MergeNamed(w.Parts, parts)
	return w
}

// MergeParts puts the parts of one run's file, one per shard in shard
// order, together as one machine would have written it: the sheet record
// mergeSheets makes of theirs, and the questions in sheet order
// (Question.Position, taken out). Parts without positions keep their
// order after the others. agg reads big parts a question at a time in
// this order instead.
func MergeParts(parts []*File) *File {
	f, _ := mergeParts(parts)
	return f
}

// mergeParts is MergeParts, and where each question of the file came
// from: its part's index in parts (Origin.Part left "") and its index
// there.
func mergeParts(parts []*File) (*File, []partAt) {
	if len(parts) == 0 {
		return nil, nil
	}
	sheets := make([]*Sheet, len(parts))
	var at []partAt
	for i, p := range parts {
		sheets[i] = &p.Sheet
		for j := range p.Questions {
			at = append(at, partAt{part: i, index: j})
		}
	}
	slices.SortStableFunc(at, func(a, b partAt) int {
		return cmp.Compare(MergeRank(parts[a.part].Questions[a.index].Position), MergeRank(parts[b.part].Questions[b.index].Position))
	})
	f := &File{Sheet: mergeSheets(sheets), extra: parts[0].extra}
	f.Questions = make([]Question, len(at))
	for i, a := range at {
		f.Questions[i] = parts[a.part].Questions[a.index]
		f.Questions[i].Position = 0
	}
	return f, at
}

// MergeNamed is MergeParts of the parts read from paths, each question's
// Origin naming its part and its index there.
func MergeNamed(paths []string, parts []*File) *File {
	f, at := mergeParts(parts)
	if f == nil {
		return nil
	}
	f.origins = make([]Origin, len(at))
	for i, a := range at {
		f.origins[i] = Origin{Part: paths[a.part], Index: a.index}
	}
	return f
}

// partAt is where mergeParts took a question: its part and its index.
type partAt struct{ part, index int }

// Origin is where a question was read: of a file Parts put together, its
// part's path (Merged.Parts) and its index there; of any other file,
// Part is "" and Index the question's index in the file as read.
type Origin struct {
	Part  string
	Index int
}

// Origin says where f's question i was read (Origin), so that a reader
// showing a question of a file Parts made names the file it is in, and a
// question after Keep took others out keeps its index.
func (f *File) Origin(i int) Origin {
	if f.origins == nil {
		return Origin{Index: i}
	}
	return f.origins[i]
}

// Keep keeps the questions of f that keep (one per question) says to
// keep, in order; each keeps its Origin.
func (f *File) Keep(keep []bool) {
	if f.origins == nil {
		f.origins = make([]Origin, len(f.Questions))
		for i := range f.origins {
			f.origins[i].Index = i
		}
	}
	n := 0
	for i := range f.Questions {
		if keep[i] {
			f.Questions[n], f.origins[n] = f.Questions[i], f.origins[i]
			n++
		}
	}
	clear(f.Questions[n:])
	f.Questions, f.origins = f.Questions[:n], f.origins[:n]
}

// MergeRank is what a question of a shard's part at position pos is
// sorted by in the file its parts make (MergeParts): its position, and
// those without one (0) last.
func MergeRank(pos int) int {
	if pos <= 0 {
		return math.MaxInt
	}
	return pos
}

// mergeSheets is the sheet record of the file the parts whose sheet
// records are sheets (in shard order) make: the first part's with the
// shard taken out, the run's start the earliest part's and its totals
// summed (mergeTotals), the connection limits' changes in time order.
func mergeSheets(sheets []*Sheet) Sheet {
	s := *sheets[0]
	s.Shard, s.Shards = 0, 0
	s.Totals = mergeTotals(sheets)
	var start time.Time
	for _, p := range sheets {
		if t, ok := p.StartTime(); ok && (start.IsZero() || t.Before(start)) {
			start, s.Created = t, p.Created
		}
	}
	s.ConnectionLimits = nil
	for _, p := range sheets {
		s.ConnectionLimits = append(s.ConnectionLimits, p.ConnectionLimits...)
	}
	slices.SortStableFunc(s.ConnectionLimits, func(a, b aimd.Change) int { return a.Time.Compare(b.Time) })
	return s
}

// mergeTotals sums the parts' totals: nil when none has any, the cost
// null unless every part's is known, the wall time from the earliest
// start to the latest end (the longest part's when the starts are not
// recorded).
func mergeTotals(sheets []*Sheet) *Totals {
	var t *Totals
	costKnown := true
	var first, end time.Time
	for _, p := range sheets {
		pt := p.Totals
		if pt == nil {
			costKnown = false
			continue
		}
		if t == nil {
			t = &Totals{}
		}
		t.Questions += pt.Questions
		t.Answered += pt.Answered
		t.Errors += pt.Errors
		t.AddTokens(pt)
		if pt.CacheSaved != nil {
			c := *pt.CacheSaved
			if t.CacheSaved != nil {
				c += *t.CacheSaved
			}
			t.CacheSaved = &c
		}
		if pt.Cost == nil {
			costKnown = false
		} else {
			c := *pt.Cost
			if t.Cost != nil {
				c += *t.Cost
			}
			t.Cost = &c
		}
		t.WallSeconds = max(t.WallSeconds, pt.WallSeconds)
		if s, ok := p.StartTime(); ok {
			if first.IsZero() || s.Before(first) {
				first = s
			}
			if e := s.Add(time.Duration(pt.WallSeconds * float64(time.Second))); e.After(end) {
				end = e
			}
		}
	}
	if t == nil {
		return nil
	}
	if !costKnown {
		t.Cost = nil
	}
	if !first.IsZero() {
		t.WallSeconds = end.Sub(first).Seconds()
	}
	return t
}
