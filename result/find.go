package result

import (
	"fmt"
	"io/fs"
	"path/filepath"
	"sort"
	"strings"
)

// IsOutputName is LIME's rule for which files are output files: the name
// starts with "output" and ends with ".json".
func IsOutputName(name string) bool {
	return strings.HasPrefix(name, "output") && strings.HasSuffix(name, ".json")
}

// Find lists the output files below dir (at any depth), sorted. A folder
// below dir that cannot be read is passed to warn and skipped; dir itself
// must be readable.
func Find(dir string, warn func(error)) ([]string, error) {
	var paths []string
	err := filepath.WalkDir(dir, func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			if p == dir {
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
		if !e.IsDir() && IsOutputName(e.Name()) {
			paths = append(paths, p)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", dir, err)
	}
	sort.Strings(paths)
	return paths, nil
}
