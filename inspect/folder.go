package inspect

import (
	"fmt"
	"io"

	"github.com/evalmd/evalmd/result"
)

// WriteLogFor writes the Inspect log of the output file f, read from path,
// into logDir, and says whether it did: a dry run's output is skipped
// unless opt.IncludeDryRuns, as agg leaves dry runs out of its tables, and
// a log that cannot be written, or a figure left out of one, is reported
// on warn. A file without a created time takes path's modification time.
func WriteLogFor(logDir, path string, f *result.File, warn io.Writer, opt LogOptions) bool {
	if f.Sheet.DryRun && !opt.IncludeDryRuns {
		fmt.Fprintf(warn, "inspect log: skipping %s: a dry run (--include-dry-runs logs it as cancelled)\n", path)
		return false
	}
	if opt.Warn == nil {
		opt.Warn = warn
	}
	if _, err := writeLogOf(logDir, path, f, opt); err != nil {
		fmt.Fprintf(warn, "inspect log: skipping %v\n", err)
		return false
	}
	return true
}

// RunLogs writes the Inspect logs of output files as they are read, one
// log per run: a file of one epoch at once (WriteLogFor), the epochs of a
// run (one sheet, model and run id) together once the last is in
// (WriteRunLog), a copy of an epoch already in (in any folder: agg counts
// it once, and its log would be the run's) left out, and at Close
// the runs whose epochs are not all there. agg --log-dir adds each file it
// reads, so the folder is read once.
type RunLogs struct {
	Dir     string
	Warn    io.Writer
	Options LogOptions

	written int
	runs    map[runKey]map[int]*result.File // a run's epochs so far
	order   []runKey
	parts   result.Parts // the shards' parts of a run, until its last is in
}

type runKey struct{ sheet, model, runID string }

// Add takes the output file f, read from path. A shard's part (run
// --shard) waits for the run's other parts: their whole (result.Parts)
// is one file of the run, so the run is one log, not one per shard.
func (l *RunLogs) Add(path string, f *result.File) {
	if f.Sheet.Shards > 0 && (!f.Sheet.DryRun || l.Options.IncludeDryRuns) {
		w, dup := l.parts.Add(path, f)
		if w == nil {
			if dup != "" {
				fmt.Fprintf(l.Warn, "inspect log: skipping %s: the same shard as %s\n", path, dup)
			}
			return
		}
		path, f = w.Path, w.File
	}
	k, n := f.Sheet.EpochOf()
	if n <= 1 {
		if WriteLogFor(l.Dir, path, f, l.Warn, l.Options) {
			l.written++
		}
		return
	}
	if f.Sheet.DryRun && !l.Options.IncludeDryRuns {
		fmt.Fprintf(l.Warn, "inspect log: skipping %s: a dry run (--include-dry-runs logs it as cancelled)\n", path)
		return
	}
	key := runKey{f.Sheet.SheetFile + "\x00" + f.Sheet.Name, f.Sheet.ModelName, f.Sheet.RunID}
	if l.runs == nil {
		l.runs = map[runKey]map[int]*result.File{}
	}
	epochs, ok := l.runs[key]
	if !ok {
		epochs = map[int]*result.File{}
		l.runs[key] = epochs
		l.order = append(l.order, key)
	}
	if _, dup := epochs[k]; dup {
		return // a copy of an epoch already in
	}
	epochs[k] = f
	if len(epochs) == n {
		l.write(key)
	}
}

func (l *RunLogs) write(key runKey) {
	epochs := l.runs[key]
	delete(l.runs, key)
	files := make([]*result.File, 0, len(epochs))
	for _, f := range epochs {
		files = append(files, f)
	}
	opt := l.Options
	if opt.Warn == nil {
		opt.Warn = l.Warn
	}
	if _, err := WriteRunLog(l.Dir, files, opt); err != nil {
		fmt.Fprintf(l.Warn, "inspect log: skipping %v\n", err)
		return
	}
	l.written++
}

// Close writes the logs of the runs whose epochs or shards are not all
// there, and returns the count of logs written.
func (l *RunLogs) Close() int {
	for _, w := range l.parts.Rest() {
		fmt.Fprintf(l.Warn, "inspect log: %s: %d of %d shards' parts read; the log holds their samples only\n", w.Path, w.Shards-len(w.Missing), w.Shards)
		l.Add(w.Path, w.File)
	}
	for _, key := range l.order {
		if _, ok := l.runs[key]; ok {
			l.write(key)
		}
	}
	l.order = nil
	return l.written
}
