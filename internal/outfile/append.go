package outfile

import (
	"errors"
	"fmt"
	"os"
)

// Append adds data at the end of the file at path, in one write: a file
// another program made for the command to add to, such as a CI's step
// summary (GitHub's GITHUB_STEP_SUMMARY), which is not evalmd's to
// replace. It never follows a symbolic link, never waits on a FIFO, and
// writes only into a regular file that is none of opt.Inputs; a missing
// file is created. The file is not recorded as evalmd's.
func Append(path string, data []byte, opt Options) error {
	if fi, err := os.Lstat(path); err == nil && fi.Mode()&os.ModeSymlink != 0 {
		return linkError(path)
	} else if err == nil && !fi.Mode().IsRegular() {
		return fmt.Errorf("%s %w", path, ErrNotFile)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE|noFollow|nonBlock, 0o644)
	if err != nil {
		// A link put in its place since the Lstat fails here too.
		if fi, lerr := os.Lstat(path); lerr == nil && fi.Mode()&os.ModeSymlink != 0 {
			return linkError(path)
		}
		return fmt.Errorf("appending to %w", err)
	}
	fi, err := f.Stat()
	switch {
	case err != nil:
		f.Close()
		return fmt.Errorf("%s: %w", path, err)
	case !fi.Mode().IsRegular():
		f.Close()
		return fmt.Errorf("%s %w", path, ErrNotFile)
	}
	for _, in := range opt.Inputs {
		if ii, err := os.Stat(in); err == nil && os.SameFile(fi, ii) {
			f.Close()
			return fmt.Errorf("%s %w", path, ErrInput)
		}
	}
	_, werr := f.Write(data)
	if err := errors.Join(werr, f.Close()); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}
