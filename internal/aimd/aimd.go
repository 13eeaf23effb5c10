// Package aimd is an adaptive limit on requests in flight: additive
// increase, multiplicative decrease, as TCP finds a link's capacity. The
// limit starts at Config.Initial, grows by one after Config.IncreaseAfter
// answers in a row that arrived while every slot was taken, and shrinks to
// Config.Decrease of itself when the server shows congestion: a 429, a 503
// or 529 "overloaded", a timeout (the caller says which errors are those),
// or time to first byte rising past twice its running median (a local
// server queues requests instead of refusing them).
//
// The latency signal compares the median of the last few times to first
// byte with the running median of a baseline: the times of requests sent
// while no more were in flight than the lowest limit so far (Initial at
// first). A baseline fed by every answer would follow the rise that the
// limit's own growth causes against a queueing server, and never see it
// double; a baseline at a known concurrency does, and still follows a
// change of workload once the limit has come down to that concurrency.
//
// After a decrease the limit holds for Config.Cooldown: answers do not
// raise it, and congestion reported by requests sent before the decrease
// (the burst that caused it) does not lower it again. Congestion reported
// by a request sent after the decrease still does: the limit was lowered
// too little.
//
// Every change is kept (History) and told to Config.OnChange, for a
// progress line and the run's output. The clock is Config.Now, so tests
// run the limiter on simulated time.
package aimd

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"
)

// DefaultMax is the ceiling a zero Config.Max takes; a caller that sizes
// its connection pool to the ceiling reads it.
const DefaultMax = 100

// Defaults of Config's other zero fields.
const (
	defaultInitial       = 10
	defaultMin           = 1
	defaultIncreaseAfter = 10
	defaultDecrease      = 0.8
	defaultCooldown      = 15 * time.Second
)

// Config tunes a Limiter; zero fields take the defaults above.
type Config struct {
	Initial, Min, Max int
	// IncreaseAfter is how many answers in a row raise the limit by one.
	IncreaseAfter int
	// Decrease multiplies the limit on congestion (0 < Decrease < 1).
	Decrease float64
	// Cooldown is how long the limit holds after a decrease.
	Cooldown time.Duration
	// Now is the clock; nil is time.Now.
	Now func() time.Time
	// OnChange, when set, is told of each change of the limit. It is
	// called with the limiter locked, in the order of the changes, and
	// must not call the Limiter.
	OnChange func(Change)
}

// Change is one change of the limit.
type Change struct {
	Time   time.Time `json:"time"`
	Limit  int       `json:"limit"`  // the limit from then on
	From   int       `json:"from"`   // the limit before; 0 for the first entry
	Reason string    `json:"reason"` // what caused it
}

// Latency-signal windows: the median of the last recentN times to first
// byte is compared with the median of up to baseN earlier ones, once at
// least minBase of those are known.
const (
	recentN = 5
	baseN   = 50
	minBase = 10
)

// Limiter hands out slots up to an adaptive limit. It is safe for
// concurrent use.
type Limiter struct {
	cfg Config

	mu       sync.Mutex
	limit    float64 // the limit; requests in flight are held to its floor
	inFlight int
	streak   int       // answers in a row (full pipe) since the last change
	epoch    int       // decreases so far; a slot remembers the epoch it was taken in
	lowest   int       // the lowest limit so far: baseline latencies are sent at most this many at once
	cooldown time.Time // end of the hold after the last decrease
	wake     chan struct{}
	history  []Change

	recent, base []time.Duration // times to first byte: the latest, and the baseline
}

// New returns a limiter at cfg.Initial.
func New(cfg Config) *Limiter {
	if cfg.Min <= 0 {
		cfg.Min = defaultMin
	}
	if cfg.Max <= 0 {
		cfg.Max = DefaultMax
	}
	cfg.Max = max(cfg.Max, cfg.Min)
	if cfg.Initial <= 0 {
		cfg.Initial = defaultInitial
	}
	cfg.Initial = min(max(cfg.Initial, cfg.Min), cfg.Max)
	if cfg.IncreaseAfter <= 0 {
		cfg.IncreaseAfter = defaultIncreaseAfter
	}
	if cfg.Decrease <= 0 || cfg.Decrease >= 1 {
		cfg.Decrease = defaultDecrease
	}
	if cfg.Cooldown <= 0 {
		cfg.Cooldown = defaultCooldown
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	l := &Limiter{cfg: cfg, limit: float64(cfg.Initial), lowest: cfg.Initial, wake: make(chan struct{})}
	l.record(Change{Time: cfg.Now(), Limit: cfg.Initial, Reason: "start"})
	return l
}

// Max is the ceiling: more requests than this are never in flight.
func (l *Limiter) Max() int { return l.cfg.Max }

// Limit returns the current limit.
func (l *Limiter) Limit() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.cur()
}

