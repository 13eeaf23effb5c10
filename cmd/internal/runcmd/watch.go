package runcmd

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/evalmd/evalmd/cmd/internal/watch"
	"github.com/evalmd/evalmd/harness"
	"github.com/evalmd/evalmd/schema"
	"github.com/evalmd/evalmd/sheet"
)

// watchSheets is run --watch: cfg's sheets (file's, or those below dir)
// are run by runOnce, then again each time one is saved.
func watchSheets(ctx context.Context, cfg harness.Config, file, dir string, runOnce func(context.Context, harness.Config) error, stderr io.Writer) error {
	sw := sheetWatch{schema: cfg.Schema, graded: !cfg.DryRun, stderr: stderr, run: func(ctx context.Context, sheets []string) error {
		cfg := cfg
		cfg.Sheets = sheets
		return runOnce(ctx, cfg)
	}}
	sw.list = func() []string { return []string{file} }
	if dir != "" {
		sw.list = func() []string {
			found, _ := harness.FindSheets(dir) // none (for now) is no error
			return found
		}
	}
	return sw.loop(ctx)
}

// sheetWatch is run --watch: the sheets are run once, then again each time
// one is saved (only those saved), until the command's context ends.
type sheetWatch struct {
	// list names the sheets: -f's, or those below -d now (a sheet added
	// to the folder is run when it appears).
	list func() []string
	// schema reads them (nil: the built-in one), to refuse a malformed
	// sheet before the run, which would stop at it and run no other.
	schema *schema.Schema
	// graded says the runs grade (no dry run): a question without an
	// answer section keeps its sheet from running (CheckComplete).
	graded bool
	// run runs these sheets and writes its summary.
	run func(ctx context.Context, sheets []string) error
	// interval is the watch's poll (and debounce) interval; 0: the
	// package default.
	interval time.Duration
	stderr   io.Writer
}

// loop runs the sheets, then waits for saves and runs the sheets saved. A
// malformed sheet, or a run that fails, is said in one line and the
// watch goes on. The first Ctrl-C while waiting ends the watch (nil); one
// during a run ends that run as without --watch (its requests in flight
// finish, its error is returned) and the watch with it.
func (sw sheetWatch) loop(ctx context.Context) error {
	w := &watch.Watcher{List: sw.list, Interval: sw.interval}
	w.Mark() // before the first run: a save during it is a change
	sheets := sw.list()
	for {
		if err := sw.runSheets(ctx, sheets); ctx.Err() != nil {
			return err
		}
		fmt.Fprintf(sw.stderr, "watching %s for changes (Ctrl-C stops)\n", count(len(sw.list()), "sheet"))
		changed, err := w.Next(ctx)
		if err != nil {
			fmt.Fprintln(sw.stderr, "stopped watching")
			return nil
		}
		now := sw.list()
		sheets = slices.DeleteFunc(changed, func(p string) bool { return !slices.Contains(now, p) })
		if len(sheets) > 0 {
			fmt.Fprintf(sw.stderr, "changed: %s\n", strings.Join(sheets, ", "))
		}
	}
}

// runSheets runs the sheets that parse whole (sheet.Doc.CheckComplete);
// each that does not, and the run's error, is one line on stderr. It returns the run's error.
func (sw sheetWatch) runSheets(ctx context.Context, sheets []string) error {
	var good []string
	for _, p := range sheets {
		doc, err := sheet.ParseFile(p, sw.schema)
		if err == nil {
			err = doc.CheckComplete(sw.graded)
		}
		if err != nil {
			fmt.Fprintf(sw.stderr, "not run: %v\n", err)
			continue
		}
		good = append(good, p)
	}
	if len(good) == 0 {
		return nil
	}
	err := sw.run(ctx, good)
	if err != nil && ctx.Err() == nil {
		fmt.Fprintf(sw.stderr, "error: %v\n", err)
	}
	return err
}

// count is "1 noun" or "N nouns".
func count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
