//go:build linux

package fsize

import (
	"syscall"
	"testing"
)

// Limit runs f with writes past limit bytes of any one file failing. The
// limit is the process's: no other test may run meanwhile (none here runs
// in parallel). It skips t where the limit cannot be set.
func Limit(t *testing.T, limit uint64, f func()) {
	t.Helper()
	var old syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_FSIZE, &old); err != nil {
		t.Skip(err)
	}
	lim := old
	lim.Cur = limit
	if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &lim); err != nil {
		t.Skip(err)
	}
	defer func() {
		if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &old); err != nil {
			t.Fatal(err)
		}
	}()
	f()
}
