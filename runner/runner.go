package runner

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/time/rate"

	"github.com/evalmd/evalmd/internal/aimd"
	"github.com/evalmd/evalmd/internal/grace"
	"github.com/evalmd/evalmd/model"
)

// Job is one request to send.
type Job struct {
	// Key identifies the job within the run and across its resumes, e.g.
	// sheet path + question index + question name. Keys must be unique
	// and non-empty; the journal matches answers to jobs by Key.
	Key string
	// Task is what the model is asked: the request, and beside it the
	// question and how the answer is made.
	Task model.Task
	// Model is the model to ask; nil means the model given to Run. Jobs
	// of several models run in one pool (see Options.SeparateLimits).
	Model model.Model
	// Group, when set, names the jobs that share a prompt prefix (a
	// sheet's questions to one model): the first of them taken is sent
	// alone, and the rest after it is settled, so that the prefix it
	// writes to the provider's prompt cache is read by them; the jobs of
	// other groups go on meanwhile.
	Group string
	// Timeout, when not 0, replaces Options.Timeout for this job
	// (negative: none), e.g. for an agent question whose one job is many
	// calls.
	Timeout time.Duration
}

// Jobs are the jobs of a run too large to hold at once (a sheet of a
// million questions): a worker builds each job as it takes it (Job), so
// only the jobs in flight are held. Run takes a slice of them. Keys must be
// unique and not empty; Model and Key are asked of every job before the
// first request (Key only when a journal is resumed), Job of each job
// once it is taken, or when its journal record is checked.
type Jobs interface {
	Len() int
	Model(i int) model.Model
	Key(i int) string
	// Job builds job i; an error stops the run.
	Job(i int) (Job, error)
}

// jobSlice is a slice of jobs as Jobs.
type jobSlice []Job

func (js jobSlice) Len() int                { return len(js) }
func (js jobSlice) Model(i int) model.Model { return js[i].Model }
func (js jobSlice) Key(i int) string        { return js[i].Key }
func (js jobSlice) Job(i int) (Job, error)  { return js[i], nil }

// Outcome is how a job ended.
type Outcome struct {
	// Index is the job's place among the jobs given.
	Index    int
	Key      string
	Model    string         // the name of the model asked
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
	// Concurrency is the requests in flight per server: models behind
	// one base URL share it, unless SeparateLimits; offline models each
	// have their own. Default 10.
	Concurrency int
	// SeparateLimits gives every model its own Concurrency, even when
	// several share a server.
	SeparateLimits bool
	// Adaptive, when set, replaces Concurrency with an adaptive limit per
	// server (-c auto): an aimd.Limiter made from it, on the run's clock
	// unless it has its own. Congestion is a 429 (not a fatal one), a 503
	// or 529, a timeout, or time to first byte past twice its running
	// median. Its OnChange is not called: OnLimit is.
	Adaptive *aimd.Config
	// OnLimit, when set, is told of each change of an adaptive limit
	// (the first is its start) and the models that share it. It is called
	// from several goroutines, in order for each server, and must not
	// block.
	OnLimit func(models []string, c aimd.Change)
	// MaxRefusals stops the run once a server refused this many
	// connections in a row (it is down, or the base URL is wrong);
	// default 20, negative for never. A server that has refused every
	// connection since the run began stops it at 3 (at most MaxRefusals).
	MaxRefusals int
	MaxAttempts int           // calls per job including the first; default 6
	BaseBackoff time.Duration // first retry waits up to this; default 1s
	MaxBackoff  time.Duration // cap on the jittered wait; default 60s (a Retry-After may exceed it)
	// MaxWait caps the wait a server's Retry-After asks for (Retry-After:
	// 99999 is 27 hours); default 5m. A wait of 10 s or more, or one cut
	// short, is said through Warn: what asked for it, and how long.
	MaxWait time.Duration
	Timeout time.Duration // per attempt; default 10m, negative for none. Expiry is retried.

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
	// Cost prices a response of the named model for the progress line
	// and Stats; known is false when the model has no price (the
	// progress line then says "cost unknown"). nil: no cost shown.
	Cost func(modelName string, r model.Response) (cost float64, known bool)
	// Warn receives warnings that do not stop the run (stale journal
	// entries, unreadable cache entries); nil discards them. It is called
	// from several goroutines at once.
	Warn func(msg string)
	// Stopping, when set, is told once that ctx ended while the requests
	// in flight may still finish (ctx has a graceful end: see
	// internal/grace), and how many they are. No new request is sent.
	Stopping func(inFlight int)
	// OnRetry, when set, is told of each failed attempt that will be
	// retried and how long the runner waits first (for a verbose log).
	// It is called from several goroutines at once.
	OnRetry func(key string, attempt int, err error, wait time.Duration)

	// Now and Sleep replace the clock and backoff waits in tests. Rate
	// limiter waits always use the real clock.
	Now   func() time.Time
	Sleep func(ctx context.Context, d time.Duration) error

	// Budget, when set, caps what the run spends (see Budget): a request
	// that would not fit waits for those in flight, and once one does not
	// fit with none in flight nothing more is sent, the requests in
	// flight are answered and emitted, and Run returns a *BudgetError.
	Budget *Budget
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
	if o.MaxRefusals == 0 {
		o.MaxRefusals = 20
	}
	if o.MaxWait <= 0 {
		o.MaxWait = 5 * time.Minute
	}
	return o
}

