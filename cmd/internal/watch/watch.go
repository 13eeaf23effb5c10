// Package watch notices that files changed by polling their modification
// times and sizes. It asks the operating system for no notification: that
// would need a dependency, differs by system, and misses changes on network
// file systems, while a few stats a second cost nothing next to a model
// call.
//
// A change is reported once the files have stayed the same for one poll
// (the debounce): an editor's save, or a run writing several output files,
// is one change, not several.
package watch

import (
	"context"
	"os"
	"slices"
	"time"
)

// DefaultInterval is the time between two polls when Watcher.Interval is 0.
const DefaultInterval = 300 * time.Millisecond

// stamp is what is compared of a file: a save changes one or the other.
type stamp struct {
	modTime time.Time
	size    int64
}

// Watcher watches the files List names. It is not safe for use by several
// goroutines at once.
type Watcher struct {
	// List names the files to watch. It is called on every poll, so a
	// file that appears in a folder is seen; a file listed that cannot
	// be stat'ed counts as absent.
	List func() []string
	// Interval is the time between polls, and the time the files must
	// stay unchanged before a change is reported; 0 means
	// DefaultInterval.
	Interval time.Duration

	last map[string]stamp // the state changes are measured from
}

// Mark takes the files' present state as the one that the next change is
// measured from. Call it before the work that reads the files, so that a
// save made during that work is a change.
func (w *Watcher) Mark() { w.last = w.state() }

// Next waits until the files differ from the state marked last (by Mark or
// by the previous Next) and then stay the same for one interval, marks
// that state, and returns the files that changed, appeared or disappeared,
// sorted. It returns ctx's error when ctx ends first.
func (w *Watcher) Next(ctx context.Context) ([]string, error) {
	if w.last == nil {
		w.Mark()
	}
	interval := w.Interval
	if interval <= 0 {
		interval = DefaultInterval
	}
	tick := time.NewTicker(interval)
	defer tick.Stop()
	var pending map[string]stamp // a changed state, waiting to settle
	for {
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-tick.C:
		}
		now := w.state()
		switch {
		case pending == nil:
			if len(diff(w.last, now)) > 0 {
				pending = now
			}
		case len(diff(pending, now)) > 0:
			pending = now // still changing
		default:
			changed := diff(w.last, now)
			w.last = now
			if len(changed) > 0 { // else it changed back
				return changed, nil
			}
			pending = nil
		}
	}
}

// state stats every file listed.
func (w *Watcher) state() map[string]stamp {
	s := map[string]stamp{}
	for _, p := range w.List() {
		if st, err := os.Stat(p); err == nil {
			s[p] = stamp{st.ModTime(), st.Size()}
		}
	}
	return s
}

// diff lists the files whose stamps differ between a and b, or that only
// one of them holds, sorted.
func diff(a, b map[string]stamp) []string {
	var out []string
	for p, sa := range a {
		if sb, ok := b[p]; !ok || !sa.modTime.Equal(sb.modTime) || sa.size != sb.size {
			out = append(out, p)
		}
	}
	for p := range b {
		if _, ok := a[p]; !ok {
			out = append(out, p)
		}
	}
	slices.Sort(out)
	return out
}
