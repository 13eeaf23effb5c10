package execute

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"time"

	"github.com/evalmd/evalmd/batch"
	"github.com/evalmd/evalmd/model"
	"github.com/evalmd/evalmd/runner"
	"github.com/evalmd/evalmd/solve"
)

// batchAPI returns the batch API of a model, unwrapping the code-mode
// wrapper.
func batchAPI(m model.Model) (model.BatchAPI, error) {
	if sm, ok := m.(*solve.Model); ok {
		m = sm.Inner
	}
	return batch.API(m)
}

// sendBatch answers a run's jobs through each model's batch API, in place
// of runner.Run: one batch manager per model, all at once, each with its
// journal beside the run's. Outcomes reach emit one at a time, with the
// batch that answered; a code-mode answer after its code ran (the same
// code as a live run's, solve.Model.Answered). With FallbackLive, what a
// batch could not answer goes live through the runner.
func sendBatch(ctx context.Context, eopt Options, js runner.Jobs, opt runner.Options,
	emit func(o runner.Outcome, batchID string)) (runner.Stats, error) {
	bj, err := groupBatchJobs(js)
	if err != nil {
		return runner.Stats{Jobs: js.Len()}, err
	}
	c := &batchCount{stats: runner.Stats{Jobs: js.Len()}, index: bj.index, emit: emit}
	s := &batchSend{eopt: eopt, opt: opt, reqs: bj.reqs, start: time.Now(), out: c.out}
	apis := make([]model.BatchAPI, len(bj.groups))
	for gi, g := range bj.groups {
		api, err := batchAPI(g.m)
		if err != nil {
			return c.stats, err
		}
		apis[gi] = api
	}
	errs := make([]error, len(bj.groups))
	var wg sync.WaitGroup
	for gi, g := range bj.groups {
		wg.Go(func() { errs[gi] = s.sendGroup(ctx, g, apis[gi]) })
	}
	wg.Wait()
	if ctx.Err() != nil {
		return c.stats, fmt.Errorf("%w: the batches keep running; rerun the same command to collect them", ctx.Err())
	}
	return c.stats, errors.Join(errs...)
}

// batchJobs are a run's jobs laid out for the batch APIs.
type batchJobs struct {
	// groups are the jobs of each model, in the order of its first job.
	groups []*batchGroup
	// reqs are the requests, and index the places of the jobs among
	// the run's, by key.
	reqs  map[string]model.Task
	index map[string]int
}

// batchGroup is the jobs of one model, sent through its batch API.
type batchGroup struct {
	name string
	m    model.Model
	jobs []batch.Job
}

// groupBatchJobs builds every job of js, since a batch is made of every
// request at once, and groups them by model.
func groupBatchJobs(js runner.Jobs) (batchJobs, error) {
	bj := batchJobs{reqs: make(map[string]model.Task, js.Len()), index: make(map[string]int, js.Len())}
	groups := map[string]*batchGroup{}
	for i := range js.Len() {
		j, err := js.Job(i)
		if err != nil {
			return bj, err
		}
		bj.index[j.Key] = i
		name := j.Model.Name()
		g := groups[name]
		if g == nil {
			g = &batchGroup{name: name, m: j.Model}
			groups[name] = g
			bj.groups = append(bj.groups, g)
		}
		g.jobs = append(g.jobs, batch.Job{Key: j.Key, Task: j.Task})
		bj.reqs[j.Key] = j.Task
	}
	return bj, nil
}

// batchCount counts the outcomes of every model's batches into the run's
// stats (runner.Stats) and hands each to emit with its job's place: one
// at a time, though the models' batches answer at once.
type batchCount struct {
	mu    sync.Mutex
	stats runner.Stats
	index map[string]int
	emit  func(o runner.Outcome, batchID string)
}

