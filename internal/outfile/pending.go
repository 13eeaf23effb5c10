package outfile

import (
	"errors"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
)

// pending is a temporary file beside its target that replaces the target
// in one rename.
type pending struct {
	f      *os.File
	target string
	done   bool
}

// newPending starts a file to replace target: hidden, beside it, created
// only where nothing is (O_EXCL follows no link, dangling or not), with
// target's permissions when it is a regular file and 0644 (under the
// umask) otherwise.
func newPending(target string) (*pending, error) {
	perm, keep := fs.FileMode(0o644), false
	if fi, err := os.Lstat(target); err == nil && fi.Mode().IsRegular() {
		perm, keep = fi.Mode().Perm(), true
	}
	prefix := filepath.Join(filepath.Dir(target), "."+filepath.Base(target))
	for range 1000 {
		name := prefix + strconv.FormatUint(rand.Uint64(), 10)
		f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, perm)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return nil, err
		}
		if keep {
			// The umask does not narrow what the file had.
			if err := f.Chmod(perm); err != nil {
				f.Close()
				os.Remove(name)
				return nil, err
			}
		}
		return &pending{f: f, target: target}, nil
	}
	return nil, &fs.PathError{Op: "create temporary file", Path: prefix, Err: fs.ErrExist}
}

// replace closes the file and renames it over the target. The caller has
// synced it. A rename replaces the target's name itself: were it a link,
// the link would be replaced and its destination left alone.
func (p *pending) replace() error {
	if err := p.f.Close(); err != nil {
		return err
	}
	if err := os.Rename(p.f.Name(), p.target); err != nil {
		return err
	}
	p.done = true
	return nil
}

// cleanup removes the temporary file unless it replaced the target.
func (p *pending) cleanup() {
	if p.done {
		return
	}
	p.f.Close()
	os.Remove(p.f.Name())
}

// ReplaceFile writes data to a temporary file beside path and renames it
// over path, so a reader sees the old content or the new, never a part;
// unlike Write, it neither checks what it replaces nor records it (a
// cache's entries, the record itself). Like Write, it refuses a path that
// is a symbolic link (ErrLink).
func ReplaceFile(path string, data []byte) error {
	if fi, err := os.Lstat(path); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
		return linkError(path)
	}
	pf, err := newPending(path)
	if err != nil {
		return err
	}
	defer pf.cleanup()
	if _, err := pf.f.Write(data); err != nil {
		return err
	}
	if err := pf.f.Sync(); err != nil {
		return err
	}
	return pf.replace()
}

// Scratch makes a scratch file beside target, for a command's own use
// while it writes target (a run's graded answers, on their way to its
// output file in sheet order): hidden, created only where nothing is
// (O_EXCL follows no link), and neither checked nor recorded. On a system
// that lets an open file go, it is removed from its folder at once, so
// nothing is left behind however the process ends; elsewhere done
// removes it. done closes it.
func Scratch(target string) (f *os.File, done func() error, err error) {
	pf, err := newPending(target)
	if err != nil {
		return nil, nil, err
	}
	name := pf.f.Name()
	removed := os.Remove(name) == nil // Windows keeps an open file
	return pf.f, func() error {
		err := pf.f.Close()
		if !removed {
			if rerr := os.Remove(name); rerr != nil && err == nil {
				err = rerr
			}
		}
		return err
	}, nil
}
