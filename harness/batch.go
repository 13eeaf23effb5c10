package harness

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/evalmd/evalmd/batch"
	"github.com/evalmd/evalmd/internal/outfile"
	"github.com/evalmd/evalmd/model"
	"github.com/evalmd/evalmd/result"
	"github.com/evalmd/evalmd/runner"
	"github.com/evalmd/evalmd/solve"
	"github.com/evalmd/evalmd/tokens"
)

// BatchConfig is run --batch: the questions go through the providers'
// batch APIs (OpenAI's Batches, Anthropic's Message Batches) at batch
// prices instead of live calls.
type BatchConfig struct {
	// FallbackLive answers requests a batch failed for a passing reason or
	// let expire live, instead of in a new batch (--batch-fallback live).
	FallbackLive bool
	// Poll is the wait between status checks; 0 is the batch package's
	// default.
	Poll time.Duration
}

// batchAPI returns the batch API of a model (unwrapping the code-mode
// wrapper), or an error naming the model when it has none.
func batchAPI(m model.Model) (model.BatchAPI, error) {
	inner := m
	if sm, ok := m.(*solve.Model); ok {
		inner = sm.Inner
	}
	b, ok := inner.(model.Batcher)
	if !ok {
		return nil, fmt.Errorf("--batch: model %s has no batch API (OpenAI-compatible servers with the Files and Batches APIs, and Anthropic, have one)", m.Name())
	}
	api, err := b.Batch()
	if err != nil {
		return nil, fmt.Errorf("--batch: %w", err)
	}
	return api, nil
}

// checkBatchModes refuses agent-mode questions in a batch run: a batch
// answers one completion per request, an agent makes many.
func checkBatchModes(plan []*outputJob) error {
	for _, job := range plan {
		for i, r := range job.Requests {
			if r.Solve != nil && r.Solve.Mode == model.ModeAgent {
				return fmt.Errorf("%s: question %q is in agent mode (many model calls, each on the last one's result), which a batch cannot answer; run it without --batch, or with --mode code or chat",
					job.SheetPath, job.Output.Questions[i].Name)
			}
		}
	}
	return nil
}

// batchJobs are the batch jobs of a model's questions, keyed as a run
// keys them (so a dry run's custom_ids are the real run's).
func batchJobs(plan []*outputJob, modelName string) []batch.Job {
	var out []batch.Job
	for _, job := range plan {
		if job.Model != modelName {
			continue
		}
		keys := jobKeys(job)
		for i, r := range job.Requests {
			out = append(out, batch.Job{Key: keys[i], Request: r})
		}
	}
	return out
}

// writeBatchFiles writes, for a dry run with --batch, each model's request
// files as they would be submitted (split at the provider's limits) into
// dir, and says what they would cost at batch prices.
func writeBatchFiles(cfg Config, models []string, plan []*outputJob, dir, runID string) error {
	for _, name := range models {
		// A dry run calls no server: a placeholder key lets a model be
		// made to build its request lines without one.
		opt := cfg.Model
		if opt.APIKey == "" {
			opt.APIKey = "dry-run-no-key"
		}
		m, err := cfg.NewModel(name, opt)
		if err != nil {
			return err
		}
		api, err := batchAPI(m)
		if err != nil {
			return err
		}
		jobs := batchJobs(plan, name)
		files, err := batch.Plan(api, jobs, model.BatchLimits{})
		if err != nil {
			return err
		}
		base := "batch-requests-" + result.SafeName(name)
		if runID != "" {
			base += "-" + result.SafeName(runID)
		}
		size := 0
		for i, f := range files {
			path := filepath.Join(dir, fmt.Sprintf("%s-%d.jsonl", base, i+1))
			if err := outfile.Write(path, f.Lines, outfile.Options{Force: cfg.Force}); err != nil {
				return err
			}
			size += len(f.Lines)
			cfg.say("%s: wrote %s (%d requests)", name, path, len(f.IDs))
		}
		cfg.say("%s: %d requests in %d batch files (%.1f MB); %s", name, len(jobs), len(files), float64(size)/1e6,
			batchEstimate(m.Info(), cfg.priceFor(name), jobs, files))
	}
	return nil
}