// out counts o, answered by batch batchID, and emits it.
func (c *batchCount) out(o runner.Outcome, batchID string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	switch {
	case o.Err == nil:
		c.stats.Answered++
	case errors.Is(o.Err, model.ErrNoAnswer):
		c.stats.NoAnswer++
	default:
		c.stats.Failed++
	}
	if o.FromJournal {
		c.stats.FromJournal++
	}
	c.stats.Calls += o.Attempts
	c.stats.InputTokens += o.Response.InputTokens
	c.stats.OutputTokens += o.Response.OutputTokens
	o.Index = c.index[o.Key]
	c.emit(o, batchID)
}

// batchSend is what sending each model's group needs: the run's options,
// its requests by key, when it started (each outcome's Elapsed) and
// where the outcomes go.
type batchSend struct {
	eopt  Options
	opt   runner.Options
	reqs  map[string]model.Task
	start time.Time
	out   func(o runner.Outcome, batchID string)
}

// batchDone is an outcome of a batch and when it came.
type batchDone struct {
	o  batch.Outcome
	at time.Time
}

// sendGroup sends g's jobs through api (batch.Run), with its journal
// beside the run's. Code runs beside the polling, on as many workers as
// the machine has cores.
func (s *batchSend) sendGroup(ctx context.Context, g *batchGroup, api model.BatchAPI) error {
	sm, _ := g.m.(*solve.Model)
	work := make(chan batchDone)
	var workers sync.WaitGroup
	for range max(1, runtime.NumCPU()) {
		workers.Go(func() {
			for d := range work {
				s.answer(ctx, g.name, sm, d)
			}
		})
	}
	bopt := batch.Options{Journal: batchJournal(s.opt.Journal, g.name), Model: g.name, BaseURL: g.m.Info().BaseURL, Poll: s.eopt.Batch.Poll,
		Progress: s.eopt.Console.W, Warn: func(msg string) { s.eopt.Console.Say("warning: %s", msg) }}
	if s.eopt.Batch.FallbackLive {
		bopt.Live = s.live(g.m)
	}
	s.eopt.Console.Say("%s: %d questions through its batch API (journal %s)", g.name, len(g.jobs), bopt.Journal)
	_, err := batch.Run(ctx, api, g.jobs, bopt, func(o batch.Outcome) { work <- batchDone{o, time.Now()} })
	close(work)
	workers.Wait()
	return err
}

// answer makes a batch outcome of model name the run's outcome: a chat
// answer as it came, a code-mode answer (sm not nil) after its code ran
// here.
func (s *batchSend) answer(ctx context.Context, name string, sm *solve.Model, d batchDone) {
	o := d.o
	if req := s.reqs[o.Key]; o.Err == nil && sm != nil && o.Response.Work == nil {
		// Chat requests pass through; code runs here.
		o.Response, o.Err = sm.Answered(ctx, req, o.Response)
	}
	ro := runner.Outcome{Key: o.Key, Model: name, Response: o.Response, Err: o.Err,
		Elapsed: d.at.Sub(s.start), FromJournal: o.FromJournal}
	if !o.FromJournal {
		ro.Attempts = 1
	}
	s.out(ro, o.BatchID)
}

// live is batch.Options.Live for --batch-fallback live: the jobs of m a
// batch could not answer are asked live through the runner, without the
// run's journal or progress, since the batch journal keeps the answers.
func (s *batchSend) live(m model.Model) func(ctx context.Context, js []batch.Job, emit func(batch.Outcome)) error {
	return func(ctx context.Context, js []batch.Job, emit func(batch.Outcome)) error {
		live := make([]runner.Job, len(js))
		for i, j := range js {
			live[i] = runner.Job{Key: j.Key, Task: j.Task, Model: m}
		}
		lopt := s.opt
		lopt.Journal, lopt.Progress = "", nil // the batch journal keeps the answers
		_, err := runner.Run(ctx, nil, live, lopt, func(o runner.Outcome) {
			emit(batch.Outcome{Key: o.Key, Response: o.Response, Err: o.Err})
		})
		return err
	}
}
