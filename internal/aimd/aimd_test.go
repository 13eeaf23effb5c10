package aimd

import (
	"context"
	"errors"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"
)

// clock is a hand-moved clock.
type clock struct{ t time.Time }

func newClock() *clock                   { return &clock{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)} }
func (c *clock) now() time.Time          { return c.t }
func (c *clock) advance(d time.Duration) { c.t = c.t.Add(d) }

// fill takes n slots, failing the test if one is not free at once.
func fill(t *testing.T, l *Limiter, n int) []*Slot {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	cancel() // a slot that is free is taken before ctx is looked at
	var ss []*Slot
	for i := range n {
		s, err := l.Acquire(ctx)
		if err != nil {
			t.Fatalf("slot %d of %d not free (limit %d): %v", i+1, n, l.Limit(), err)
		}
		ss = append(ss, s)
	}
	return ss
}

func TestIncreaseOnlyWhenFull(t *testing.T) {
	c := newClock()
	l := New(Config{Now: c.now})
	if l.Limit() != 10 {
		t.Fatalf("start %d, want 10", l.Limit())
	}
	// Answers while slots stay free say nothing of capacity.
	for range 50 {
		s := fill(t, l, 1)[0]
		l.Success(s, time.Second)
	}
	if l.Limit() != 10 {
		t.Fatalf("limit %d after answers with free slots, want 10", l.Limit())
	}
	// Nine answers with every slot taken: not yet; the tenth: +1.
	ss := fill(t, l, 10)
	for i := range 9 {
		l.Success(ss[9], 0)
		ss[9] = fill(t, l, 1)[0]
		if l.Limit() != 10 {
			t.Fatalf("limit %d after %d full answers", l.Limit(), i+1)
		}
	}
	l.Success(ss[9], 0)
	if l.Limit() != 11 {
		t.Fatalf("limit %d after 10 full answers, want 11", l.Limit())
	}
}

func TestDecreaseCooldownAndEpoch(t *testing.T) {
	c := newClock()
	var told []Change
	l := New(Config{Now: c.now, OnChange: func(ch Change) { told = append(told, ch) }})
	ss := fill(t, l, 10)
	// The first 429 of a burst lowers the limit to 8 ...
	l.Congested(ss[0], "HTTP 429")
	if l.Limit() != 8 {
		t.Fatalf("limit %d after a 429 at 10, want 8", l.Limit())
	}
	// ... the rest of that burst, sent before the decrease, does not.
	for _, s := range ss[1:4] {
		l.Congested(s, "HTTP 429")
	}
	if l.Limit() != 8 {
		t.Fatalf("limit %d after the same burst, want 8", l.Limit())
	}
	// Answers during the cooldown do not raise it.
	for _, s := range ss[4:] {
		l.Success(s, 0)
	}
	for range 30 {
		l.Success(fill(t, l, 1)[0], 0)
	}
	if l.Limit() != 8 {
		t.Fatalf("limit %d after answers in the cooldown, want 8", l.Limit())
	}
	// A request sent after the decrease that is refused too: lower again,
	// cooldown or not.
	l.Congested(fill(t, l, 1)[0], "HTTP 529")
	if l.Limit() != 6 { // 8 * 0.8 = 6.4
		t.Fatalf("limit %d after a refusal at the lowered limit, want 6", l.Limit())
	}
	// After the cooldown, a request of an old epoch counts again.
	old := fill(t, l, 1)[0]
	c.advance(15 * time.Second)
	l.Congested(old, "timeout")
	if l.Limit() != 5 { // 6.4 * 0.8 = 5.12
		t.Fatalf("limit %d after the cooldown, want 5", l.Limit())
	}
	want := []Change{
		{Limit: 10, From: 0, Reason: "start"},
		{Limit: 8, From: 10, Reason: "HTTP 429"},
		{Limit: 6, From: 8, Reason: "HTTP 529"},
		{Limit: 5, From: 6, Reason: "timeout"},
	}
	h := l.History()
	strip := func(cs []Change) []Change {
		out := slices.Clone(cs)
		for i := range out {
			out[i].Time = time.Time{}
		}
		return out
	}
	if !slices.Equal(strip(h), want) || !slices.Equal(strip(told), want) {
		t.Errorf("history %+v\ntold %+v\nwant %+v", h, told, want)
	}
	if !h[3].Time.Equal(h[2].Time.Add(15 * time.Second)) {
		t.Errorf("change times %v and %v: want 15 s apart", h[2].Time, h[3].Time)
	}
}

func TestFloorAndCeiling(t *testing.T) {
	c := newClock()
	l := New(Config{Now: c.now})
	for range 40 {
		c.advance(time.Minute)
		l.Congested(fill(t, l, 1)[0], "HTTP 429")
	}
	if l.Limit() != 1 {
		t.Fatalf("limit %d after 40 decreases, want the floor 1", l.Limit())
	}
	// One slot at the floor; the second waits.
	s := fill(t, l, 1)[0]
	ctx, cancel := context.WithTimeout(context.Background(), time.Millisecond)
	defer cancel()
	if _, err := l.Acquire(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("second slot at limit 1: %v, want to wait until ctx ends", err)
	}
	l.Release(s)
	l.Release(s)           // a second release of one slot changes nothing
	c.advance(time.Minute) // past the cooldown
	ss := fill(t, l, 1)
	for range 5000 {
		for len(ss) < l.Limit() {
			ss = append(ss, fill(t, l, 1)[0])
		}
		l.Success(ss[0], 0)
		ss[0] = fill(t, l, 1)[0]
	}
	if l.Limit() != 100 {
		t.Fatalf("limit %d after 5000 full answers, want the ceiling 100", l.Limit())
	}
}

