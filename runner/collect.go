package runner

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/evalmd/evalmd/model"
)

// collector is the single goroutine's side of a run: it emits outcomes
// (journaled already, by the worker that got each), keeps the totals, syncs
// the journal and draws the progress line. Only Run's goroutine touches it,
// so it needs no locks.
type collector struct {
	opt  Options
	emit func(Outcome)
	st   Stats
	p    *progress
	r    *run
}

func newCollector(r *run, jobs Jobs, emit func(Outcome)) *collector {
	opt := r.opt
	c := &collector{
		opt:  opt,
		emit: emit,
		st:   Stats{Jobs: jobs.Len()},
		p:    newProgress(opt.Progress, opt.Now(), jobs, opt.Cost),
		r:    r,
	}
	for name, mp := range c.p.by {
		if lim := r.lanes[name].pool.adaptive; lim != nil {
			mp.limit = lim.Limit
		}
	}
	return c
}

// resume emits the jobs the journal answered for the same request and
// returns the indices of the others; nil, for a new run, is every job.
func (c *collector) resume(jobs Jobs, recs map[string]journalRecord) (pending []int, err error) {
	if len(recs) == 0 {
		return nil, nil // a new run: nothing to compare or copy
	}
	pending = []int{}
	var stale []string
	old := 0
	for i := range jobs.Len() {
		key := jobs.Key(i)
		rec, ok := recs[key]
		switch {
		case !ok:
			pending = append(pending, i)
			continue
		case rec.Version < journalVersion:
			old++
			pending = append(pending, i)
			continue
		}
		j, err := jobs.Job(i)
		if err != nil {
			return nil, err
		}
		if rec.Fingerprint != c.r.fingerprint(j) {
			stale = append(stale, key)
			pending = append(pending, i)
			continue
		}
		o := rec.outcome()
		o.Index, o.Model = i, j.Model.Name()
		c.settle(o)
	}
	if old > 0 {
		c.opt.Warn(fmt.Sprintf("journal %s: %d answers were journaled by an older evalmd, whose request fingerprints were made differently; asking them again",
			c.opt.Journal, old))
	}
	if len(stale) > 0 {
		// One warning, not one per job: a changed model name or base URL
		// makes every record stale at once.
		c.opt.Warn(fmt.Sprintf("journal %s: %d answered requests changed since (model, base URL, prompt or settings); asking them again: %s",
			c.opt.Journal, len(stale), someOf(stale, 3)))
	}
	return pending, nil
}

// someOf lists the first n items and says how many more there are.
func someOf(items []string, n int) string {
	if len(items) <= n {
		return strings.Join(items, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(items[:n], ", "), len(items)-n)
}

// settle counts an outcome and hands it to the caller.
func (c *collector) settle(o Outcome) {
	st, p := &c.st, c.p.by[o.Model]
	p.done++
	switch {
	case o.Err == nil:
		st.Answered++
	case errors.Is(o.Err, model.ErrNoAnswer):
		st.NoAnswer++
	default:
		st.Failed++
		p.failed++
	}
	if o.FromJournal {
		st.FromJournal++
	}
	if o.Cached {
		st.Cached++
	}
	if !o.FromJournal && !o.Cached {
		p.live++
	}
	st.InputTokens += o.Response.InputTokens
	st.OutputTokens += o.Response.OutputTokens
	p.inTok += o.Response.InputTokens
	p.outTok += o.Response.OutputTokens
	if c.opt.Cost != nil && o.Err == nil {
		if cost, known := c.opt.Cost(o.Model, o.Response); known {
			st.Cost += cost
			p.cost += cost
		}
	}
	c.emit(o)
}

// loop settles outcomes from done until it is closed, and syncs the
// journal every syncEvery while anything was written.
func (c *collector) loop(done <-chan Outcome) {
	var tick <-chan time.Time
	if c.p.w != nil {
		t := time.NewTicker(progressEvery)
		defer t.Stop()
		tick = t.C
		c.p.tick(c.opt.Now())
	}
	jr := c.r.journal
	var syncC <-chan time.Time
	if jr != nil {
		t := time.NewTicker(syncEvery)
		defer t.Stop()
		syncC = t.C
	}
	for {
		select {
		case <-tick:
			c.p.tick(c.opt.Now())
		case <-syncC:
			if err := jr.sync(); err != nil {
				c.r.stop(err)
			}
		case o, ok := <-done:
			if !ok {
				if jr != nil {
					if err := jr.sync(); err != nil {
						c.r.stop(err)
					}
				}
				c.p.finish(c.opt.Now())
				return
			}
			c.settle(o)
		}
	}
}