// Run sends every job to its model (Job.Model, else m) and calls emit once
// per settled job, as outcomes arrive: first the jobs answered in the
// journal (FromJournal), then the others in the order they finish. emit is
// called from Run's own goroutine, never concurrently, and after the
// outcome's journal record is written (the package doc says when it is
// fsynced); a slow emit slows the run.
//
// The jobs of all models run at once, in one pool per server (see
// Options.Concurrency): each server's queue is taken in the order the jobs
// are given, so a caller that lists jobs sheet by sheet sees sheets
// complete one after another while every slot stays busy.
//
// Every job is emitted exactly once unless the run stops early: when ctx
// is cancelled Run stops promptly, emits what had already been answered,
// does not emit the cancelled jobs (they are not failures: a resume asks
// them), and returns ctx's error. Run's error is otherwise for the run as a
// whole (bad jobs, an unreadable journal, a journal write failing, which
// stops the run because answers could no longer be kept, a server refusing
// Options.MaxRefusals connections in a row); a job's failure is its
// Outcome.Err.
func Run(ctx context.Context, m model.Model, jobs []Job, opt Options, emit func(Outcome)) (Stats, error) {
	jobs, err := withModels(m, jobs)
	if err != nil {
		return Stats{Jobs: len(jobs)}, err
	}
	if err := checkKeys(jobs); err != nil {
		return Stats{Jobs: len(jobs)}, err
	}
	return RunJobs(ctx, jobSlice(jobs), opt, emit)
}

// RunJobs is Run of jobs built as they are taken (see Jobs), each of its
// own model.
func RunJobs(ctx context.Context, jobs Jobs, opt Options, emit func(Outcome)) (Stats, error) {
	opt = opt.withDefaults()
	if emit == nil {
		emit = func(Outcome) {}
	}
	r := newRun(jobs, opt)
	c := newCollector(r, jobs, emit)

	var pending []int // the places of the jobs to ask; nil: every one
	if opt.Journal != "" {
		jr, recs, err := openJournal(opt.Journal)
		if err != nil {
			return c.st, err
		}
		defer jr.close()
		r.journal = jr
		if pending, err = c.resume(jobs, recs); err != nil {
			return c.st, err
		}
	}

	// Each server's workers take jobs from its queue, journal each answer
	// as it arrives and send it to done; this goroutine emits them. No job
	// starts once start ends (ctx ended, or the run was stopped); a request
	// in flight is abandoned only when finish ends: grace.Finish(ctx) (a
	// second Ctrl-C; ctx itself unless the caller gave it a graceful end),
	// or the run was stopped (the journal failed, a server is down).
	finish, stopFinish := context.WithCancel(grace.Finish(ctx))
	defer stopFinish()
	start, stopStarting := context.WithCancel(ctx)
	defer stopStarting()
	defer context.AfterFunc(finish, stopStarting)()
	r.stopSending = stopStarting
	r.stopWorkers = func() {
		// Both at once: AfterFunc would end start a moment later, when a
		// worker might take its next job.
		stopStarting()
		stopFinish()
	}
	if opt.Stopping != nil && grace.Finish(ctx) != ctx {
		// Said once, when ctx ends while the requests in flight may
		// still finish.
		defer context.AfterFunc(ctx, func() {
			if finish.Err() == nil {
				opt.Stopping(int(r.inFlight.Load()))
			}
		})()
	}
	c.loop(r.startWorkers(start, finish, jobs, pending))
	return r.stats(ctx, c)
}

// fingerprint ties a journal record to the request it answered: a job
// whose request changed since (an edited sheet) is asked again. One is
// computed when a record needs it, not for every job before the first
// request: a thousand of them would hold up the start by milliseconds.
func (r *run) fingerprint(j Job) string {
	return RequestKey(j.Model.Name(), r.lanes[j.Model.Name()].info, j.Task)
}

