//go:build !unix

package runner

import "os"

// lockFile does nothing where flock is missing: two runs sharing a journal
// are then the caller's to prevent.
func lockFile(f *os.File) (unlock func(), err error) {
	return func() {}, nil
}
