package runner

// This file is the request path: one job settled by its attempts, the
// pauses between them and what each failure says of the server.

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptrace"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/evalmd/evalmd/internal/aimd"
	"github.com/evalmd/evalmd/model"
)

// do settles one job. Nothing starts or waits once start ends; a request
// sent goes on until finish ends. ok is false when the run was cancelled
// before the job settled: such a job is neither emitted nor journaled.
func (r *run) do(start, finish context.Context, j Job) (o Outcome, ok bool) {
	if start.Err() != nil {
		return Outcome{}, false
	}
	l := r.lanes[j.Model.Name()]
	c := l.cache
	if c == nil {
		return r.call(start, finish, l, j)
	}
	key := RequestKey(l.m.Name(), l.info, j.Task)
	// Two jobs with one request (a question repeated across sheets) wait
	// for each other: the second finds the first's answer in the cache
	// instead of paying for it again.
	kl := r.keyLock(key)
	kl.Lock()
	defer kl.Unlock()
	if start.Err() != nil {
		return Outcome{}, false
	}
	resp, hit, err := c.Get(key)
	if err != nil {
		r.opt.Warn(fmt.Sprintf("%s: %v; asking the model", j.Key, err))
	}
	if hit {
		return Outcome{Key: j.Key, Model: l.m.Name(), Response: resp, Cached: true}, true
	}
	o, ok = r.call(start, finish, l, j)
	if ok && o.Err == nil {
		if err := c.Put(key, l.m.Name(), o.Response, r.opt.Now()); err != nil {
			r.opt.Warn(fmt.Sprintf("%s: %v", j.Key, err))
		}
	}
	return o, ok
}

// call asks the model, retrying within the budget. Waits (the rate
// limits, a server's pause, backoff) end with start; an attempt sent ends
// with finish.
func (r *run) call(start, finish context.Context, l *lane, j Job) (Outcome, bool) {
	o := Outcome{Key: j.Key, Model: l.m.Name()}
	tokens := estimateTokens(j.Task.Request)
	timeout := r.opt.Timeout
	if j.Timeout != 0 {
		timeout = j.Timeout
	}
	for {
		if err := r.wait(start, l, tokens); err != nil {
			return Outcome{}, false
		}
		worst, ok := r.reserveFor(start, l, j)
		if !ok {
			return Outcome{}, false
		}
		var slot *aimd.Slot
		if lim := l.pool.adaptive; lim != nil {
			s, err := lim.Acquire(start)
			if err != nil {
				r.spend(l, worst, model.Response{}, err)
				return Outcome{}, false
			}
			slot = s
		}
		o.Attempts++
		r.calls.Add(1)
		res := r.attempt(start, finish, l, j, slot, timeout)
		resp, err, again, after := res.resp, res.err, res.again, res.after
		r.spend(l, worst, resp, err)
		o.Elapsed = res.elapsed
		r.countRefusal(l, err, finish)
		if ae := (*model.APIError)(nil); errors.As(err, &ae) && ae.Fatal && finish.Err() == nil {
			// No later request can succeed (an account out of credit):
			// stop rather than ask, and fail, every other question.
			o.Err = &JobError{Model: l.m.Name(), Key: j.Key, Question: j.Task.Question.Name, Attempts: o.Attempts, Err: err}
			r.stop(fmt.Errorf("%s: %w", l.m.Name(), err))
			return o, true
		}
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
		if start.Err() != nil || finish.Err() != nil {
			// Stopped: not a failure of the question; a resume asks it.
			return Outcome{}, false
		}
		if !again || o.Attempts >= r.opt.MaxAttempts {
			o.Err = &JobError{Model: l.m.Name(), Key: j.Key, Question: j.Task.Question.Name, Attempts: o.Attempts, Err: err}
			return o, true
		}
		if after > 0 {
			after = r.pause(l, j, after)
		}
		wait := backoff(o.Attempts, r.opt.BaseBackoff, r.opt.MaxBackoff, after, defaultRand)
		if r.opt.OnRetry != nil {
			r.opt.OnRetry(j.Key, o.Attempts, err, wait)
		}
		if err := r.opt.Sleep(start, wait); err != nil {
			return Outcome{}, false
		}
	}
}

// attemptResult is one attempt's: the reply or error, how long it took,
// and whether (and after how long a server asked) it may be retried.
type attemptResult struct {
	resp    model.Response
	err     error
	elapsed time.Duration
	again   bool
	after   time.Duration
}

// attempt sends j's request once, within timeout, ended by finish; an
// adaptive limit's slot is told how the server answered.
func (r *run) attempt(start, finish context.Context, l *lane, j Job, slot *aimd.Slot, timeout time.Duration) attemptResult {
	actx, cancel := finish, context.CancelFunc(func() {})
	if timeout > 0 {
		actx, cancel = context.WithTimeout(finish, timeout)
	}
	t0 := r.opt.Now()
	var firstByte atomic.Int64 // after t0, in ns; 0 until the reply's first byte
	if slot != nil {
		actx = httptrace.WithClientTrace(actx, &httptrace.ClientTrace{GotFirstResponseByte: func() {
			firstByte.CompareAndSwap(0, int64(max(1, r.opt.Now().Sub(t0))))
		}})
	}
	r.inFlight.Add(1)
	resp, err := model.Ask(actx, l.m, j.Task)
	r.inFlight.Add(-1)
	elapsed := r.opt.Now().Sub(t0)
	if err != nil && finish.Err() == nil && errors.Is(actx.Err(), context.DeadlineExceeded) && !isAPIError(err) {
		// The attempt's own time limit ran out: say so, rather than
		// "context deadline exceeded". Time queued in the server
		// counts, so a server with fewer slots than -c times out.
		err = &model.APIError{Provider: l.m.Info().Provider, Retryable: true, Timeout: true,
			Message: fmt.Sprintf("request timed out after %s (--timeout; time queued in the server counts)", timeout)}
	}
	if slot != nil {
		ttfb := time.Duration(firstByte.Load())
		if ttfb == 0 {
			ttfb = elapsed // no HTTP (an offline model): the whole call
		}
		signal(l.pool.adaptive, slot, err, finish, ttfb)
	}
	again, after := retryable(err, start, actx)
	cancel()
	return attemptResult{resp: resp, err: err, elapsed: elapsed, again: again, after: after}
}

