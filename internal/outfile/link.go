package outfile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// Link puts the file src at path, for a converter that hands its sheets
// their data inside their own folder (a sheet may send only files below
// its folder or one the user vouches for): a hard link when path is new
// and on src's file system, so no byte is copied, else a copy written as
// Write writes (never over an input, nor over a file evalmd did not write
// unless opt.Force; one that already holds src's bytes may be replaced).
// A path that already is src is left alone. It reports whether path is a
// link. A linked file shares its bytes with src: evalmd replaces files by
// rename, never in place, so no write of evalmd's reaches src.
func Link(path, src string, opt Options) (linked bool, err error) {
	si, err := os.Stat(src)
	if err != nil {
		return false, err
	}
	if !si.Mode().IsRegular() {
		return false, fmt.Errorf("%s: not a regular file", src)
	}
	di, err := os.Stat(path)
	switch {
	case err == nil && os.SameFile(si, di):
		return true, nil
	case errors.Is(err, fs.ErrNotExist):
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return false, err
		}
		if os.Link(src, path) == nil {
			return true, nil
		}
	case err == nil:
		if opt.Source, err = hashFile(src); err != nil {
			return false, err
		}
	}
	return false, WriteFunc(path, opt, func(w io.Writer) error {
		f, err := os.Open(src)
		if err != nil {
			return err
		}
		defer f.Close()
		_, err = io.Copy(w, f)
		return err
	})
}
