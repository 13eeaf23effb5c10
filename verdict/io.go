package verdict

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"time"

	"github.com/evalmd/evalmd/internal/outfile"
	"github.com/evalmd/evalmd/internal/readfile"
)

// PathIn is the verdicts file of the folder dir.
func PathIn(dir string) string { return filepath.Join(dir, FileName) }

// Read reads the verdicts of the folder dir: an empty set when it has no
// verdicts file. A link there is not followed out of dir. bad names each line that is no verdict (FILE:LINE); the
// others apply. err is for a file that cannot be read at all.
func Read(dir string) (s *Set, bad []error, err error) {
	path := PathIn(dir)
	data, err := readfile.ReadInside(path, dir, readfile.Small)
	if errors.Is(err, fs.ErrNotExist) {
		return NewSet(path, nil), nil, nil
	}
	if err != nil {
		return nil, nil, err
	}
	s, bad = Parse(path, data)
	return s, bad, nil
}

// attempts bounds how often Add tries again when another process wrote
// the file between its read and its write.
const attempts = 50

// Add writes vs into the verdicts file of the folder dir, through the one
// writer: each replaces the verdict on its answer, if any, and every
// other line stays as it is. The file is read and written again whenever
// another process (a second reviewer) wrote it meanwhile, so both
// reviewers' verdicts are kept.
func Add(ctx context.Context, dir string, vs ...Verdict) error {
	path := PathIn(dir)
	for range attempts {
		data, err := readfile.ReadInside(path, dir, readfile.Small)
		expect := outfile.Absent
		switch {
		case errors.Is(err, fs.ErrNotExist):
			data = nil
		case err != nil:
			return err
		default:
			expect = outfile.Sum(data)
		}
		// The file is the people's as much as evalmd's: a hand edit is
		// merged, not refused (Force), and Expect refuses a file another
		// process wrote since it was read here.
		err = outfile.Write(path, merge(data, vs), outfile.Options{Force: true, Expect: expect})
		if !errors.Is(err, outfile.ErrChanged) {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(10 * time.Millisecond):
		}
	}
	return fmt.Errorf("%s: written by another process %d times while adding a verdict; try again", path, attempts)
}
