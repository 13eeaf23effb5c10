package runner

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/time/rate"

	"github.com/evalmd/evalmd/model"
)

// Job is one request to send.
type Job struct {
	// Key identifies the job within the run and across its resumes, e.g.
	// sheet path + question index + question name. Keys must be unique
	// and non-empty; the journal matches answers to jobs by Key.
	Key     string
	Request model.Request
}

// Outcome is how a job ended.
type Outcome struct {
	Key      string
	Response model.Response // the answer; zero when Err is not nil
	// Err is nil for an answer, model.ErrNoAnswer when the model had none
	// (a replay file without the question), or the last error once the
	// retries were spent or the error was not retryable. Its text names
	// the model, the question and the attempts, for an output file's
	// error field.
	Err error
	// Elapsed is the wall time of the attempt that settled the job (the
	// model's latency, like LIME's eval_time); backoff waits are not in it.
	Elapsed     time.Duration
	Attempts    int  // model calls made for this job in this run (0 for cache and journal)
	Cached      bool // answered from the cache without a call
	FromJournal bool // answered in an earlier run of the same journal
}

// Options tune Run. The zero value works: defaults are noted per field.
type Options struct {
	Concurrency int           // requests in flight; default 10
	MaxAttempts int           // calls per job including the first; default 6
	BaseBackoff time.Duration // first retry waits up to this; default 1s
	MaxBackoff  time.Duration // cap on the jittered wait; default 60s (a Retry-After may exceed it)
	Timeout     time.Duration // per attempt; default 10m, negative for none. Expiry is retried.

	// RPM and TPM cap requests and estimated tokens per minute (0 = no
	// cap), as token buckets holding 10 s worth, so a run starts at full
	// speed. Tokens are estimated before sending as len(system+messages)/4
	// plus Settings.MaxTokens, which is how providers that count
	// max_tokens against a TPM limit see a request; the estimate need not
	// be exact, because a 429 is retried anyway. Every attempt counts.
	RPM, TPM int

	// Journal is the path of the run's journal ("" for none); see the
	// package doc. The caller deletes it once the output file is written.
	Journal string

	// Cache answers repeated requests without a call (nil for none). It is
	// not used for offline models (Info().Offline: replay, oracle, random),
	// which answer from Request.Question, which the cache key does not
	// cover. The key covers the model's server (Info().BaseURL).
	Cache *Cache

	// Progress receives a progress line redrawn in place. An *os.File is
	// written only when it is a terminal; other writers always are.
	// nil is quiet.
	Progress io.Writer
	// Cost prices a response for the progress line and Stats (nil: no
	// cost shown).
	Cost func(model.Response) float64
	// Warn receives warnings that do not stop the run (stale journal
	// entries, unreadable cache entries); nil discards them. It is called
	// from several goroutines at once.
	Warn func(msg string)
	// OnRetry, when set, is told of each failed attempt that will be
	// retried and how long the runner waits first (for a verbose log).
	// It is called from several goroutines at once.
	OnRetry func(key string, attempt int, err error, wait time.Duration)

	// Now and Sleep replace the clock and backoff waits in tests. Rate
	// limiter waits always use the real clock.
	Now   func() time.Time
	Sleep func(ctx context.Context, d time.Duration) error
}

// Stats sums a run.
type Stats struct {
	Jobs        int // jobs given
	Answered    int // settled with an answer (from any source)
	NoAnswer    int // settled with model.ErrNoAnswer
	Failed      int // ended with an error
	Unfinished  int // not emitted: the run was cancelled or stopped first
	FromJournal int
	Cached      int
	Calls       int // model calls made in this run, retries included
	InputTokens int
	// OutputTokens and Cost include journaled answers, which were paid
	// for by an earlier run of the same output.
	OutputTokens int
	Cost         float64
	Wall         time.Duration
}

