package agg

import (
	"crypto/sha256"
	"errors"
	"iter"

	"github.com/evalmd/evalmd/result"
)

// A run split in shards (run --shard) is counted as the one file its
// parts make (result.Parts). A part past streamAbove has only its sheet
// record read when its turn comes (scanPart); once the run's parts are
// in, they are read together a question at a time (mergeScan), so a run
// of a million questions in shards is not held whole. The size is a
// part's, as for any file, because it is known before the part is
// decoded and its run is not: the parts of one run are about alike, and
// parts of a run in many shards each below it are decoded whole and put
// together as before.

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
func (l *loader) countWhole(w result.Whole) {
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
// (result.MergeParts); a part that cannot be decoded is skipped and said,
// as any file, and nil is returned when none can.
func (l *loader) decodeParts(paths []string) *result.File {
	var files []*result.File
	for _, p := range paths {
		r, _ := decodeOne(p, nil, never)
		if r.err != nil {
			l.count(r)
			continue
		}
		files = append(files, r.file)
	}
	return result.MergeParts(files)
}

// errUnordered stops mergeScan at a part whose questions are not in sheet
// order; errStopped stops a part's scan that mergeScan no longer reads.
var (
	errUnordered = errors.New("a shard's part not in sheet order")
	errStopped   = errors.New("stopped")
)

// scannedPart is a part mergeScan reads: its next question, q (nil at
// its end), and that question's place in the merge (result.PartOrder).
type scannedPart struct {
	next func() (*result.Question, bool)
	q    *result.Question
	at   int
	err  error // the scan's, at its end
}

// mergeScan reads the parts at paths (of one run, in shard order) a
// question at a time and hands question their questions in the order
// result.MergeParts puts them: each part's being in that order, the
// question first of those at hand, the earlier part's on a tie. A part
// whose questions are not in that order is an error (errUnordered), as is
// one result.ScanFile cannot read.
func mergeScan(paths []string, question func(*result.Question)) error {
	parts := make([]*scannedPart, len(paths))
	for i, path := range paths {
		p := &scannedPart{}
		next, stop := iter.Pull(p.scan(path))
		defer stop()
		p.next = next
		if err := p.advance(); err != nil {
			return err
		}
		parts[i] = p
	}
	for {
		var first *scannedPart
		for _, p := range parts {
			if p.q != nil && (first == nil || p.at < first.at) {
				first = p
			}
		}
		if first == nil {
			return nil
		}
		question(first.q)
		if err := first.advance(); err != nil {
			return err
		}
	}
}

// scan is the questions of the part at path, its error kept in p.err.
func (p *scannedPart) scan(path string) iter.Seq[*result.Question] {
	return func(yield func(*result.Question) bool) {
		p.err = result.ScanFile(path, func(*result.Sheet) error { return nil }, func(q *result.Question, _ result.Span) error {
			if !yield(q) {
				return errStopped
			}
			return nil
		})
	}
}

// advance moves p to its next question.
func (p *scannedPart) advance() error {
	q, ok := p.next()
	if !ok {
		p.q = nil
		return p.err
	}
	at := result.PartOrder(q.Position)
	if at < p.at {
		return errUnordered
	}
	p.q, p.at = q, at
	return nil
}
