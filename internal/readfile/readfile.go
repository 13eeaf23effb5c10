// Package readfile reads the files evalmd is handed: whole, with a bound,
// and only regular files, so a wrong path (/dev/zero, a FIFO, which would
// block the open until something writes to it, a multi-gigabyte dump)
// gives a one-line error naming it instead of a hang or exhausted memory.
// Within says whether a file resolves below a folder, for the readers
// that must not leave one (a sheet, its files, a dataset's tables).
package readfile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Limits of the files evalmd reads whole.
const (
	// Sheet bounds a sheet or schema: the largest real sheets are a few
	// megabytes.
	Sheet = 256 << 20
	// Output bounds an output file, whose completions and transcripts may
	// run to hundreds of megabytes.
	Output = 1 << 30
	// Data bounds a benchmark's data file or a file a sheet sends.
	Data = 1 << 30
	// Small bounds state files and line files.
	Small = 64 << 20
)

// ErrTooLarge is wrapped by the error for a file past its bound.
var ErrTooLarge = errors.New("file too large")

// ErrNotRegular is wrapped by the error for what is not a regular file.
var ErrNotRegular = errors.New("not a regular file")

// Open opens the file at path for reading (links followed), refusing
// anything but a regular file in one line naming it. A FIFO is opened
// without waiting for a writer, so it is refused instead of blocking.
func Open(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|nonBlock, 0)
	if err != nil {
		return nil, err // *PathError names the path
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		return nil, fmt.Errorf("%s: %w (%s); evalmd reads files only", path, ErrNotRegular, kind(fi.Mode()))
	}
	return f, nil
}

// kind names what a file that is not regular is.
func kind(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a folder"
	case m&fs.ModeNamedPipe != 0:
		return "a FIFO"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeDevice != 0:
		return "a device"
	}
	return m.Type().String()
}

// Read reads the regular file at path, refusing one larger than limit
// bytes. The error names the path.
func Read(path string, limit int64) ([]byte, error) {
	return ReadThrough(path, limit, nil)
}

// ReadThrough is Read reading the file through wrap(file) (the file
// itself when wrap is nil), whose error stops the reading: a reader that
// refuses what it sees refuses it before the file is held whole.
func ReadThrough(path string, limit int64, wrap func(io.Reader) io.Reader) ([]byte, error) {
	f, size, err := openBounded(path, limit)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var r io.Reader = f
	if wrap != nil {
		r = wrap(f)
	}
	// One byte past the bound tells a file at the bound from one that
	// grew past it since.
	buf := make([]byte, 0, size+1)
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if int64(len(buf)) > limit {
			return nil, tooLarge(path, limit)
		}
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
	}
}

// ReadString is Read of a text, read straight into the string it
// returns: a 60 MB sheet is not held twice, as bytes and as their copy.
func ReadString(path string, limit int64) (string, error) {
	f, size, err := openBounded(path, limit)
	if err != nil {
		return "", err
	}
	defer f.Close()
	var b strings.Builder
	b.Grow(int(size) + 1)
	n, err := io.Copy(&b, io.LimitReader(f, limit+1))
	switch {
	case n > limit:
		return "", tooLarge(path, limit)
	case err != nil:
		return "", fmt.Errorf("%s: %w", path, err)
	}
	return b.String(), nil
}

// openBounded opens the regular file at path (Open) and says its size,
// refusing one larger than limit bytes.
func openBounded(path string, limit int64) (*os.File, int64, error) {
	f, err := Open(path)
	if err != nil {
		return nil, 0, err
	}
	size := int64(0)
	if fi, err := f.Stat(); err == nil {
		size = fi.Size()
	}
	if size > limit {
		f.Close()
		return nil, 0, tooLarge(path, limit)
	}
	return f, size, nil
}

func tooLarge(path string, limit int64) error {
	return fmt.Errorf("%s: %w: more than %d MB (is it the file you meant?)", path, ErrTooLarge, limit>>20)
}

// Within says whether path is root or below it, both with their links
// already resolved (filepath.EvalSymlinks).
func Within(path, root string) bool {
	ap, err1 := filepath.Abs(path)
	ar, err2 := filepath.Abs(root)
	if err1 != nil || err2 != nil {
		return false
	}
	r, err := filepath.Rel(ar, ap)
	return err == nil && r != ".." && !strings.HasPrefix(r, ".."+string(filepath.Separator)) && !filepath.IsAbs(r)
}

// ErrOutside is wrapped by Below's error for a path that resolves outside
// its folder.
var ErrOutside = errors.New("outside")

// Below resolves the links of path and returns where it lands, which must
// be below root (root's own links resolved too): a link out of the folder
// is an error naming path, where it leads and root.
func Below(path, root string) (string, error) {
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return "", err
	}
	r, err := filepath.EvalSymlinks(root)
	if err != nil {
		return "", err
	}
	if !Within(real, r) {
		return real, fmt.Errorf("%s resolves to %s, %w %s", path, real, ErrOutside, root)
	}
	return real, nil
}

// Inside is the one check of every reader of a folder handed over (a
// dataset to convert, root): path must resolve, its links followed, below
// root, and be a regular file. It returns where path lands, for readers
// that open it by name. A link out of root (introduction.txt ->
// ~/.ssh/id_rsa) is refused before a byte of its target is read, as is a
// FIFO, which would hold the reader, or a device; the error is one line
// naming path and, for a link, where it leads.
func Inside(path, root string) (string, error) {
	real, err := Below(path, root)
	if errors.Is(err, ErrOutside) {
		return "", fmt.Errorf("%s leads to %s, %w the input folder %s: a link out of it is never followed (copy the file in)", path, real, ErrOutside, root)
	}
	if pe := (*fs.PathError)(nil); errors.As(err, &pe) {
		// The file, not the part of its path that is missing, is named.
		return "", &fs.PathError{Op: "open", Path: path, Err: pe.Err}
	}
	if err != nil {
		return "", err
	}
	fi, err := os.Stat(real) // a FIFO is not opened, so not waited on
	if err != nil {
		return "", err
	}
	if !fi.Mode().IsRegular() {
		name := path
		if real != path {
			name = path + " leads to " + real
		}
		return "", fmt.Errorf("%s: %w (%s); evalmd reads files only", name, ErrNotRegular, kind(fi.Mode()))
	}
	return real, nil
}

// OpenInside opens path, a file of the folder root handed over, once
// Inside has accepted it.
func OpenInside(path, root string) (*os.File, error) {
	real, err := Inside(path, root)
	if err != nil {
		return nil, err
	}
	return Open(real)
}

// ReadInside reads path, a file of the folder root handed over, once
// Inside has accepted it, refusing one larger than limit bytes.
func ReadInside(path, root string, limit int64) ([]byte, error) {
	real, err := Inside(path, root)
	if err != nil {
		return nil, err
	}
	return Read(real, limit)
}
