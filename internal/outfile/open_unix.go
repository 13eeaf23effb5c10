//go:build unix

package outfile

import (
	"io/fs"
	"syscall"
)

// A file written in place (the record, a journal) is opened without
// following a symbolic link and without waiting on a FIFO (openOwn).
const (
	noFollow = syscall.O_NOFOLLOW
	nonBlock = syscall.O_NONBLOCK
)

// links is a file's count of hard links.
func links(fi fs.FileInfo) uint64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Nlink)
	}
	return 1
}