// Slot is one request's place in flight, from Acquire to one of Success,
// Congested or Release (only the first of those counts).
type Slot struct {
	epoch int
	n     int  // requests in flight when it was taken, itself included
	full  bool // every slot was taken when this one was
	done  bool
}

// Acquire waits until a request may be sent (fewer in flight than the
// limit) or ctx ends.
func (l *Limiter) Acquire(ctx context.Context) (*Slot, error) {
	for {
		l.mu.Lock()
		if n := l.cur(); l.inFlight < n {
			l.inFlight++
			s := &Slot{epoch: l.epoch, n: l.inFlight, full: l.inFlight >= n}
			l.mu.Unlock()
			return s, nil
		}
		wake := l.wake
		l.mu.Unlock()
		select {
		case <-wake:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

// Release frees a slot without saying anything of the server's load: an
// error that is not congestion (a bad request, a refused key), or a
// request cancelled by the caller.
func (l *Limiter) Release(s *Slot) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.free(s)
}

// Success frees the slot of an answered request. firstByte is the time
// from sending to the reply's first byte (0 when unknown); it feeds the
// latency signal.
func (l *Limiter) Success(s *Slot, firstByte time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.free(s) {
		return
	}
	now := l.cfg.Now()
	if firstByte > 0 {
		if slow, why := l.observe(firstByte, s.n); slow {
			l.congested(s, now, why)
			return
		}
	}
	if now.Before(l.cooldown) || !s.full {
		// Held after a decrease; or the answer came while slots were
		// free, which says nothing of whether more would be served.
		return
	}
	l.streak++
	if l.streak < l.cfg.IncreaseAfter {
		return
	}
	l.streak = 0
	l.set(min(l.limit+1, float64(l.cfg.Max)), now,
		fmt.Sprintf("%d answers in a row", l.cfg.IncreaseAfter))
}

// Congested frees the slot of a request that found the server
// overloaded; reason says how ("HTTP 429", "timeout").
func (l *Limiter) Congested(s *Slot, reason string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.free(s) {
		return
	}
	l.congested(s, l.cfg.Now(), reason)
}

// congested lowers the limit unless it was lowered within the cooldown
// by the burst this request belonged to.
func (l *Limiter) congested(s *Slot, now time.Time, reason string) {
	l.streak = 0
	if now.Before(l.cooldown) && s.epoch < l.epoch {
		return
	}
	l.epoch++
	l.cooldown = now.Add(l.cfg.Cooldown)
	l.set(max(l.limit*l.cfg.Decrease, float64(l.cfg.Min)), now, reason)
}

// free counts a slot's end; false when it had already ended.
func (l *Limiter) free(s *Slot) bool {
	if s == nil || s.done {
		return false
	}
	s.done = true
	l.inFlight--
	l.broadcast()
	return true
}

// set moves the limit and records the change when its floor moved.
func (l *Limiter) set(v float64, now time.Time, reason string) {
	from := l.cur()
	l.limit = v
	to := l.cur()
	l.lowest = min(l.lowest, to)
	if to < from {
		l.recent = l.recent[:0] // the next verdict is on answers at the new limit
	}
	if to != from {
		l.record(Change{Time: now, Limit: to, From: from, Reason: reason})
		if to > from {
			l.broadcast()
		}
	}
}

func (l *Limiter) record(c Change) {
	l.history = append(l.history, c)
	if l.cfg.OnChange != nil {
		l.cfg.OnChange(c)
	}
}

// broadcast wakes every Acquire waiting.
func (l *Limiter) broadcast() {
	close(l.wake)
	l.wake = make(chan struct{})
}

// cur is the limit as a count of requests.
func (l *Limiter) cur() int { return max(int(l.limit), l.cfg.Min) }

// observe adds the time to first byte of a request sent with n in flight
// and reports whether the recent times rose past twice the baseline's
// running median.
func (l *Limiter) observe(d time.Duration, n int) (bool, string) {
	if n <= l.lowest {
		l.base = append(l.base, d)
		if len(l.base) > baseN {
			l.base = l.base[1:]
		}
	}
	l.recent = append(l.recent, d)
	if len(l.recent) > recentN {
		l.recent = l.recent[1:]
	}
	if len(l.recent) < recentN || len(l.base) < minBase {
		return false, ""
	}
	r, b := median(l.recent), median(l.base)
	if r <= 2*b {
		return false, ""
	}
	return true, fmt.Sprintf("time to first byte %s, over twice its running median %s",
		r.Round(time.Millisecond), b.Round(time.Millisecond))
}

func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}