// batchEstimate says what jobs would cost at batch prices: input tokens
// counted with tiktoken (an estimate for models that are not OpenAI's;
// images not counted), output tokens at most the max_tokens each request
// line sends.
func batchEstimate(info model.Info, override *model.Price, jobs []batch.Job, files []batch.File) string {
	p := info.Price
	if override != nil {
		p = override
	}
	in := 0
	for _, j := range jobs {
		in += inputTokens(info, j.Request)
	}
	outMax, capped := 0, true
	for _, f := range files {
		for _, line := range bytes.Split(bytes.TrimSuffix(f.Lines, []byte("\n")), []byte("\n")) {
			var l struct {
				Body, Params struct {
					MaxTokens           int `json:"max_tokens"`
					MaxCompletionTokens int `json:"max_completion_tokens"`
				}
			}
			_ = json.Unmarshal(line, &l)
			n := max(l.Body.MaxTokens, l.Body.MaxCompletionTokens, l.Params.MaxTokens)
			if n == 0 {
				capped = false
			}
			outMax += n
		}
	}
	if p == nil {
		return fmt.Sprintf("about %d input tokens; cost unknown (no price for this model; --price IN,OUT)", in)
	}
	bp := model.BatchPrice(*p)
	var b strings.Builder
	fmt.Fprintf(&b, "estimated cost at batch prices: $%.4f for about %d input tokens", float64(in)*bp.In/1e6, in)
	if capped {
		fmt.Fprintf(&b, ", plus at most $%.4f for output (%d tokens at most)", float64(outMax)*bp.Out/1e6, outMax)
	} else {
		b.WriteString(", plus output (no max_tokens to bound it)")
	}
	return b.String()
}

// inputTokens estimates the input tokens of a request: its text counted
// with tiktoken (the model's encoding, else o200k_base: an estimate for
// models that are not OpenAI's; images and files sent apart not counted).
func inputTokens(info model.Info, r model.Request) int {
	enc, err := tokens.EncodingFor(info.Model)
	if err != nil || enc == "" {
		enc = "o200k_base"
	}
	text := r.System
	for _, msg := range r.Messages {
		text += msg.Content
	}
	n, err := tokens.Count(text, enc)
	if err != nil {
		n = len(text) / 4
	}
	return n
}

// costOf prices an answer, at batch prices when a batch answered it.
func costOf(info model.Info, price *model.Price, r model.Response, batchID string) (float64, bool) {
	c, ok := model.Cost(info, r.InputTokens, r.OutputTokens, price)
	if batchID != "" {
		c *= model.BatchDiscount
	}
	return c, ok
}

// removeBatchJournals removes the batch journals of a finished run.
func removeBatchJournals(runJournal string) {
	matches, _ := filepath.Glob(strings.TrimSuffix(runJournal, ".journal") + ".batch-*.journal")
	for _, p := range matches {
		os.Remove(p)
	}
}

// batchJournal is the batch journal of one model, beside the run's.
func batchJournal(runJournal, modelName string) string {
	return strings.TrimSuffix(runJournal, ".journal") + ".batch-" + result.SafeName(modelName) + ".journal"
}

// sendBatch answers a run's jobs through each model's batch API, in place
// of runner.Run: one batch manager per model, all at once, each with its
// journal beside the run's. Outcomes reach emit one at a time, with the
// batch that answered; a code-mode answer after its code ran (the same
// code as a live run's, solve.Model.Answered). With FallbackLive, what a
// batch could not answer goes live through the runner.
func sendBatch(ctx context.Context, cfg Config, jobs []runner.Job, opt runner.Options, runJournal string,
	emit func(o runner.Outcome, batchID string)) (runner.Stats, error) {
	type group struct {
		m    model.Model
		jobs []batch.Job
	}
	var order []string
	groups := map[string]*group{}
	reqs := make(map[string]model.Request, len(jobs))
	for _, j := range jobs {
		name := j.Model.Name()
		g := groups[name]
		if g == nil {
			g = &group{m: j.Model}
			groups[name] = g
			order = append(order, name)
		}
		g.jobs = append(g.jobs, batch.Job{Key: j.Key, Request: j.Request})
		reqs[j.Key] = j.Request
	}
	var mu sync.Mutex
	stats := runner.Stats{Jobs: len(jobs)}
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
			bopt := batch.Options{Journal: batchJournal(runJournal, name), Model: name, BaseURL: g.m.Info().BaseURL, Poll: cfg.Batch.Poll,
				Progress: cfg.Stderr, Warn: func(msg string) { cfg.say("warning: %s", msg) }}
			if cfg.Batch.FallbackLive {
				bopt.Live = func(ctx context.Context, js []batch.Job, emit func(batch.Outcome)) error {
					live := make([]runner.Job, len(js))
					for i, j := range js {
						live[i] = runner.Job{Key: j.Key, Request: j.Request, Model: g.m}
					}
					lopt := opt
					lopt.Journal, lopt.Progress = "", nil // the batch journal keeps the answers
					_, err := runner.Run(ctx, nil, live, lopt, func(o runner.Outcome) {
						emit(batch.Outcome{Key: o.Key, Response: o.Response, Err: o.Err})
					})
					return err
				}
			}
			cfg.say("%s: %d questions through its batch API (journal %s)", name, len(g.jobs), bopt.Journal)
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
