package write

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"

	"github.com/evalmd/evalmd/internal/outfile"
	"github.com/evalmd/evalmd/result"
)

// Scratch is where a run puts its questions once settled, each encoded
// for its output file (result.EncodeQuestion) and for the markdown beside
// it (result.MarkdownQuestion), until their output is written: two
// scratch files for the run (outfile.Scratch), one for each, so an output
// of a million questions is never held in memory, only where each
// question lies (24 bytes a question), and each file written reads back
// only its own. One goroutine puts and reads.
type Scratch struct {
	json, md part
}

// part is one of a scratch's files.
type part struct {
	f    *os.File
	done func() error
	w    *bufio.Writer
	size int64
	r    reader
}

// NewScratch starts a run's scratch files beside the file at beside (the
// run's journal), making its folder if need be.
func NewScratch(beside string) (*Scratch, error) {
	if err := outfile.MkdirAll(filepath.Dir(beside), 0o755); err != nil {
		return nil, err
	}
	s := &Scratch{}
	for _, p := range []*part{&s.json, &s.md} {
		f, done, err := outfile.Scratch(beside)
		if err != nil {
			s.Close()
			return nil, fmt.Errorf("%s: %w", beside, err)
		}
		*p = part{f: f, done: done, w: bufio.NewWriterSize(f, 256<<10)}
	}
	return s, nil
}

// Close removes the scratch files.
func (s *Scratch) Close() error {
	if s == nil {
		return nil
	}
	var errs []error
	for _, p := range []*part{&s.json, &s.md} {
		if p.done != nil {
			errs = append(errs, p.done())
			p.done = nil
		}
	}
	return errors.Join(errs...)
}

// Spill is where the questions of one output of n questions go.
func (s *Scratch) Spill(n int) *Spill { return &Spill{s: s, at: make([]spilled, n)} }

// Spill is one output's questions in the run's Scratch, by their place in
// the output.
type Spill struct {
	s  *Scratch
	at []spilled
}

// spilled is where a question's encodings lie in the scratch files. A
// question not put yet has no JSON (an encoding is never empty).
type spilled struct {
	json, md int64 // offsets
	jsonLen  uint32
	mdLen    uint32
}

// PutQuestion puts question i, settled, whose record is q, of an output
// whose sheet record is sheet.
func (s *Spill) PutQuestion(sheet *result.Sheet, i int, q *result.Question) error {
	json, err := result.EncodeQuestion(q)
	if err != nil {
		return fmt.Errorf("question %q: %w", q.Name, err)
	}
	md := result.MarkdownQuestion(sheet, q)
	if len(json) == 0 || len(json) > math.MaxUint32 || len(md) > math.MaxUint32 {
		return fmt.Errorf("question %q: an encoding of %d bytes and a rendering of %d", q.Name, len(json), len(md))
	}
	jo, err := s.s.json.put(json)
	if err != nil {
		return err
	}
	mo, err := s.s.md.put(md)
	if err != nil {
		return err
	}
	s.at[i] = spilled{json: jo, md: mo, jsonLen: uint32(len(json)), mdLen: uint32(len(md))}
	return nil
}

// put appends data to the part and says where it starts.
func (p *part) put(data []byte) (int64, error) {
	at := p.size
	if _, err := p.w.Write(data); err != nil {
		return 0, err
	}
	p.size += int64(len(data))
	return at, nil
}

// Len is the number of questions of the output.
func (s *Spill) Len() int { return len(s.at) }

// JSON writes question i's encoding for the output file to w.
func (s *Spill) JSON(w io.Writer, i int) error {
	a, err := s.get(i)
	if err != nil {
		return err
	}
	return s.s.json.copy(w, a.json, int(a.jsonLen))
}

// Markdown writes question i's rendering for the markdown to w.
func (s *Spill) Markdown(w io.Writer, i int) error {
	a, err := s.get(i)
	if err != nil {
		return err
	}
	return s.s.md.copy(w, a.md, int(a.mdLen))
}

// get is where question i lies.
func (s *Spill) get(i int) (spilled, error) {
	a := s.at[i]
	if a.jsonLen == 0 {
		return a, fmt.Errorf("question %d of %d was never settled", i+1, len(s.at))
	}
	return a, nil
}

// copy writes n bytes of the part at off to w, all it holds written out
// first.
func (p *part) copy(w io.Writer, off int64, n int) error {
	if p.w.Buffered() > 0 {
		if err := p.w.Flush(); err != nil {
			return err
		}
	}
	return p.r.copy(w, p, off, n)
}

// reader reads a scratch file back in stretches: questions are put in
// about the order they are read back (answers arrive in about sheet
// order), but not quite: an output's are interleaved with those of the
// outputs asked beside it, and reused or journaled answers come first. So
// it keeps a few stretches, the least recently used one giving way, and
// sizes them by how much of a stretch was used: a stretch that served one
// question halves the next ones, one that served many doubles them.
type reader struct {
	wins [8]stretch
	size int
	tick uint64
}

// stretch is a part of a scratch file read at once.
type stretch struct {
	off  int64 // where buf starts in the file
	buf  []byte
	used int    // questions served
	last uint64 // when it last served one
}

// Sizes of a stretch read.
const (
	minStretch = 4 << 10
	maxStretch = 1 << 20
)

// copy writes n bytes of p's file at off to w. A stretch read starts a
// little before off: the question before may have been put after it.
func (r *reader) copy(w io.Writer, p *part, off int64, n int) error {
	r.tick++
	var lru *stretch
	for i := range r.wins {
		st := &r.wins[i]
		if st.buf != nil && off >= st.off && off+int64(n) <= st.off+int64(len(st.buf)) {
			st.used++
			st.last = r.tick
			_, err := w.Write(st.buf[off-st.off : off-st.off+int64(n)])
			return err
		}
		if lru == nil || st.last < lru.last {
			lru = st
		}
	}
	if r.size == 0 {
		r.size = maxStretch / 4
	}
	switch {
	case lru.buf == nil:
	case lru.used <= 1:
		r.size = max(r.size/2, minStretch)
	case lru.used >= 16:
		r.size = min(r.size*2, maxStretch)
	}
	start := max(0, off-int64(r.size/8))
	size := int(min(max(off-start+int64(n), int64(r.size)), p.size-start))
	if cap(lru.buf) < size {
		lru.buf = make([]byte, size)
	}
	lru.buf = lru.buf[:size]
	if _, err := p.f.ReadAt(lru.buf, start); err != nil && err != io.EOF {
		lru.buf = nil
		return err
	}
	lru.off, lru.used, lru.last = start, 1, r.tick
	_, err := w.Write(lru.buf[off-start : off-start+int64(n)])
	return err
}

// Has says whether question i was put.
func (s *Spill) Has(i int) bool { return s.at[i].jsonLen > 0 }
