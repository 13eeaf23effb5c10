package runner

import (
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"golang.org/x/term"
)

// progressEvery is how often the progress line is redrawn: often enough to
// look alive, rarely enough to cost nothing next to the requests.
const progressEvery = 250 * time.Millisecond

// progressWriter decides where the progress line goes: an *os.File only
// when it is a terminal (a line redrawn with \r makes a mess of a log
// file or a pipe), any other writer as it is (tests, a caller's own
// display).
func progressWriter(w io.Writer) io.Writer {
	if f, ok := w.(*os.File); ok {
		if f == nil || !term.IsTerminal(int(f.Fd())) {
			return nil
		}
	}
	return w
}

// progress keeps the counts behind the progress line. It is used by the
// collector goroutine only.
type progress struct {
	w     io.Writer
	start time.Time
	total int

	done     int // settled jobs, including journaled and cached ones
	live     int // settled by a model call in this run (the rate's basis)
	failed   int
	inTok    int
	outTok   int
	cost     float64
	hasCost  bool
	drawn    bool
	lastLine string
}

// line renders the progress line at time now.
func (p *progress) line(now time.Time) string {
	var b strings.Builder
	pct := 100.0
	if p.total > 0 {
		pct = 100 * float64(p.done) / float64(p.total)
	}
	fmt.Fprintf(&b, "%d/%d %3.0f%%", p.done, p.total, pct)
	el := now.Sub(p.start).Seconds()
	if el > 0 && p.live > 0 {
		rate := float64(p.live) / el
		fmt.Fprintf(&b, "  %.1f q/s", rate)
		if left := p.total - p.done; left > 0 {
			eta := time.Duration(float64(left) / rate * float64(time.Second))
			fmt.Fprintf(&b, "  ETA %s", eta.Round(time.Second))
		}
	}
	fmt.Fprintf(&b, "  tokens %s in %s out", human(p.inTok), human(p.outTok))
	if p.hasCost {
		fmt.Fprintf(&b, "  $%.4f", p.cost)
	}
	if p.failed > 0 {
		fmt.Fprintf(&b, "  %d failed", p.failed)
	}
	return b.String()
}

// human writes a count the way a person skims it: 950, 12.3k, 4.5M.
func human(n int) string {
	switch {
	case n < 1000:
		return fmt.Sprint(n)
	case n < 1_000_000:
		return fmt.Sprintf("%.1fk", float64(n)/1e3)
	default:
		return fmt.Sprintf("%.1fM", float64(n)/1e6)
	}
}

// draw redraws the line in place; it skips an unchanged line.
func (p *progress) draw(now time.Time) {
	if p.w == nil {
		return
	}
	l := p.line(now)
	if l == p.lastLine {
		return
	}
	p.lastLine = l
	p.drawn = true
	// \r returns to the line's start, ESC[K clears what a longer earlier
	// line left behind.
	fmt.Fprintf(p.w, "\r%s\x1b[K", l)
}

// finish draws the final state and ends the line.
func (p *progress) finish(now time.Time) {
	if p.w == nil {
		return
	}
	p.lastLine = ""
	p.draw(now)
	fmt.Fprintln(p.w)
}
