package inspect

import (
	"fmt"
	"io"

	"github.com/evalmd/evalmd/result"
)

// WriteLogsFor writes an Inspect log into logDir for every output file
// (output*.json) below dir, so runs made earlier, LIME's among them, open
// in Inspect's viewer. A file that cannot be read is reported on warn and
// skipped; so is a dry run's output unless opt.IncludeDryRuns, as agg
// leaves dry runs out of its tables. The count of logs written is
// returned. opt applies to every log.
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
		if f.Sheet.DryRun && !opt.IncludeDryRuns {
			fmt.Fprintf(warn, "inspect log: skipping %s: a dry run (--include-dry-runs logs it as cancelled)\n", p)
			continue
		}
		if _, err := writeLogOf(logDir, p, f, opt); err != nil {
			fmt.Fprintf(warn, "inspect log: skipping %v\n", err)
			continue
		}
		n++
	}
	return n, nil
}
