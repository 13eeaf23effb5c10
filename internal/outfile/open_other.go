//go:build !unix

package outfile

import "io/fs"

// Without O_NOFOLLOW the record is checked with Lstat before it is opened
// (see openOwn).
const (
	noFollow = 0
	nonBlock = 0
)

func links(fs.FileInfo) uint64 { return 1 }
