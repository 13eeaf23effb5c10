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
	type group struct {
		m    model.Model
		jobs []batch.Job
	}
	var order []string
	groups := map[string]*group{}
	// A batch is made of every request at once: each is built now.
	reqs := make(map[string]model.Task, js.Len())
	index := make(map[string]int, js.Len())
	for i := range js.Len() {
		j, err := js.Job(i)
		if err != nil {
			return runner.Stats{Jobs: js.Len()}, err
		}
		index[j.Key] = i
		name := j.Model.Name()
		g := groups[name]
		if g == nil {
			g = &group{m: j.Model}
			groups[name] = g
			order = append(order, name)
		}
		g.jobs = append(g.jobs, batch.Job{Key: j.Key, Task: j.Task})
		reqs[j.Key] = j.Task
	}
	var mu sync.Mutex
	stats := runner.Stats{Jobs: js.Len()}
	start := time.Now()
	out := func(o runner.Outcome, batchID string) {
		mu.Lock()
		defer mu.Unlock()
		switch {
		case o.Err == nil:
			stats.Answered++
		case errors.Is(o.Err, model.ErrNoAnswer):
			stats.NoAnswer++
		default:
			stats.Failed++
		}
		if o.FromJournal {
			stats.FromJournal++
		}
		stats.Calls += o.Attempts
		stats.InputTokens += o.Response.InputTokens
		stats.OutputTokens += o.Response.OutputTokens
		o.Index = index[o.Key]
		emit(o, batchID)
	}
	apis := make([]model.BatchAPI, len(order))
	for gi, name := range order {
		api, err := batchAPI(groups[name].m)
		if err != nil {
			return stats, err
		}
		apis[gi] = api
	}
	errs := make([]error, len(order))
	var wg sync.WaitGroup
	for gi, name := range order {
		g, api := groups[name], apis[gi]
		sm, _ := g.m.(*solve.Model)
		wg.Go(func() {
			// Code runs beside the polling, on as many workers as the
			// machine has cores.
			type done struct {
				o  batch.Outcome
				at time.Time
			}
			work := make(chan done)
			var workers sync.WaitGroup
			for range max(1, runtime.NumCPU()) {
				workers.Go(func() {
					for d := range work {
						o := d.o
						if req := reqs[o.Key]; o.Err == nil && sm != nil && o.Response.Work == nil {
							// Chat requests pass through; code runs here.
							o.Response, o.Err = sm.Answered(ctx, req, o.Response)
						}
						ro := runner.Outcome{Key: o.Key, Model: name, Response: o.Response, Err: o.Err,
							Elapsed: d.at.Sub(start), FromJournal: o.FromJournal}
						if !o.FromJournal {
							ro.Attempts = 1
						}
						out(ro, o.BatchID)
					}
				})
			}
			bopt := batch.Options{Journal: batchJournal(opt.Journal, name), Model: name, BaseURL: g.m.Info().BaseURL, Poll: eopt.Batch.Poll,
				Progress: eopt.Console.W, Warn: func(msg string) { eopt.Console.Say("warning: %s", msg) }}
			if eopt.Batch.FallbackLive {
				bopt.Live = func(ctx context.Context, js []batch.Job, emit func(batch.Outcome)) error {
					live := make([]runner.Job, len(js))
					for i, j := range js {
						live[i] = runner.Job{Key: j.Key, Task: j.Task, Model: g.m}
					}
					lopt := opt
					lopt.Journal, lopt.Progress = "", nil // the batch journal keeps the answers
					_, err := runner.Run(ctx, nil, live, lopt, func(o runner.Outcome) {
						emit(batch.Outcome{Key: o.Key, Response: o.Response, Err: o.Err})
					})
					return err
				}
			}
			eopt.Console.Say("%s: %d questions through its batch API (journal %s)", name, len(g.jobs), bopt.Journal)
			_, errs[gi] = batch.Run(ctx, api, g.jobs, bopt, func(o batch.Outcome) { work <- done{o, time.Now()} })
			close(work)
			workers.Wait()
		})
	}
	wg.Wait()
	if ctx.Err() != nil {
		return stats, fmt.Errorf("%w: the batches keep running; rerun the same command to collect them", ctx.Err())
	}
	return stats, errors.Join(errs...)
}
