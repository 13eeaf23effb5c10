package result

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// IsOutputName is LIME's rule for which files are output files: the name
// starts with "output" and ends with ".json".
func IsOutputName(name string) bool {
	return strings.HasPrefix(name, "output") && strings.HasSuffix(name, ".json")
}

// IsGlob says whether where is a glob pattern (it holds *, ? or [) rather
// than a path: Find matches it instead of walking it.
func IsGlob(where string) bool { return strings.ContainsAny(where, "*?[") }

// DisplayRoot is the folder that names found by Find(where) are best shown
// relative to: where itself, or for a glob pattern the folder part before
// its first pattern character.
func DisplayRoot(where string) string {
	if !IsGlob(where) {
		return where
	}
	i := strings.IndexAny(where, "*?[")
	j := strings.LastIndex(where[:i], string(filepath.Separator))
	if j < 0 {
		return "."
	}
	if j == 0 {
		return string(filepath.Separator)
	}
	return where[:j]
}

// ErrNoMatch is returned by Find for a glob pattern that matches nothing.
var ErrNoMatch = errors.New("no file matches")

// Superseded is the folder, beside the outputs of a run, that the earlier
// outputs its new ones supersede are moved to (see harness/internal/reuse):
// history, kept readable (agg -i DIR/superseded reads it) but counted by
// no reader of DIR. Its files keep their names; LIME's agg.py, which
// lists only the folder it is given, never sees them either.
const Superseded = "superseded"

// Find lists the output files at where, sorted. A folder is searched at
// any depth, but for the Superseded folders below it, and a folder below
// it that cannot be read is passed to warn and skipped; where itself must
// be readable. A glob pattern
// ("results/*gpt-4*", as LIME's agg takes) is matched without recursion,
// as LIME does: the regular files it matches whose names are output names.
func Find(where string, warn func(error)) ([]string, error) {
	if IsGlob(where) {
		if _, err := os.Stat(where); err != nil {
			return findGlob(where)
		}
		// A folder or file whose name holds a glob character is read as
		// a path.
	}
	var paths []string
	err := filepath.WalkDir(where, func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			if p == where {
				return err
			}
			if warn != nil {
				warn(err)
			}
			if e != nil && e.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if e.IsDir() && e.Name() == Superseded && p != where {
			return fs.SkipDir
		}
		if !e.IsDir() && IsOutputName(e.Name()) {
			paths = append(paths, p)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", where, err)
	}
	sort.Strings(paths)
	return paths, nil
}

// findGlob lists the regular files matching pattern that have output
// names (LIME's get_json_result_fns).
func findGlob(pattern string) ([]string, error) {
	matches, err := filepath.Glob(pattern)
	if err != nil {
		return nil, fmt.Errorf("pattern %q: %w", pattern, err)
	}
	if len(matches) == 0 {
		return nil, fmt.Errorf("pattern %q: %w", pattern, ErrNoMatch)
	}
	var paths []string
	for _, p := range matches {
		if !IsOutputName(filepath.Base(p)) {
			continue
		}
		if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() {
			paths = append(paths, p)
		}
	}
	sort.Strings(paths)
	return paths, nil
}
