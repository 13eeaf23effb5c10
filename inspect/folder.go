package inspect

import (
	"fmt"
	"io"
	"io/fs"
	"path/filepath"
	"sort"
	"strings"
)

// WriteLogsFor writes an Inspect log into logDir for every output file
// (output*.json) below dir, so runs made earlier, LIME's among them, open
// in Inspect's viewer. A file that cannot be read is reported on warn and
// skipped; the count of logs written is returned.
func WriteLogsFor(logDir, dir string, warn io.Writer) (int, error) {
	var paths []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && strings.HasPrefix(d.Name(), "output") && strings.HasSuffix(d.Name(), ".json") {
			paths = append(paths, p)
		}
		return nil
	})
	if err != nil {
		return 0, err
	}
	sort.Strings(paths)
	n := 0
	for _, p := range paths {
		if _, err := WriteLogFile(logDir, p, LogOptions{}); err != nil {
			fmt.Fprintf(warn, "inspect log: skipping %v\n", err)
			continue
		}
		n++
	}
	return n, nil
}