func (o Options) withDefaults() Options {
	if o.Concurrency <= 0 {
		o.Concurrency = 10
	}
	if o.MaxAttempts <= 0 {
		o.MaxAttempts = 6
	}
	if o.BaseBackoff <= 0 {
		o.BaseBackoff = time.Second
	}
	if o.MaxBackoff <= 0 {
		o.MaxBackoff = 60 * time.Second
	}
	if o.MaxBackoff < o.BaseBackoff {
		o.MaxBackoff = o.BaseBackoff
	}
	if o.Timeout == 0 {
		o.Timeout = 10 * time.Minute
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Sleep == nil {
		o.Sleep = sleepCtx
	}
	if o.Warn == nil {
		o.Warn = func(string) {}
	}
	return o
}

// Run sends every job to m and calls emit once per settled job, as
// outcomes arrive: first the jobs answered in the journal (FromJournal),
// then the others in the order they finish. emit is called from Run's own
// goroutine, never concurrently, and after the outcome's journal record is
// written (the package doc says when it is fsynced); a slow emit slows the
// run.
//
// Every job is emitted exactly once unless the run stops early: when ctx
// is cancelled Run stops promptly, emits what had already been answered,
// does not emit the cancelled jobs (they are not failures: a resume asks
// them), and returns ctx's error. Run's error is otherwise for the run as a
// whole (bad jobs, an unreadable journal, a journal write failing, which
// stops the run because answers could no longer be kept); a job's failure
// is its Outcome.Err.
func Run(ctx context.Context, m model.Model, jobs []Job, opt Options, emit func(Outcome)) (Stats, error) {
	opt = opt.withDefaults()
	if m == nil {
		return Stats{Jobs: len(jobs)}, errors.New("runner: no model")
	}
	if emit == nil {
		emit = func(Outcome) {}
	}
	if err := checkKeys(jobs); err != nil {
		return Stats{Jobs: len(jobs)}, err
	}
	r := newRun(m, opt)
	c := newCollector(r, len(jobs), emit)

	pending := jobs
	if opt.Journal != "" {
		jr, recs, err := openJournal(opt.Journal)
		if err != nil {
			return c.st, err
		}
		defer jr.close()
		// Fingerprints tie a journal record to the request it answered;
		// a job whose request changed since (an edited sheet) is asked
		// again.
		fps := make(map[string]string, len(jobs))
		for _, j := range jobs {
			fps[j.Key] = fingerprint(m.Name(), r.baseURL, j.Request)
		}
		c.journal, c.fps = jr, fps
		pending = c.resume(jobs, recs)
	}

	// Workers take jobs from todo and send outcomes to done; this
	// goroutine collects, journals and emits them. wctx also stops the
	// workers when the journal fails.
	wctx, stopWorkers := context.WithCancel(ctx)
	defer stopWorkers()
	c.stopWorkers = stopWorkers
	todo := make(chan Job)
	done := make(chan Outcome, opt.Concurrency)
	var wg sync.WaitGroup
	for range min(opt.Concurrency, len(pending)) {
		wg.Go(func() {
			for j := range todo {
				if o, ok := r.do(wctx, j); ok {
					done <- o
				}
			}
		})
	}
	go func() {
		defer close(todo)
		for _, j := range pending {
			select {
			case todo <- j:
			case <-wctx.Done():
				return
			}
		}
	}()
	go func() {
		wg.Wait()
		close(done)
	}()
	c.loop(done)

	st := c.st
	st.Calls = int(r.calls.Load())
	st.Wall = opt.Now().Sub(c.p.start)
	st.Unfinished = st.Jobs - st.Answered - st.NoAnswer - st.Failed
	switch {
	case c.fatal != nil:
		return st, fmt.Errorf("runner: stopped with %d jobs unfinished: %w", st.Unfinished, c.fatal)
	case st.Unfinished > 0 && ctx.Err() != nil:
		return st, fmt.Errorf("runner: stopped with %d jobs unfinished: %w", st.Unfinished, ctx.Err())
	case st.Unfinished > 0:
		return st, fmt.Errorf("runner: %d jobs unfinished", st.Unfinished)
	}
	return st, nil
}

// checkKeys rejects jobs without a key or with a key given twice: the
// journal could not tell their answers apart.
func checkKeys(jobs []Job) error {
	seen := make(map[string]bool, len(jobs))
	for i, j := range jobs {
		if j.Key == "" {
			return fmt.Errorf("runner: job %d (question %q) has no key", i, j.Request.Question.Name)
		}
		if seen[j.Key] {
			return fmt.Errorf("runner: job key %q given twice", j.Key)
		}
		seen[j.Key] = true
	}
	return nil
}

func newRun(m model.Model, opt Options) *run {
	info := m.Info()
	r := &run{m: m, opt: opt, baseURL: info.BaseURL, inflight: make(map[string]*sync.Mutex)}
	if info.Offline {
		// Built-ins answer from the question, not the prompt; a cache
		// keyed on the prompt would mix their answers up.
		r.opt.Cache = nil
	}
	// Token buckets refilled at the per-minute rate. A bucket of burst B
	// lets B + limit through in any one minute, so B is kept to a sixth of
	// the limit (10 s worth): at most about 17% over a provider's window,
	// which the retries absorb, while a run still starts at full speed.
	if opt.RPM > 0 {
		r.rpm = rate.NewLimiter(rate.Limit(float64(opt.RPM)/60), max(1, min(opt.Concurrency, opt.RPM/6)))
	}
	if opt.TPM > 0 {
		// A request estimated above the burst is clamped to it, or it
		// could never be sent.
		r.tpm = rate.NewLimiter(rate.Limit(float64(opt.TPM)/60), max(1, opt.TPM/6))
	}
	return r
}

// run is the state the workers of one Run share.
type run struct {
	m        model.Model
	opt      Options
	baseURL  string
	rpm, tpm *rate.Limiter
	gate     pauseGate
	calls    atomic.Int64 // model calls made, cancelled ones included

	mu       sync.Mutex
	inflight map[string]*sync.Mutex // per cache key, so one request is paid for once
}

// keyLock returns the lock serialising jobs with the same cache key.
// Entries are never removed: a run has a bounded number of keys.
func (r *run) keyLock(key string) *sync.Mutex {
	r.mu.Lock()
	defer r.mu.Unlock()
	l, ok := r.inflight[key]
	if !ok {
		l = new(sync.Mutex)
		r.inflight[key] = l
	}
	return l
}

// do settles one job. ok is false when the run was cancelled before the
// job settled: such a job is neither emitted nor journaled.
func (r *run) do(ctx context.Context, j Job) (o Outcome, ok bool) {
	if ctx.Err() != nil {
		return Outcome{}, false
	}
	c := r.opt.Cache
	if c == nil {
		return r.call(ctx, j)
	}
	key := RequestKey(r.m.Name(), r.baseURL, j.Request)
	// Two jobs with one request (a question repeated across sheets) wait
	// for each other: the second finds the first's answer in the cache
	// instead of paying for it again.
	l := r.keyLock(key)
	l.Lock()
	defer l.Unlock()
	if ctx.Err() != nil {
		return Outcome{}, false
	}
	resp, hit, err := c.Get(key)
	if err != nil {
		r.opt.Warn(fmt.Sprintf("%s: %v; asking the model", j.Key, err))
	}
	if hit {
		return Outcome{Key: j.Key, Response: resp, Cached: true}, true
	}
	o, ok = r.call(ctx, j)
	if ok && o.Err == nil {
		if err := c.Put(key, r.m.Name(), o.Response, r.opt.Now()); err != nil {
			r.opt.Warn(fmt.Sprintf("%s: %v", j.Key, err))
		}
	}
	return o, ok
}

// call asks the model, retrying within the budget.
func (r *run) call(ctx context.Context, j Job) (Outcome, bool) {
	o := Outcome{Key: j.Key}
	tokens := estimateTokens(j.Request)
	for {
		if err := r.wait(ctx, tokens); err != nil {
			return Outcome{}, false
		}
		o.Attempts++
		r.calls.Add(1)
		actx, cancel := ctx, context.CancelFunc(func() {})
		if r.opt.Timeout > 0 {
			actx, cancel = context.WithTimeout(ctx, r.opt.Timeout)
		}
		t0 := r.opt.Now()
		resp, err := r.m.Complete(actx, j.Request)
		o.Elapsed = r.opt.Now().Sub(t0)
		if err != nil && ctx.Err() == nil && errors.Is(actx.Err(), context.DeadlineExceeded) && !isAPIError(err) {
			// The attempt's own time limit ran out: say so, rather than
			// "context deadline exceeded". Time queued in the server
			// counts, so a server with fewer slots than -c times out.
			err = &model.APIError{Provider: r.m.Info().Provider, Retryable: true,
				Message: fmt.Sprintf("request timed out after %s (--timeout; time queued in the server counts)", r.opt.Timeout)}
		}
		again, after := retryable(err, ctx, actx)
		cancel()
		if err == nil {
			// An answer that arrived as the run was being cancelled is
			// kept: it is paid for.
			o.Response = resp
			return o, true
		}
		if errors.Is(err, model.ErrNoAnswer) {
			o.Err = model.ErrNoAnswer
			return o, true
		}
		if ctx.Err() != nil {
			return Outcome{}, false
		}
		if !again || o.Attempts >= r.opt.MaxAttempts {
			o.Err = &JobError{Model: r.m.Name(), Key: j.Key, Question: j.Request.Question.Name, Attempts: o.Attempts, Err: err}
			return o, true
		}
		if after > 0 {
			r.gate.extend(r.opt.Now().Add(after))
		}
		wait := backoff(o.Attempts, r.opt.BaseBackoff, r.opt.MaxBackoff, after, defaultRand)
		if r.opt.OnRetry != nil {
			r.opt.OnRetry(j.Key, o.Attempts, err, wait)
		}
		if err := r.opt.Sleep(ctx, wait); err != nil {
			return Outcome{}, false
		}
	}
}

// wait holds an attempt back for a server's Retry-After and the rate limits.
func (r *run) wait(ctx context.Context, tokens int) error {
	if err := r.gate.wait(ctx, r.opt.Now, r.opt.Sleep); err != nil {
		return err
	}
	if r.rpm != nil {
		if err := r.rpm.Wait(ctx); err != nil {
			return err
		}
	}
	if r.tpm != nil {
		if err := r.tpm.WaitN(ctx, min(tokens, r.tpm.Burst())); err != nil {
			return err
		}
	}
	return ctx.Err()
}

// estimateTokens guesses a request's token count for the TPM limit: four
// bytes of text per token (the usual rule of thumb for English with GPT
// tokenizers), images not counted, plus the output allowance.
func estimateTokens(req model.Request) int {
	n := len(req.System)
	for _, m := range req.Messages {
		n += len(m.Content)
	}
	return max(1, n/4+req.Settings.MaxTokens)
}

// isAPIError reports whether a provider classified err already.
func isAPIError(err error) bool {
	var ae *model.APIError
	return errors.As(err, &ae)
}

// JobError is a job's final error: the last attempt's error with the
// request it belonged to.
type JobError struct {
	Model    string
	Key      string
	Question string // question name, "" when the request carries none
	Attempts int
	Err      error
}

// Error names the model, the question (or the job key) and the attempts,
// unless the provider's error already names them.
func (e *JobError) Error() string {
	q := e.Question
	if q == "" {
		q = e.Key
	}
	s := "attempt"
	if e.Attempts != 1 {
		s = "attempts"
	}
	inner := e.Err.Error()
	if strings.Contains(inner, strconv.Quote(q)) && strings.Contains(inner, e.Model) {
		// The provider already named the model and the question; an
		// output file's error field need not say them twice.
		return fmt.Sprintf("%s (after %d %s)", inner, e.Attempts, s)
	}
	return fmt.Sprintf("%s: question %q: %s (after %d %s)", e.Model, q, inner, e.Attempts, s)
}

// Unwrap returns the last attempt's error, so errors.As finds a
// *model.APIError.
func (e *JobError) Unwrap() error { return e.Err }
