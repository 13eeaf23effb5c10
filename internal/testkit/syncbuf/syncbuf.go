// Package syncbuf is a text buffer that goroutines may write and read at
// once: what tests give a command as its stdout or stderr while they
// watch it run (run --watch, agg --serve, a run being interrupted).
package syncbuf

import (
	"strings"
	"sync"
)

// Buffer is a strings.Builder behind a lock. The zero Buffer is empty
// and ready.
type Buffer struct {
	mu sync.Mutex
	b  strings.Builder
}

// Write appends p.
func (b *Buffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

// String is what was written so far.
func (b *Buffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// Reset empties the buffer.
func (b *Buffer) Reset() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.b.Reset()
}
