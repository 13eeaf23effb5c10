package load

import (
	"cmp"
	"crypto/sha256"
	"errors"
	"fmt"
	"os"
	"runtime"
	"slices"
	"sync"

	"github.com/evalmd/evalmd/internal/readfile"
	"github.com/evalmd/evalmd/result"
)

// A run split in shards (run --shard) is counted as the one file its
// parts make (result.Parts). A part (its name says so: result.ShardName)
// has only its sheet record read when its turn comes (scanPart); once the
// run's parts are in, they are read together a question at a time
// (mergeScan), so a run of a million questions in shards is not held
// whole, however many shards it was split in.

// scanPart takes the part at path, of which only its sheet record sheet
// was read, into the parts of its run, to be read a question at a time
// with them; false when its bytes' sum (a run without an id) cannot be
// read.
func (l *loader) scanPart(path string, sheet *result.Sheet) bool {
	var sum [sha256.Size]byte
	if sheet.RunID == "" {
		var err error
		if sum, err = fileSum(path); err != nil {
			return false
		}
	}
	if l.scanned == nil {
		l.scanned = map[string]bool{}
	}
	l.scanned[path] = true
	l.addPart(path, &result.File{Sheet: *sheet}, sum)
	return true
}

// countWhole counts a run put together from its shards' parts. When some
// part was read no further than its sheet record (scanPart), every part
// is read at once, a question at a time, in the order result.MergeParts
// puts their questions (mergeScan), into the same count as the file
// MergeParts makes; when that fails (a part result.ScanFile leaves to
// result.Parse, or whose questions are not in sheet order), what was
// counted is taken back and the parts are decoded whole and put
// together.
func (l *loader) countWhole(w result.Merged) {
	r := l.whole(w)
	scanned := false
	for _, p := range w.Parts {
		scanned = scanned || l.scanned[p]
		delete(l.scanned, p)
	}
	if !scanned {
		l.count(r)
		return
	}
	r.file.Questions = nil // those of the parts decoded whole: read again
	c := l.begin(r.path, &r.file.Sheet, r.sum, -1)
	err := mergeScan(w.Parts, func(q *result.Question) {
		q.Position = 0
		c.question(q)
	})
	if err == nil {
		c.end()
		return
	}
	c.rollback()
	if r.file = l.decodeParts(w.Parts); r.file != nil {
		l.count(r)
	}
}

// decodeParts decodes the parts at paths whole and puts them together
// (result.MergeNamed); a part that cannot be decoded is skipped and said,
// as any file, and nil is returned when none can.
func (l *loader) decodeParts(paths []string) *result.File {
	var files []*result.File
	var read []string
	for _, p := range paths {
		r, _ := decodeOne(p, nil, never)
		if r.err != nil {
			l.count(r)
			continue
		}
		files, read = append(files, r.file), append(read, p)
	}
	return result.MergeNamed(read, files)
}

// placed is a question of a run's parts where mergeScan reads it from:
// its place in the merge (result.MergeRank), its part and its span there.
type placed struct {
	at   int
	part int
	span result.Span
}

// mergeScan reads the parts at paths (of one run, in shard order) and
// hands question their questions in the order result.MergeParts puts
// them: by position, the earlier part's first on a tie, those without a
// position last in their parts' order. Each part is read once, a question
// at a time, for where its questions lie and their places (32 bytes a
// question); the places are sorted, and each question is read again from
// its part in that order. So a run in any number of shards is read with
// a file handle a part and no part held, and its parts need not be in
// sheet order. A part result.ScanPositions or QuestionAt cannot read,
// or one that changed since, is an error.
func mergeScan(paths []string, question func(*result.Question)) error {
	var order []placed
	for k, path := range paths {
		err := result.ScanPositions(path, func(*result.Sheet) error { return nil }, func(pos int, at result.Span) error {
			order = append(order, placed{result.MergeRank(pos), k, at})
			return nil
		})
		if err != nil {
			return err
		}
	}
	slices.SortStableFunc(order, func(a, b placed) int { return cmp.Or(cmp.Compare(a.at, b.at), cmp.Compare(a.part, b.part)) })
	files := make([]*os.File, len(paths))
	defer func() {
		for _, f := range files {
			if f != nil {
				f.Close()
			}
		}
	}()
	for k, path := range paths {
		f, err := readfile.Open(path)
		if err != nil {
			return err
		}
		files[k] = f
	}
	return readPlaced(files, order, question)
}

// readPlaced reads the questions at order from files and hands them to
// question in that order: decoded on every core, a chunk each, the chunks
// handed over in order (reading a question's bytes and decoding them cost
// about alike, as in result.ScanFile).
func readPlaced(files []*os.File, order []placed, question func(*result.Question)) error {
	type chunk struct {
		qs   []result.Question
		err  error
		done chan struct{}
	}
	workers := max(1, runtime.GOMAXPROCS(0))
	ordered, work := make(chan *chunk, workers), make(chan func(), workers)
	stop := make(chan struct{})
	go func() {
		defer close(ordered)
		defer close(work)
		for lo := 0; lo < len(order); lo += placedChunk {
			c, at := &chunk{done: make(chan struct{})}, order[lo:min(lo+placedChunk, len(order))]
			decode := func() {
				defer close(c.done)
				c.qs = make([]result.Question, len(at))
				for i, p := range at {
					c.qs[i], c.err = result.QuestionAt(files[p.part], p.span)
					if c.err == nil && result.MergeRank(c.qs[i].Position) != p.at {
						c.err = errors.New("a question's position not the one read first") // the part changed since
					}
					if c.err != nil {
						c.err = fmt.Errorf("%s: %w", files[p.part].Name(), c.err)
						return
					}
				}
			}
			for _, send := range []func() bool{
				func() bool { return trySend(work, decode, stop) },
				func() bool { return trySend(ordered, c, stop) },
			} {
				if !send() {
					return
				}
			}
		}
	}()
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for f := range work {
				f()
			}
		})
	}
	var err error
	for c := range ordered {
		if err != nil {
			continue // drained: the sender stops at its next chunk
		}
		<-c.done
		if err = c.err; err != nil {
			close(stop)
			continue
		}
		for i := range c.qs {
			question(&c.qs[i])
		}
	}
	wg.Wait()
	return err
}

// placedChunk is how many questions a chunk of readPlaced holds.
const placedChunk = 256

// trySend sends v on ch unless stop is closed first.
func trySend[T any](ch chan<- T, v T, stop <-chan struct{}) bool {
	select {
	case ch <- v:
		return true
	case <-stop:
		return false
	}
}