// queues are the places of the jobs to ask (pending; nil: every job) by
// the pool of their server, and the pools in the order first met.
func (r *run) queues(jobs Jobs, pending []int) (map[*pool][]int, []*pool) {
	queues := make(map[*pool][]int)
	var order []*pool
	queue := func(i int) {
		p := r.lanes[jobs.Model(i).Name()].pool
		if _, ok := queues[p]; !ok {
			order = append(order, p)
		}
		queues[p] = append(queues[p], i)
	}
	if pending == nil {
		for i := range jobs.Len() {
			queue(i)
		}
	}
	for _, i := range pending {
		queue(i)
	}
	return queues, order
}

// startWorkers starts each server's workers on its share of the jobs to
// ask (pending; nil: every one), in order, and returns the channel of
// their outcomes, closed when the last worker ends. No job starts once
// start ends; a request in flight is abandoned when finish ends.
func (r *run) startWorkers(start, finish context.Context, jobs Jobs, pending []int) <-chan Outcome {
	// Queues hold job places: building them copies no job and allocates
	// little before the first request.
	queues, order := r.queues(jobs, pending)
	slots := 0
	for _, p := range order {
		slots += min(p.limit, len(queues[p]))
	}
	done := make(chan Outcome, max(1, slots))
	var wg sync.WaitGroup
	var stops []func() bool
	for _, p := range order {
		// Workers take the next job themselves (taker): a worker whose
		// answer came back asks its next question at once, without
		// waiting for a feeding goroutine to be scheduled (at the end of
		// a wave of answers, on few cores, that wait adds up over a run).
		queue := queues[p]
		t, stop := newTaker(start, jobs, queue)
		stops = append(stops, stop)
		for range min(p.limit, len(queue)) {
			wg.Go(func() {
				for {
					place, j, ok, err := t.take(start)
					if err != nil {
						r.stop(err)
						return
					}
					if !ok {
						return
					}
					o, ok := r.do(start, finish, j)
					t.settled(j)
					if ok {
						o.Index = place
						r.keep(o, j)
						done <- o
					}
				}
			})
		}
	}
	go func() {
		wg.Wait()
		for _, stop := range stops {
			stop()
		}
		close(done)
	}()
	return done
}

// stats are the run's figures once every worker has ended, and its error:
// the run stopped (why), or jobs left unfinished.
func (r *run) stats(ctx context.Context, c *collector) (Stats, error) {
	st := c.st
	st.Calls = int(r.calls.Load())
	st.Wall = r.opt.Now().Sub(c.p.start)
	st.Unfinished = st.Jobs - st.Answered - st.NoAnswer - st.Failed
	switch fatal := r.halted(); {
	case fatal != nil:
		return st, fmt.Errorf("runner: stopped with %d jobs unfinished: %w", st.Unfinished, fatal)
	case r.budget != nil && st.Unfinished > 0 && ctx.Err() == nil:
		if spent, reached := r.budget.state(); reached {
			return st, &BudgetError{Max: r.budget.max, Spent: spent, Unasked: st.Unfinished}
		}
	case st.Unfinished > 0 && ctx.Err() != nil:
		return st, fmt.Errorf("runner: stopped with %d jobs unfinished: %w", st.Unfinished, ctx.Err())
	case st.Unfinished > 0:
		return st, fmt.Errorf("runner: %d jobs unfinished", st.Unfinished)
	}
	return st, nil
}

// withModels gives every job its model: its own, else m.
func withModels(m model.Model, jobs []Job) ([]Job, error) {
	out := jobs
	for i, j := range jobs {
		if j.Model != nil {
			continue
		}
		if m == nil {
			return jobs, fmt.Errorf("runner: job %q has no model", j.Key)
		}
		if &out[0] == &jobs[0] {
			out = slices.Clone(jobs) // the caller's slice stays as it was
		}
		out[i].Model = m
	}
	return out, nil
}

// checkKeys rejects jobs without a key or with a key given twice: the
// journal could not tell their answers apart.
func checkKeys(jobs []Job) error {
	seen := make(map[string]bool, len(jobs))
	for i, j := range jobs {
		if j.Key == "" {
			return fmt.Errorf("runner: job %d (question %q) has no key", i, j.Task.Question.Name)
		}
		if seen[j.Key] {
			return fmt.Errorf("runner: job key %q given twice", j.Key)
		}
		seen[j.Key] = true
	}
	return nil
}

