//go:build unix

package outfile

import (
	"os"
	"syscall"
)

// lockDir holds an exclusive advisory lock on a folder, so two writers (two
// goroutines or two processes) do not interleave a check, a rename and the
// record. The lock goes away with the process.
func lockDir(dir string) (unlock func(), err error) {
	f, err := os.Open(dir)
	if err != nil {
		return nil, err
	}
	for {
		err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX)
		if err != syscall.EINTR {
			break
		}
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return func() {
		_ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		f.Close()
	}, nil
}
