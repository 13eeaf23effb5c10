// Package readfile reads whole files with a bound, so a wrong path
// (/dev/zero, a FIFO, a multi-gigabyte dump) gives a one-line error
// instead of exhausting memory.
package readfile

import (
	"errors"
	"fmt"
	"io"
	"os"
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

// Read reads the file at path, refusing one larger than limit bytes. The
// error names the path.
func Read(path string, limit int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err // *PathError names the path
	}
	defer f.Close()
	size := int64(0)
	if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() {
		size = fi.Size()
		if size > limit {
			return nil, tooLarge(path, limit)
		}
	}
	// One byte past the bound tells a file at the bound from a larger one;
	// devices and pipes report no size and are read up to it.
	buf := make([]byte, 0, min(size, limit)+1)
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := f.Read(buf[len(buf):cap(buf)])
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

func tooLarge(path string, limit int64) error {
	return fmt.Errorf("%s: %w: more than %d MB (is it the file you meant?)", path, ErrTooLarge, limit>>20)
}