// newRun sets up a lane per model and a pool per server.
func newRun(jobs Jobs, opt Options) *run {
	r := &run{opt: opt, lanes: map[string]*lane{}, inflight: make(map[string]*sync.Mutex), budget: newBudget(opt.Budget)}
	pools := map[string]*pool{}
	for i := range jobs.Len() {
		m := jobs.Model(i)
		name := m.Name()
		if r.lanes[name] != nil {
			continue
		}
		info := m.Info()
		l := &lane{m: m, info: info, cache: opt.Cache}
		if info.Offline {
			// Offline models answer at once and for nothing: a cache
			// would only hold copies of what they say.
			l.cache = nil
		}
		// Models behind one server share its limit; an offline model
		// has no server.
		share := "model " + name
		if !opt.SeparateLimits && !info.Offline && info.BaseURL != "" {
			share = "server " + info.BaseURL
		}
		if pools[share] == nil {
			pools[share] = &pool{limit: opt.Concurrency, server: info.BaseURL}
		}
		l.pool = pools[share]
		l.pool.models = append(l.pool.models, name)
		// Token buckets refilled at the per-minute rate. A bucket of
		// burst B lets B + limit through in any one minute, so B is kept
		// to a sixth of the limit (10 s worth): at most about 17% over a
		// provider's window, which the retries absorb, while a run still
		// starts at full speed.
		if opt.RPM > 0 {
			l.rpm = rate.NewLimiter(rate.Limit(float64(opt.RPM)/60), max(1, min(opt.Concurrency, opt.RPM/6)))
		}
		if opt.TPM > 0 {
			// A request estimated above the burst is clamped to it, or it
			// could never be sent.
			l.tpm = rate.NewLimiter(rate.Limit(float64(opt.TPM)/60), max(1, opt.TPM/6))
		}
		r.lanes[name] = l
	}
	if opt.Adaptive != nil {
		for _, p := range pools {
			cfg := *opt.Adaptive
			if cfg.Now == nil {
				cfg.Now = opt.Now
			}
			cfg.OnChange = func(c aimd.Change) {
				if opt.OnLimit != nil {
					opt.OnLimit(p.models, c)
				}
			}
			p.adaptive = aimd.New(cfg)
			p.limit = p.adaptive.Max() // workers; the limiter holds them to its limit
		}
	}
	return r
}

// run is the state the workers of one Run share.
type run struct {
	opt   Options
	lanes map[string]*lane // by model name
	calls atomic.Int64     // model calls made, cancelled ones included
	// inFlight counts the requests sent and not yet answered.
	inFlight atomic.Int64

	// journal, when the run has one, takes each answer from the worker
	// that got it, before anything else is done with it: what a crash
	// loses is only what was in flight.
	journal *journal

	mu          sync.Mutex
	inflight    map[string]*sync.Mutex // per cache key, so one request is paid for once
	halt        error                  // why the run was stopped (a server down, the journal failing)
	stopWorkers func()
	// stopSending ends the start of new requests and lets those in
	// flight finish (the budget reached).
	stopSending func()
	budget      *budget // nil: no cap
}

// lane is one model's share of a run: its rate limits and its pool.
type lane struct {
	m        model.Model
	info     model.Info // m.Info(), asked once
	cache    *Cache
	rpm, tpm *rate.Limiter
	pool     *pool
}

// pool is the request limit of one server, shared by the models behind it.
type pool struct {
	limit    int
	server   string
	models   []string      // the models that share it
	adaptive *aimd.Limiter // nil: limit is fixed
	gate     pauseGate     // a Retry-After holds back every request to the server
	capped   atomic.Bool   // a Retry-After past MaxWait was said
	refusals atomic.Int64  // connection refusals in a row
	reached  atomic.Bool   // a connection to the server was ever made
}

// neverReachedRefusals stops the run sooner against a server that has
// refused every connection since the run began: it is down or the base URL
// is wrong, and 20 refusals with backoff took 48 s to say so at -c 1.
const neverReachedRefusals = 3

// stop ends the run for a reason that is the run's, not a job's.
func (r *run) stop(err error) {
	r.mu.Lock()
	if r.halt == nil {
		r.halt = err
	}
	r.mu.Unlock()
	r.stopWorkers()
}

// keep journals an answer (or a model's having none) as it arrives; final
// errors are not journaled, so a resume asks them again. A journal that
// cannot be written stops the run: answers received from now on could not
// be kept for a resume, so paying for more is wasted. Those in hand are
// still emitted, so the caller can write them.
func (r *run) keep(o Outcome, j Job) {
	if r.journal == nil || (o.Err != nil && !errors.Is(o.Err, model.ErrNoAnswer)) {
		return
	}
	if err := r.journal.append(recordOf(o, r.fingerprint(j), r.opt.Now())); err != nil {
		r.stop(err)
	}
}

// halted is the reason the run was stopped, if it was.
func (r *run) halted() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.halt
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
