//go:build unix

package runner

import (
	"os"
	"syscall"
)

// lockFile takes an exclusive advisory lock on f without waiting; the lock
// goes away with the process, so a killed run never leaves a stale lock.
func lockFile(f *os.File) (unlock func(), err error) {
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		return nil, err
	}
	return func() { _ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN) }, nil
}
