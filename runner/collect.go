package runner

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/evalmd/evalmd/model"
)

// collector is the single goroutine's side of a run: it journals
// outcomes, emits them, keeps the totals and draws the progress line. Only
// Run's goroutine touches it, so it needs no locks.
type collector struct {
	opt  Options
	emit func(Outcome)
	st   Stats
	p    *progress

	journal *journal // nil without a journal
	// fingerprint is a job's request fingerprint, by job key, for its
	// record. It is computed when a record needs it, not for every job
	// before the first request: a thousand of them would hold up the
	// start by milliseconds.
	fingerprint func(key string) string
	fatal       error // the journal's first failure
	stopWorkers func()
}

func newCollector(r *run, jobs []Job, emit func(Outcome)) *collector {
	opt := r.opt
	c := &collector{
		opt:  opt,
		emit: emit,
		st:   Stats{Jobs: len(jobs)},
		p:    newProgress(opt.Progress, opt.Now(), jobs, opt.Cost),
	}
	for name, mp := range c.p.by {
		if lim := r.lanes[name].pool.adaptive; lim != nil {
			mp.limit = lim.Limit
		}
	}
	return c
}

// resume emits the jobs the journal answered for the same request and
// returns the others.
func (c *collector) resume(jobs []Job, recs map[string]journalRecord) (pending []Job) {
	if len(recs) == 0 {
		return jobs // a new run: nothing to compare or copy
	}
	pending = make([]Job, 0, len(jobs))
	var stale []string
	old := 0
	for _, j := range jobs {
		rec, ok := recs[j.Key]
		switch {
		case !ok:
			pending = append(pending, j)
		case rec.Version < journalVersion:
			old++
			pending = append(pending, j)
		case rec.Fingerprint != c.fingerprint(j.Key):
			stale = append(stale, j.Key)
			pending = append(pending, j)
		default:
			o := rec.outcome()
			o.Model = j.Model.Name()
			c.settle(o)
		}
	}
	if old > 0 {
		c.opt.Warn(fmt.Sprintf("journal %s: %d answers were journaled by an older evalmd, whose request keys did not cover the model's server; asking them again",
			c.opt.Journal, old))
	}
	if len(stale) > 0 {
		// One warning, not one per job: a changed model name or base URL
		// makes every record stale at once.
		c.opt.Warn(fmt.Sprintf("journal %s: %d answered requests changed since (model, base URL, prompt or settings); asking them again: %s",
			c.opt.Journal, len(stale), someOf(stale, 3)))
	}
	return pending
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

// fail records the journal's first failure and stops the workers: answers
// received from now on could not be kept for a resume, so paying for more
// is wasted. Those in hand are still emitted, so the caller can write them.
func (c *collector) fail(err error) {
	if c.fatal == nil {
		c.fatal = err
		c.stopWorkers()
	}
}

// loop settles outcomes from done until it is closed.
func (c *collector) loop(done <-chan Outcome) {
	var tick <-chan time.Time
	if c.p.w != nil {
		t := time.NewTicker(progressEvery)
		defer t.Stop()
		tick = t.C
		c.p.tick(c.opt.Now())
	}
	// syncC fires syncEvery after the first write not yet fsynced.
	var syncC <-chan time.Time
	syncT := time.NewTimer(syncEvery)
	syncT.Stop()
	defer syncT.Stop()

	batch := make([]Outcome, 0, cap(done)+1)
	for open := true; open; {
		select {
		case <-tick:
			c.p.tick(c.opt.Now())
			continue
		case <-syncC:
			syncC = nil
			if c.fatal == nil {
				if err := c.journal.sync(); err != nil {
					c.fail(err)
				}
			}
			continue
		case o, ok := <-done:
			if !ok {
				open = false
				break
			}
			// Take whatever else has arrived too: one write for all.
			batch = append(batch[:0], o)
		drain:
			for len(batch) < cap(batch) {
				select {
				case o, ok := <-done:
					if !ok {
						open = false
						break drain
					}
					batch = append(batch, o)
				default:
					break drain
				}
			}
		}
		if c.write(batch) && syncC == nil {
			syncT.Reset(syncEvery)
			syncC = syncT.C
		}
		for _, o := range batch {
			c.settle(o)
		}
		batch = batch[:0]
	}
	if c.journal != nil && c.fatal == nil {
		if err := c.journal.sync(); err != nil {
			c.fatal = err
		}
	}
	c.p.finish(c.opt.Now())
}

// write journals the settled answers of a batch (final errors are not
// journaled: a resume asks them again) and reports whether it wrote.
func (c *collector) write(batch []Outcome) bool {
	if c.journal == nil || c.fatal != nil {
		return false
	}
	now := c.opt.Now()
	for _, o := range batch {
		if o.Err == nil || errors.Is(o.Err, model.ErrNoAnswer) {
			if err := c.journal.add(recordOf(o, c.fingerprint(o.Key), now)); err != nil {
				c.fail(err)
				return false
			}
		}
	}
	wrote, err := c.journal.write()
	if err != nil {
		c.fail(err)
	}
	return wrote
}
