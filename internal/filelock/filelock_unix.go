//go:build unix

// Package filelock takes exclusive advisory locks on open files, so two
// processes never append to one journal.
package filelock

import (
	"os"
	"syscall"
)

// Lock takes an exclusive lock on f without waiting; the lock goes away
// with the process, so a killed run never leaves a stale lock.
func Lock(f *os.File) (unlock func(), err error) {
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		return nil, err
	}
	return func() { _ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN) }, nil
}
