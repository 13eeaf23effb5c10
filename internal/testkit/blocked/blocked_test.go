package blocked

import (
	"context"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func receives(c chan struct{}) { <-c }

func selects(a, b chan struct{}) {
	select {
	case <-a:
	case <-b:
	}
}

func locks(mu *sync.Mutex, n *int) {
	mu.Lock()
	*n++
	mu.Unlock()
}

func spins(stop *atomic.Bool) {
	for !stop.Load() {
	}
}

// Goroutines waiting on a channel, a select or a lock are counted by the
// function they wait in, until they go on; one that runs is not.
func TestCount(t *testing.T) {
	release := make(chan struct{})
	var mu sync.Mutex
	locked := 0
	mu.Lock()
	var stop atomic.Bool
	var wg sync.WaitGroup
	for range 3 {
		wg.Go(func() { receives(release) })
		wg.Go(func() { selects(release, nil) })
		wg.Go(func() { locks(&mu, &locked) })
	}
	wg.Go(func() { spins(&stop) })
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	for _, fn := range []string{"blocked.receives", "blocked.selects", "blocked.locks"} {
		if err := Wait(ctx, fn, 3); err != nil {
			t.Fatal(err)
		}
		if n := Count(fn); n != 3 {
			t.Errorf("%s: %d blocked, want 3", fn, n)
		}
	}
	for _, fn := range []string{"blocked.spins", "blocked.TestCount", "receives", ""} {
		if n := Count(fn); n != 0 {
			t.Errorf("%q: %d blocked, want 0", fn, n)
		}
	}
	close(release)
	mu.Unlock()
	stop.Store(true)
	wg.Wait()
	if locked != 3 {
		t.Errorf("%d took the lock, want 3", locked)
	}
	for _, fn := range []string{"blocked.receives", "blocked.selects", "blocked.locks"} {
		if n := Count(fn); n != 0 {
			t.Errorf("%s: %d blocked once released", fn, n)
		}
	}
}

// Wait ends with its context, saying how many it saw.
func TestWaitEnds(t *testing.T) {
	release := make(chan struct{})
	defer close(release)
	go receives(release)
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	if err := Wait(ctx, "blocked.receives", 1); err != nil {
		t.Fatal(err)
	}
	ctx, cancel = context.WithTimeout(t.Context(), 50*time.Millisecond)
	defer cancel()
	err := Wait(ctx, "blocked.receives", 2)
	if err == nil || !strings.Contains(err.Error(), "1 goroutines blocked in blocked.receives, want 2") {
		t.Errorf("Wait for one too many: %v", err)
	}
}
