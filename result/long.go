package result

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"io"

	"github.com/evalmd/evalmd/model"
)

// MaxString bounds a string in an output file as written, its escapes
// counted: twice run --max-reply's default (model.DefaultMaxReply), so
// that the text of a reply, escaped again, fits. Readers refuse a file
// holding a longer one, having held no more than about this much of it:
// one planted 300 MB completion made agg take 1.4 GB, -html 2.1 GB.
const MaxString = 2 * model.DefaultMaxReply

// ErrLongString is wrapped by the error for a file holding a string past
// MaxString.
var ErrLongString = errors.New("string too long")

// stringGuard follows the strings of JSON text fed to it in pieces,
// failing at the first longer than MaxString. It tells strings from the
// rest by their quotes alone: JSON that is not valid is the decoder's to
// refuse.
type stringGuard struct {
	max         int // MaxString when 0
	in, escaped bool
	n           int   // bytes of the string at hand so far
	start, off  int64 // where it starts; the bytes fed before this piece
}

// feed follows p, the text's next piece.
func (g *stringGuard) feed(p []byte) error {
	limit := cmp.Or(g.max, MaxString)
	quote := -1 // the place in p of the next '"' at or after i, len(p) when none
	for i := 0; i < len(p); {
		switch {
		case g.escaped:
			g.escaped = false
			i++
			g.n++
		case !g.in:
			j := bytes.IndexByte(p[i:], '"')
			if j < 0 {
				i = len(p)
				continue
			}
			i += j + 1
			g.in, g.n, g.start = true, 0, g.off+int64(i-1)
			continue
		default:
			if quote < i {
				quote = i + bytes.IndexByte(p[i:], '"')
				if quote < i {
					quote = len(p)
				}
			}
			if b := bytes.IndexByte(p[i:quote], '\\'); b >= 0 {
				g.n += b + 1
				i += b + 1
				g.escaped = true
			} else {
				g.n += quote - i
				i = quote
				if i < len(p) {
					g.in = false
					i++
				}
			}
		}
		if g.n > limit {
			return fmt.Errorf("%w: more than %d MiB at byte %d (readers take at most %d MiB, twice run --max-reply's default)",
				ErrLongString, limit>>20, g.start, limit>>20)
		}
	}
	g.off += int64(len(p))
	return nil
}

// GuardStrings is r failing, with an error wrapping ErrLongString, once
// what it read holds a string past MaxString: a reader of output files
// that reads one whole stops there, not at its end.
func GuardStrings(r io.Reader) io.Reader { return &guardedReader{r: r} }

// guardedReader is r read through a stringGuard.
type guardedReader struct {
	r io.Reader
	g stringGuard
}

func (r *guardedReader) Read(p []byte) (int, error) {
	// A MiB at a time: one read of a whole file would have held it all
	// before its first string was seen.
	n, err := r.r.Read(p[:min(len(p), 1<<20)])
	if gerr := r.g.feed(p[:n]); gerr != nil {
		return 0, gerr
	}
	return n, err
}

// checkStrings refuses data holding a string past MaxString, naming its
// line as Parse's errors do.
func checkStrings(data []byte) error {
	var g stringGuard
	if err := g.feed(data); err != nil {
		return fmt.Errorf(":%d: %w", 1+bytes.Count(data[:g.start], []byte("\n")), err)
	}
	return nil
}
