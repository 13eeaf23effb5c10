package runner

import (
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"golang.org/x/term"

	"github.com/evalmd/evalmd/model"
)

// progressEvery is how often the progress line is redrawn on a terminal:
// often enough to look alive, rarely enough to cost nothing next to the
// requests. plainEvery is how often a plain line is written elsewhere (a
// log file, a pipe): a few seconds apart, so a log stays readable.
const (
	progressEvery = 250 * time.Millisecond
	plainEvery    = 5 * time.Second
)

// progressWriter decides how the progress goes to w: an *os.File that is a
// terminal gets a line redrawn in place (tty), any other *os.File a plain
// line every plainEvery (a line redrawn with \r makes a mess of a log file
// or a pipe), any other writer (tests, a caller's own display) the
// redrawn line.
func progressWriter(w io.Writer) (out io.Writer, tty bool) {
	if w == nil {
		return nil, false
	}
	if f, ok := w.(*os.File); ok {
		if f == nil {
			return nil, false
		}
		return w, term.IsTerminal(int(f.Fd()))
	}
	return w, true
}

// IsTerminal reports whether w is a terminal, where the progress line is
// redrawn in place: a caller printing other lines meanwhile starts them
// with ClearLine.
func IsTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && f != nil && term.IsTerminal(int(f.Fd()))
}

// ClearLine, written first, clears a progress line drawn in place (\r
// returns to the line's start, ESC[K clears to its end).
const ClearLine = "\r\x1b[K"

// progress keeps the counts behind the progress line. It is used by the
// collector goroutine only.
type progress struct {
	w      io.Writer
	tty    bool
	start  time.Time
	models []*modelProgress // in the order of their first job
	by     map[string]*modelProgress

	drawn    bool // a line was written
	lastLine string
	lastDraw time.Time
}

// modelProgress is one model's share of the line.
type modelProgress struct {
	name   string
	total  int
	done   int // settled jobs, including journaled and cached ones
	live   int // settled by a model call in this run (the rate's basis)
	failed int
	inTok  int
	outTok int
	cost   float64
	// priced says whether cost is shown: "" for no cost at all (no
	// Options.Cost), "yes", or "unknown" for a model without a price.
	priced string
	// limit is the adaptive limit of the model's server (-c auto); nil
	// when the limit is fixed.
	limit func() int
}

func newProgress(w io.Writer, start time.Time, jobs Jobs, cost func(string, model.Response) (float64, bool)) *progress {
	p := &progress{start: start, by: map[string]*modelProgress{}}
	p.w, p.tty = progressWriter(w)
	for i := range jobs.Len() {
		name := jobs.Model(i).Name()
		mp := p.by[name]
		if mp == nil {
			mp = &modelProgress{name: name}
			if cost != nil {
				mp.priced = "unknown"
				if _, known := cost(name, model.Response{}); known {
					mp.priced = "yes"
				}
			}
			p.by[name] = mp
			p.models = append(p.models, mp)
		}
		mp.total++
	}
	return p
}

// line renders the progress line at time now: one part per model, named
// when there are several.
func (p *progress) line(now time.Time) string {
	parts := make([]string, len(p.models))
	for i, mp := range p.models {
		parts[i] = mp.line(now.Sub(p.start))
		if len(p.models) > 1 {
			parts[i] = mp.name + " " + parts[i]
		}
	}
	return strings.Join(parts, " | ")
}

func (mp *modelProgress) line(elapsed time.Duration) string {
	var b strings.Builder
	pct := 100.0
	if mp.total > 0 {
		pct = 100 * float64(mp.done) / float64(mp.total)
	}
	fmt.Fprintf(&b, "%d/%d %3.0f%%", mp.done, mp.total, pct)
	if el := elapsed.Seconds(); el > 0 && mp.live > 0 {
		rate := float64(mp.live) / el
		fmt.Fprintf(&b, "  %.1f q/s", rate)
		if left := mp.total - mp.done; left > 0 {
			eta := time.Duration(float64(left) / rate * float64(time.Second))
			fmt.Fprintf(&b, "  ETA %s", eta.Round(time.Second))
		}
	}
	if mp.limit != nil {
		fmt.Fprintf(&b, "  limit %d", mp.limit())
	}
	fmt.Fprintf(&b, "  tokens %s in %s out", human(mp.inTok), human(mp.outTok))
	switch mp.priced {
	case "yes":
		fmt.Fprintf(&b, "  $%.4f", mp.cost)
	case "unknown":
		b.WriteString("  cost unknown")
	}
	if mp.failed > 0 {
		fmt.Fprintf(&b, "  %d failed", mp.failed)
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

// tick is called every progressEvery: on a terminal the line is redrawn
// in place, elsewhere a plain line is written every plainEvery.
func (p *progress) tick(now time.Time) {
	switch {
	case p.w == nil:
	case p.tty:
		p.draw(now)
	case now.Sub(p.start) >= plainEvery && now.Sub(p.lastDraw) >= plainEvery:
		p.plain(now)
	}
}

// draw redraws the line in place. It redraws an unchanged line too, since
// a caller may have cleared it to print a line of its own.
func (p *progress) draw(now time.Time) {
	p.lastLine = p.line(now)
	p.drawn = true
	fmt.Fprintf(p.w, "%s%s", ClearLine, p.lastLine)
}

// plain writes the line as a line of its own, unless nothing changed.
func (p *progress) plain(now time.Time) {
	p.lastDraw = now
	if l := p.line(now); l != p.lastLine {
		p.lastLine = l
		p.drawn = true
		fmt.Fprintln(p.w, "progress: "+l)
	}
}

// finish draws the final state and ends the line. A plain log gets a
// final line only when it had progress lines before (a short run says
// nothing there).
func (p *progress) finish(now time.Time) {
	switch {
	case p.w == nil:
	case p.tty:
		p.draw(now)
		fmt.Fprintln(p.w)
	case p.drawn:
		p.plain(now)
	}
}
