package runner

// This file is the run's budget (Options.Budget, run --max-cost): no
// request is sent unless what was spent, the worst case of every request
// in flight and the worst case of this one stay within the cap.

import (
	"context"
	"fmt"
	"sync"

	"github.com/evalmd/evalmd/model"
)

// Budget caps what a run spends on model calls, in dollars.
type Budget struct {
	// Max is the cap: the run's spending (its calls' costs, as
	// Options.Cost prices them) plus the worst case of the requests in
	// flight never passes it.
	Max float64
	// Worst is the most one attempt at job j could cost: its input and
	// its max_tokens at the model's list price. It must not be less than
	// what Options.Cost will say of the answer, or the cap can be passed.
	Worst func(modelName string, t model.Task) float64
}

// BudgetError is Run's error when the budget stopped the run: every
// answer received is emitted and journaled, and Unasked jobs were never
// sent (a rerun with the same journal asks only those).
type BudgetError struct {
	Max     float64 // the cap
	Spent   float64 // what this run's calls cost
	Unasked int     // the jobs not emitted
}

func (e *BudgetError) Error() string {
	return fmt.Sprintf("the budget of $%.4f was reached: $%.4f spent, %d questions left unasked", e.Max, e.Spent, e.Unasked)
}

// BudgetReached says the run stopped at its cap, for a command's exit
// status.
func (e *BudgetError) BudgetReached() bool { return true }

// budget is a Budget's state in a run, shared by the workers.
type budget struct {
	max float64
	mu  sync.Mutex
	// spent is what the calls answered cost; held the worst case of
	// those in flight.
	spent, held float64
	// holding counts the requests held for: held is a float sum, which
	// need not come back to exactly 0 when they all settled.
	holding int
	// changed is closed (and replaced) whenever held goes down, waking
	// the workers waiting for room.
	changed chan struct{}
	// reached is set once a request did not fit with nothing in flight:
	// the run sends nothing more.
	reached bool
}

func newBudget(b *Budget) *budget {
	if b == nil {
		return nil
	}
	return &budget{max: b.Max, changed: make(chan struct{})}
}

// reserve holds worst for a request about to be sent. While it does not
// fit, it waits for a request in flight to settle (its worst case is
// given back, its real cost kept); once it does not fit with none in
// flight, the budget is reached and reserve returns false, as it does
// when ctx ends.
func (b *budget) reserve(ctx context.Context, worst float64) bool {
	for {
		b.mu.Lock()
		switch {
		case b.reached:
			b.mu.Unlock()
			return false
		case b.spent+b.held+worst <= b.max:
			b.held += worst
			b.holding++
			b.mu.Unlock()
			return true
		case b.holding == 0:
			b.reached = true
			b.wake()
			b.mu.Unlock()
			return false
		}
		ch := b.changed
		b.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			return false
		}
	}
}

// settle gives back the worst case held for a request and counts what it
// cost.
func (b *budget) settle(worst, cost float64) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.holding--
	b.held = max(0, b.held-worst)
	if b.holding == 0 {
		b.held = 0
	}
	b.spent += cost
	b.wake()
}

// wake wakes every waiting worker; b.mu is held.
func (b *budget) wake() {
	close(b.changed)
	b.changed = make(chan struct{})
}

// state is what was spent and whether the cap was reached.
func (b *budget) state() (spent float64, reached bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.spent, b.reached
}

// reserveFor holds the worst case of an attempt at j; ok is false when
// the budget is reached (the run then stops sending) or start ended.
// Without a budget it holds nothing.
func (r *run) reserveFor(start context.Context, l *lane, j Job) (worst float64, ok bool) {
	if r.budget == nil {
		return 0, true
	}
	worst = r.opt.Budget.Worst(l.m.Name(), j.Task)
	if !r.budget.reserve(start, worst) {
		if _, reached := r.budget.state(); reached {
			r.stopSending()
		}
		return 0, false
	}
	return worst, true
}

// spend settles an attempt's reservation with its cost: the answer's
// price, or the worst case when it has none (a model unpriced), and
// nothing for an attempt that failed.
func (r *run) spend(l *lane, worst float64, resp model.Response, err error) {
	if r.budget == nil {
		return
	}
	cost := 0.0
	if err == nil {
		cost = worst
		if r.opt.Cost != nil {
			if c, known := r.opt.Cost(l.m.Name(), resp); known {
				cost = c
			}
		}
	}
	r.budget.settle(worst, cost)
}
