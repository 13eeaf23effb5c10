//go:build !unix

package readfile

import "errors"

func mkfifo(string) error { return errors.New("no FIFOs here") }