// TestWaiterWakes: a request waiting for a slot gets it when one frees.
func TestWaiterWakes(t *testing.T) {
	l := New(Config{Initial: 1})
	s := fill(t, l, 1)[0]
	got := make(chan error)
	go func() {
		s2, err := l.Acquire(context.Background())
		if err == nil {
			l.Release(s2)
		}
		got <- err
	}()
	l.Release(s)
	if err := <-got; err != nil {
		t.Fatal(err)
	}
}

// sim runs jobs through a limiter against a simulated server on simulated
// time: K slots, each answer taking 0.5-1.5 s; a request beyond K is
// refused with a 429 at once when refuse is set, else it queues for a
// slot (a local server) and its time to first byte includes the wait. A
// refused request is asked again. It returns the final limit, the
// requests sent and the 429s.
func sim(t *testing.T, k, jobs int, refuse bool) (limit, sent, refused int, l *Limiter) {
	t.Helper()
	c := newClock()
	l = New(Config{Now: c.now})
	rng := rand.New(rand.NewPCG(7, uint64(k)))
	type req struct {
		slot     *Slot
		sentAt   time.Time
		at       time.Time // when the reply arrives
		ok       bool
		queued   bool
		duration time.Duration
	}
	var flight []*req // sent, not yet answered
	var queue []*req  // waiting for a server slot (queueing server)
	busy, pending, done := 0, jobs, 0
	start := func(r *req) {
		busy++
		r.at = c.now().Add(r.duration)
		r.ok = true
	}
	for done < jobs {
		for pending > 0 && len(flight) < l.Limit() {
			s := fill(t, l, 1)[0]
			pending--
			sent++
			r := &req{slot: s, sentAt: c.now(), duration: 500*time.Millisecond + time.Duration(rng.Int64N(int64(time.Second)))}
			switch {
			case busy < k:
				start(r)
			case refuse:
				r.at = c.now().Add(20 * time.Millisecond)
			default:
				r.queued = true
				queue = append(queue, r)
			}
			flight = append(flight, r)
		}
		// The next reply to arrive.
		i := -1
		for j, r := range flight {
			if r.queued {
				continue
			}
			if i < 0 || r.at.Before(flight[i].at) {
				i = j
			}
		}
		r := flight[i]
		flight = slices.Delete(flight, i, i+1)
		c.t = r.at
		if !r.ok {
			refused++
			pending++
			l.Congested(r.slot, "HTTP 429")
			continue
		}
		busy--
		done++
		if len(queue) > 0 {
			q := queue[0]
			queue = queue[1:]
			q.queued = false
			start(q)
		}
		l.Success(r.slot, c.now().Sub(r.sentAt))
	}
	return l.Limit(), sent, refused, l
}

// TestConvergesOnRefusingServer is the test: against a server that
// serves at most K requests at once and answers 429 beyond, the limit ends
// within 20% of K and 429s stay under 5% of the requests.
func TestConvergesOnRefusingServer(t *testing.T) {
	for _, k := range []int{3, 6, 24, 60, 150} {
		limit, sent, refused, l := sim(t, k, 4000, true)
		want := min(k, 100) // the ceiling
		lo, hi := float64(want)*0.8, float64(want)*1.2
		if k < 5 {
			lo, hi = float64(k)-1, float64(k)+1 // 20% of 3 is less than one request
		}
		share := float64(refused) / float64(sent)
		t.Logf("K=%d: limit %d, %d requests, %d refused (%.2f%%), %d changes", k, limit, sent, refused, 100*share, len(l.History()))
		if float64(limit) < lo || float64(limit) > hi {
			t.Errorf("K=%d: final limit %d, want within 20%% of %d", k, limit, want)
		}
		for _, ch := range l.History() {
			if strings.HasPrefix(ch.Reason, "time to first byte") {
				t.Errorf("K=%d: %v, but this server never queues", k, ch)
			}
		}
		if share >= 0.05 {
			t.Errorf("K=%d: %d of %d requests refused (%.1f%%), want under 5%%", k, refused, sent, 100*share)
		}
	}
}

// TestLatencySignal: a local server that queues instead of refusing is
// found by time to first byte: the limit stops growing at a small multiple
// of its slots instead of climbing to the ceiling.
func TestLatencySignal(t *testing.T) {
	const k = 8
	limit, _, refused, l := sim(t, k, 4000, false)
	t.Logf("limit %d after %d changes", limit, len(l.History()))
	if refused != 0 {
		t.Fatalf("%d refused by a queueing server", refused)
	}
	latency := 0
	for _, ch := range l.History() {
		if ch.Limit < ch.From && strings.HasPrefix(ch.Reason, "time to first byte") {
			latency++
		}
	}
	if latency == 0 {
		t.Errorf("no decrease for time to first byte: %v", l.History())
	}
	if limit > 3*k {
		t.Errorf("limit %d against a server of %d slots, want at most %d", limit, k, 3*k)
	}
}

// History returns every change so far, the start first.
func (l *Limiter) History() []Change {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.history)
}
