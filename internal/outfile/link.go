package outfile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/evalmd/evalmd/internal/readfile"
)

// Link puts the file src, read from the input folder root, at path, for a
// converter that hands its sheets their data inside their own folder (a
// sheet may send only files below its folder or one the user vouches
// for): a hard link when path is new and on src's file system, so no byte
// is copied, else a copy written as Write writes (never over an input, nor
// over a file evalmd did not write unless opt.Force; one that already
// holds src's bytes may be replaced). src must be a regular file that
// resolves below root: a link out of the input folder (to ~/secret.csv)
// is refused, never copied in. A path that already is src is left alone.
// It reports whether path is a link. A linked file shares its bytes with
// src: evalmd replaces files by rename, never in place, so no write of
// evalmd's reaches src.
func Link(path, src, root string, opt Options) (linked bool, err error) {
	real, err := readfile.Inside(src, root)
	if err != nil {
		return false, err
	}
	f, err := readfile.Open(real) // a FIFO is refused, not waited on
	if err != nil {
		return false, err
	}
	defer f.Close()
	si, err := f.Stat()
	if err != nil {
		return false, err
	}
	di, err := os.Lstat(path)
	switch {
	case err == nil && os.SameFile(si, di):
		return true, nil
	case errors.Is(err, fs.ErrNotExist):
		if err := MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return false, err
		}
		// real itself is linked, never a link to it.
		if HardLink(real, path) == nil {
			return true, nil
		}
	case err == nil:
		if opt.Source, err = hashFile(real); err != nil {
			return false, fmt.Errorf("%s: %w", src, err)
		}
	}
	return false, WriteFunc(path, opt, func(w io.Writer) error {
		if _, err := f.Seek(0, io.SeekStart); err != nil {
			return err
		}
		_, err := io.Copy(w, f)
		return err
	})
}
