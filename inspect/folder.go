package inspect

import (
	"fmt"
	"io"

	"github.com/evalmd/evalmd/result"
)

// WriteLogsFor writes an Inspect log into logDir for every output file
// (output*.json) below dir, so runs made earlier, LIME's among them, open
// in Inspect's viewer. A file that cannot be read is reported on warn and
// skipped. The count of logs written is returned. opt applies to every
// log.
func WriteLogsFor(logDir, dir string, warn io.Writer, opt LogOptions) (int, error) {
	paths, err := result.Find(dir, func(err error) { fmt.Fprintf(warn, "inspect log: skipping %v\n", err) })
	if err != nil {
		return 0, err
	}
	n := 0
	for _, p := range paths {
		f, err := result.Read(p)
		if err != nil {
			fmt.Fprintf(warn, "inspect log: skipping %v\n", err)
			continue
		}
		if WriteLogFor(logDir, p, f, warn, opt) {
			n++
		}
	}
	return n, nil
}

// WriteLogFor writes the Inspect log of the output file f, read from path,
// into logDir, and says whether it did: a dry run's output is skipped
// unless opt.IncludeDryRuns, as agg leaves dry runs out of its tables, and
// a log that cannot be written is reported on warn. A file without a
// created time takes path's modification time. agg --log-dir calls it for
// each file it reads, so the folder is read once.
func WriteLogFor(logDir, path string, f *result.File, warn io.Writer, opt LogOptions) bool {
	if f.Sheet.DryRun && !opt.IncludeDryRuns {
		fmt.Fprintf(warn, "inspect log: skipping %s: a dry run (--include-dry-runs logs it as cancelled)\n", path)
		return false
	}
	if _, err := writeLogOf(logDir, path, f, opt); err != nil {
		fmt.Fprintf(warn, "inspect log: skipping %v\n", err)
		return false
	}
	return true
}
