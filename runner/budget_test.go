package runner

import (
	"context"
	"errors"
	"math/rand/v2"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/evalmd/evalmd/model"
)

// billing is a fake model's bill: what each answer it returned cost, and
// the most that was ever owed or held at once (the answers returned plus
// the worst case of the requests in flight).
type billing struct {
	mu               sync.Mutex
	billed, inFlight float64
	peak             float64
}

const (
	budgetPriceIn, budgetPriceOut = 2.0, 8.0 // dollars per million tokens
	budgetMaxIn, budgetMaxOut     = 5000, 1000
)

// budgetCost prices usage at the test's prices.
func budgetCost(in, out int) float64 {
	return (float64(in)*budgetPriceIn + float64(out)*budgetPriceOut) / 1e6
}

// worstCost is the test's Budget.Worst: every request at its largest.
func worstCost(string, model.Task) float64 { return budgetCost(budgetMaxIn, budgetMaxOut) }

// billed answers with usage drawn at random below the worst case, after a
// short wait so that many requests are in flight at once.
func (b *billing) model(seed uint64) *funcModel {
	var mu sync.Mutex
	rng := rand.New(rand.NewPCG(seed, 1))
	return newFuncModel(func(ctx context.Context, t model.Task) (model.Response, error) {
		mu.Lock()
		in, out := 1000+rng.IntN(budgetMaxIn-1000), rng.IntN(budgetMaxOut)
		mu.Unlock()
		worst := worstCost("", t)
		b.mu.Lock()
		b.inFlight += worst
		b.peak = max(b.peak, b.billed+b.inFlight)
		b.mu.Unlock()
		time.Sleep(time.Millisecond)
		b.mu.Lock()
		b.inFlight -= worst
		b.billed += budgetCost(in, out)
		b.mu.Unlock()
		return model.Response{Text: "answer to " + t.Question.Name, InputTokens: in, OutputTokens: out}, nil
	})
}

// TestBudgetNeverPassed: with 16 requests in flight and 400 questions, a
// cap of $0.50 (about 40 answers) is never passed, not even by the
// requests in flight, and the run ends with a *BudgetError counting the
// jobs it never sent; a rerun with the same journal and a cap for the
// rest asks only those.
func TestBudgetNeverPassed(t *testing.T) {
	const n, cap = 400, 0.50
	journal := filepath.Join(t.TempDir(), "journal.jsonl")
	cost := func(_ string, r model.Response) (float64, bool) {
		return budgetCost(r.InputTokens, r.OutputTokens), true
	}
	var b billing
	jobs := makeJobs(n)
	opt := Options{Concurrency: 16, Journal: journal, Cost: cost, Budget: &Budget{Max: cap, Worst: worstCost}}
	m := b.model(1)
	got, st, err := collect(t, context.Background(), m, jobs, opt)
	if m.maxInFlight < 8 {
		t.Errorf("at most %d requests in flight at once; the test means 16", m.maxInFlight)
	}
	var be *BudgetError
	if !errors.As(err, &be) {
		t.Fatalf("err = %v, want a *BudgetError", err)
	}
	if b.billed > cap || b.peak > cap {
		t.Errorf("billed $%.4f, peak owed or held $%.4f: past the cap of $%.2f", b.billed, b.peak, cap)
	}
	if be.Spent != b.billed || len(got) != st.Answered || be.Unasked != n-len(got) || be.Unasked == 0 {
		t.Errorf("BudgetError %+v, %d emitted, fake billed $%.4f", be, len(got), b.billed)
	}
	// A reservation given back leaves room: the run goes on until less
	// than one worst case is left.
	if left := cap - b.billed; left >= 2*worstCost("", model.Task{}) {
		t.Errorf("stopped with $%.4f of $%.2f left, more than two requests' worst case", left, cap)
	}
	t.Logf("first run: %d of %d answered, $%.4f billed (peak held $%.4f) of $%.2f, %d in flight at most",
		len(got), n, b.billed, b.peak, cap, m.maxInFlight)

	var b2 billing
	m2 := b2.model(2)
	opt.Budget.Max = 100
	got2, st2, err := collect(t, context.Background(), m2, jobs, opt)
	if err != nil {
		t.Fatal(err)
	}
	if st2.FromJournal != len(got) || int(m2.calls.Load()) != n-len(got) || len(got2) != n {
		t.Errorf("rerun: %d from the journal, %d calls, %d emitted; want %d, %d, %d",
			st2.FromJournal, m2.calls.Load(), len(got2), len(got), n-len(got), n)
	}
}

// TestBudgetReserve: the gate's arithmetic, one request at a time.
func TestBudgetReserve(t *testing.T) {
	for _, tc := range []struct {
		name             string
		max, spent, held float64
		worst            float64
		want, reached    bool
	}{
		{"fits", 1, 0.2, 0.3, 0.5, true, false},
		{"exactly at the cap", 1, 0.5, 0, 0.5, true, false},
		{"over with none in flight", 1, 0.7, 0, 0.5, false, true},
		{"larger than the cap", 1, 0, 0, 1.5, false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := newBudget(&Budget{Max: tc.max})
			b.spent, b.held = tc.spent, tc.held
			if tc.held > 0 {
				b.holding = 1
			}
			if got := b.reserve(context.Background(), tc.worst); got != tc.want {
				t.Errorf("reserve = %v, want %v", got, tc.want)
			}
			if _, reached := b.state(); reached != tc.reached {
				t.Errorf("reached = %v, want %v", reached, tc.reached)
			}
		})
	}
}

// TestBudgetWaitsForInFlight: a request that does not fit while another
// is in flight waits for it, and is sent once its cost leaves room.
func TestBudgetWaitsForInFlight(t *testing.T) {
	b := newBudget(&Budget{Max: 1})
	if !b.reserve(context.Background(), 0.8) {
		t.Fatal("first reserve refused")
	}
	done := make(chan bool)
	go func() { done <- b.reserve(context.Background(), 0.5) }()
	select {
	case <-done:
		t.Fatal("second reserve did not wait")
	case <-time.After(20 * time.Millisecond):
	}
	b.settle(0.8, 0.3)
	if !<-done {
		t.Error("second reserve refused after the first cost $0.30 of its $0.80")
	}
	ctx, cancel := context.WithCancel(context.Background())
	go func() { done <- b.reserve(ctx, 0.5) }()
	cancel()
	if <-done {
		t.Error("a reserve whose context ended was granted")
	}
}
