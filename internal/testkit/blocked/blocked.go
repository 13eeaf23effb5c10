// Package blocked tells a test when goroutines of the code under test are
// blocked in a function: a handler holding a request, a job waiting for
// another's lock. A test that must act only once that is so waits for it
// instead of sleeping and hoping the machine got there first.
package blocked

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"time"
)

// Wait waits until n goroutines are blocked in fn (see Count), or ctx
// ends: then the error says how many were.
func Wait(ctx context.Context, fn string, n int) error {
	tick := time.NewTicker(time.Millisecond)
	defer tick.Stop()
	for {
		got := Count(fn)
		if got >= n {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%d goroutines blocked in %s, want %d: %w", got, fn, n, ctx.Err())
		case <-tick.C:
		}
	}
}

// Count is how many goroutines are blocked in fn now: waiting (on a
// channel, a select, a lock, a timer...) with fn the innermost function
// of their stacks outside the runtime and sync packages. fn is named as
// a stack trace names it, from its package's last element on:
// "aggcmd.(*server).serveChanges".
func Count(fn string) int {
	n := 0
	for _, g := range strings.Split(stacks(), "\n\n") {
		header, frames, _ := strings.Cut(g, "\n")
		if blocked(header) && innermost(frames) == fn {
			n++
		}
	}
	return n
}

// stacks is every goroutine's stack trace.
func stacks() string {
	buf := make([]byte, 64<<10)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			return string(buf[:n])
		}
		buf = make([]byte, 2*len(buf))
	}
}

// blocked says whether a goroutine's header ("goroutine 7 [select, 2
// minutes]:") says it waits: its state is a reason to wait, not one of
// the runtime's other states.
func blocked(header string) bool {
	_, state, ok := strings.Cut(header, " [")
	if !ok {
		return false
	}
	state, _, _ = strings.Cut(state, "]")
	state, _, _ = strings.Cut(state, ",")
	switch state {
	case "idle", "runnable", "running", "syscall", "dead", "copystack", "preempted", "waiting for cgo callback":
		return false
	}
	return true
}

// innermost is the first function of a goroutine's frames outside the
// runtime and sync packages, from its package's last element on.
func innermost(frames string) string {
	for line := range strings.Lines(frames) {
		if strings.HasPrefix(line, "\t") || strings.HasPrefix(line, "created by ") {
			continue
		}
		name := strings.TrimSpace(line)
		if i := strings.LastIndex(name, "("); i > 0 && strings.HasSuffix(name, ")") {
			name = name[:i] // the arguments
		}
		if i := strings.LastIndex(name, "/"); i >= 0 {
			name = name[i+1:]
		}
		if !strings.HasPrefix(name, "runtime.") && !strings.HasPrefix(name, "sync.") && !strings.HasPrefix(name, "atomic.") {
			return name
		}
	}
	return ""
}
