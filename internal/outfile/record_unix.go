//go:build unix

package outfile

import (
	"errors"
	"io/fs"
	"syscall"
)

// The record is opened without following a symbolic link and without
// waiting on a FIFO.
const (
	noFollow = syscall.O_NOFOLLOW
	nonBlock = syscall.O_NONBLOCK
)

// isLoop says whether an open with O_NOFOLLOW failed on a symbolic link.
func isLoop(err error) bool { return errors.Is(err, syscall.ELOOP) }

// links is a file's count of hard links.
func links(fi fs.FileInfo) uint64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Nlink)
	}
	return 1
}
