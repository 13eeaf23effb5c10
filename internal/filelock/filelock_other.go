//go:build !unix

// Package filelock takes exclusive advisory locks on open files, so two
// processes never append to one journal.
package filelock

import "os"

// Lock does nothing where flock is missing: two runs sharing a journal are
// then the caller's to prevent.
func Lock(f *os.File) (unlock func(), err error) {
	return func() {}, nil
}
