//go:build !unix

package outfile

import "errors"

func mkfifo(string) error { return errors.New("no FIFOs here") }
