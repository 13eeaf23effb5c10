package runner

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"sync"
	"syscall"
	"time"

	"github.com/evalmd/evalmd/model"
)

// retryable reports whether a failed attempt is worth repeating, and how
// long the server asked to be left alone (0 when it did not say).
// Providers classify their failures as *model.APIError; for errors that
// reach the runner unclassified, transport failures (timeouts, resets, a
// connection cut mid-reply) are retried and everything else is final.
// attemptCtx is the attempt's own context: its deadline expiring while the
// run goes on is the per-request timeout, which is retryable.
func retryable(err error, runCtx, attemptCtx context.Context) (bool, time.Duration) {
	if runCtx.Err() != nil {
		return false, 0
	}
	var ae *model.APIError
	if errors.As(err, &ae) {
		return ae.Retryable, ae.RetryAfter
	}
	if errors.Is(attemptCtx.Err(), context.DeadlineExceeded) || errors.Is(err, context.DeadlineExceeded) {
		return true, 0
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return true, 0
	}
	if errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.ECONNREFUSED) ||
		errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, syscall.EPIPE) {
		return true, 0
	}
	return false, 0
}

// backoff is the wait before attempt number attempt+1 after attempt failed:
// "full jitter" (uniform in [0, min(limit, base·2^(attempt-1))]), which
// spreads the retries of many workers that failed together. A server's
// Retry-After is a floor: the wait is retryAfter plus up to base of jitter,
// so workers told the same instant do not return in one burst.
func backoff(attempt int, base, limit, retryAfter time.Duration, rnd func() float64) time.Duration {
	ceil := base
	for i := 1; i < attempt && ceil < limit; i++ {
		ceil *= 2
	}
	ceil = min(ceil, limit)
	d := time.Duration(rnd() * float64(ceil))
	if retryAfter > 0 {
		d = max(d, retryAfter+time.Duration(rnd()*float64(base)))
	}
	return d
}

// defaultRand is the jitter source: the runtime's per-goroutine-safe
// generator, so the runner holds no random state of its own.
func defaultRand() float64 { return rand.Float64() }

// sleepCtx waits for d or until ctx is done.
func sleepCtx(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// pauseGate holds every worker back after a server answered 429 with a
// Retry-After: the limit is the account's, not the request's, so sending
// more before then only collects more 429s (and, with some providers,
// longer bans).
type pauseGate struct {
	mu    sync.Mutex
	until time.Time
}

// extend moves the gate's end to t if that is later, and reports whether
// that began a new pause or lengthened one by a second or more (rather
// than another request being told the same pause).
func (g *pauseGate) extend(t time.Time) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	if !t.After(g.until) {
		return false
	}
	news := t.Sub(g.until) >= time.Second
	g.until = t
	return news
}

// wait sleeps until the gate's end as it stands now. It sleeps once and
// does not loop on a gate extended meanwhile: the attempt that follows may
// get a 429 and back off on its own, and an injected sleep that returns
// at once (tests) must not turn this into a spin.
func (g *pauseGate) wait(ctx context.Context, now func() time.Time, sleep func(context.Context, time.Duration) error) error {
	g.mu.Lock()
	d := g.until.Sub(now())
	g.mu.Unlock()
	if d <= 0 {
		return nil
	}
	return sleep(ctx, d)
}

// Retrying returns m with the runner's retries built in, for a model that a
// job's own model calls inside the job (agent mode's reformat model):
// Complete repeats a call that failed in a way the runner retries, at most
// opt.MaxAttempts calls, waiting the runner's backoff between them (a
// Retry-After is a floor, capped at opt.MaxWait; opt.Sleep waits, and ctx
// ending stops it). So a passing failure costs one more call, not the whole
// job again. The error of the last call, once the calls are spent, is
// final: the runner does not retry the job for it. Other errors are
// returned as they are: the runner does not retry them either, and a fatal
// one (model.APIError.Fatal) still stops the run.
func Retrying(m model.Model, opt Options) model.Model {
	return retrying{Model: m, opt: opt.withDefaults()}
}

// retrying is the model Retrying returns.
type retrying struct {
	model.Model
	opt Options
}

// Complete calls the model until it answers or the retries are spent.
func (r retrying) Complete(ctx context.Context, req model.Request) (model.Response, error) {
	return r.retry(ctx, func() (model.Response, error) { return r.Model.Complete(ctx, req) })
}

// Answer asks the model the task (model.Ask) until it answers or the
// retries are spent: a model that answers from the question still gets it.
func (r retrying) Answer(ctx context.Context, t model.Task) (model.Response, error) {
	return r.retry(ctx, func() (model.Response, error) { return model.Ask(ctx, r.Model, t) })
}

// retry calls call until it succeeds or the retries are spent.
func (r retrying) retry(ctx context.Context, call func() (model.Response, error)) (model.Response, error) {
	for attempt := 1; ; attempt++ {
		resp, err := call()
		if err == nil || ctx.Err() != nil {
			return resp, err
		}
		again, after := retryable(err, ctx, ctx)
		if !again {
			return resp, err // the runner does not retry it either
		}
		if attempt >= r.opt.MaxAttempts {
			return resp, &finalError{err: err, attempts: attempt}
		}
		wait := backoff(attempt, r.opt.BaseBackoff, r.opt.MaxBackoff, min(after, r.opt.MaxWait), defaultRand)
		if err := r.opt.Sleep(ctx, wait); err != nil {
			return model.Response{}, err
		}
	}
}

// finalError is the last error of a call that Retrying already retried.
// It hides its cause from errors.As and errors.Is on purpose: the runner
// must not retry the job for it, count its refused connections against the
// job's server, or take its 429 for that server's congestion.
type finalError struct {
	err      error
	attempts int
}

func (e *finalError) Error() string {
	return fmt.Sprintf("%d attempts, the last: %v", e.attempts, e.err)
}