// pause holds the lane's server back for a Retry-After of asked, capped
// at Options.MaxWait, and returns the wait. A long wait is said once per
// server pause (not once per request that was told it); a capped one once
// per server and run, as a server that asks for a year asks it again at
// every retry.
func (r *run) pause(l *lane, j Job, asked time.Duration) time.Duration {
	wait := min(asked, r.opt.MaxWait)
	if !l.pool.gate.extend(r.opt.Now().Add(wait)) || (wait < sayWait && wait == asked) {
		return wait
	}
	if wait < asked && l.pool.capped.Swap(true) {
		return wait
	}
	server := model.RedactURL(l.pool.server)
	if server == "" {
		server = l.m.Name()
	}
	msg := fmt.Sprintf("%s: %s asked for a pause of %s (Retry-After) at question %q; its requests wait %s",
		l.m.Name(), server, sayAsked(asked), j.Task.Question.Name, wait.Round(time.Second))
	if wait < asked {
		msg += " (--max-wait), then go on"
	}
	r.opt.Warn(msg)
	return wait
}

// sayAsked writes a Retry-After's pause for a person: a far-future date
// saturates time.Duration, which as such reads "2562047h47m16.85s".
func sayAsked(d time.Duration) string {
	const day = 24 * time.Hour
	switch {
	case d >= 365*day:
		return "more than a year"
	case d >= 2*day:
		return fmt.Sprintf("%d days", d/day)
	}
	return d.Round(time.Second).String()
}

// sayWait is the shortest Retry-After wait said through Warn.
const sayWait = 10 * time.Second

// signal tells an adaptive limit how an attempt went: an answer (with its
// time to first byte), congestion, or neither.
func signal(lim *aimd.Limiter, s *aimd.Slot, err error, runCtx context.Context, ttfb time.Duration) {
	switch reason, congested := congestion(err); {
	case err == nil:
		lim.Success(s, ttfb)
	case runCtx.Err() == nil && congested:
		lim.Congested(s, reason)
	default:
		lim.Release(s)
	}
}

// congestion says whether a failed attempt shows its server overloaded,
// and how: a 429 that is not fatal, a 503 or 529 (overloaded), a timeout.
func congestion(err error) (string, bool) {
	var ae *model.APIError
	if !errors.As(err, &ae) {
		if errors.Is(err, context.DeadlineExceeded) {
			return "timeout", true
		}
		return "", false
	}
	switch {
	case ae.Fatal:
		return "", false
	case ae.Status == http.StatusTooManyRequests, ae.Status == http.StatusServiceUnavailable, ae.Status == 529:
		return fmt.Sprintf("HTTP %d", ae.Status), true
	case ae.Timeout:
		return "timeout", true
	}
	return "", false
}

// countRefusal keeps the count of connections the lane's server refused in
// a row, and stops the run when it reaches Options.MaxRefusals: retrying
// against a server that is not there only delays saying so.
func (r *run) countRefusal(l *lane, err error, ctx context.Context) {
	if ctx.Err() != nil || r.opt.MaxRefusals < 0 {
		return
	}
	if !errors.Is(err, syscall.ECONNREFUSED) {
		l.pool.refusals.Store(0)
		l.pool.reached.Store(true)
		return
	}
	n, limit, never := l.pool.refusals.Add(1), int64(r.opt.MaxRefusals), ""
	if !l.pool.reached.Load() {
		limit, never = min(limit, neverReachedRefusals), ", and none since the run began"
	}
	if n == limit {
		server := model.RedactURL(l.pool.server)
		if server == "" {
			server = l.m.Name()
		}
		r.stop(fmt.Errorf("%s refused %d connections in a row%s: is the server running, and is the base URL right?", server, n, never))
	}
}

// wait holds an attempt back for a server's Retry-After and the rate limits.
func (r *run) wait(ctx context.Context, l *lane, tokens int) error {
	if err := l.pool.gate.wait(ctx, r.opt.Now, r.opt.Sleep); err != nil {
		return err
	}
	if l.rpm != nil {
		if err := l.rpm.Wait(ctx); err != nil {
			return err
		}
	}
	if l.tpm != nil {
		if err := l.tpm.WaitN(ctx, min(tokens, l.tpm.Burst())); err != nil {
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
// each once: what the error already names (a provider's error names both,
// a solving step's the question) is not said again.
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
	if strings.Contains(inner, "question "+strconv.Quote(q)) {
		return fmt.Sprintf("%s: %s (after %d %s)", e.Model, inner, e.Attempts, s)
	}
	if rest, ok := strings.CutPrefix(inner, "model "+e.Model+": "); ok {
		// A provider names its model only (a request carries no
		// question): the question goes beside it.
		return fmt.Sprintf("model %s, question %q: %s (after %d %s)", e.Model, q, rest, e.Attempts, s)
	}
	return fmt.Sprintf("%s: question %q: %s (after %d %s)", e.Model, q, inner, e.Attempts, s)
}

// Unwrap returns the last attempt's error, so errors.As finds a
// *model.APIError.
func (e *JobError) Unwrap() error { return e.Err }
