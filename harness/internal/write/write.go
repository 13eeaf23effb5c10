// Package write is the last step of a run: each output, once complete
// (answered and graded, or a dry run's prompts and ground truths), goes to
// every Writer of the run: the output file and its markdown (Files), an
// Inspect log (InspectLogs), a dry run's batch request files (BatchFiles)
// and its cost estimate (DryRunReport). The execute step knows only the
// Writer interface.
package write

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/evalmd/evalmd/harness/internal/plan"
	"github.com/evalmd/evalmd/harness/internal/reuse"
	"github.com/evalmd/evalmd/inspect"
	"github.com/evalmd/evalmd/internal/outfile"
	"github.com/evalmd/evalmd/regrade"
	"github.com/evalmd/evalmd/result"
)

// Writer writes what a run made of its outputs.
type Writer interface {
	// Write takes one output, complete; its questions are in s, each
	// encoded for the output file and its markdown, in sheet order.
	// Outputs come one at a time.
	Write(o *plan.Output, s *Spill) error
	// Close ends the run's writing, after the last Write.
	Close() error
}

// All is writers used in turn: each output goes to the first, then the
// next; the first error stops it.
type All []Writer

func (ws All) Write(o *plan.Output, s *Spill) error {
	for _, w := range ws {
		if err := w.Write(o, s); err != nil {
			return err
		}
	}
	return nil
}

// Asker is a Writer told, before any question is asked, how many of
// each output's questions will be: it may refuse them.
type Asker interface {
	Asking(o *plan.Output, asked int) error
}

// Asking tells each writer that is an Asker; the first error stops it.
func (ws All) Asking(o *plan.Output, asked int) error {
	for _, w := range ws {
		if a, ok := w.(Asker); ok {
			if err := a.Asking(o, asked); err != nil {
				return err
			}
		}
	}
	return nil
}

func (ws All) Close() error {
	var errs []error
	for _, w := range ws {
		errs = append(errs, w.Close())
	}
	return errors.Join(errs...)
}

// Files writes each output file and its markdown beside it, while they
// hold what Check found: of two runs started at once for one file (-u 0),
// the second to finish is refused, as it would be had it started after
// the first, and its rerun keeps the first one's file too.
type Files struct {
	Force bool // write over files evalmd did not write or that changed since
	// Seal, when set, seals each output and its markdown with the
	// machine's key (outfile.Options.Seal), so later runs here reuse
	// their answers.
	Seal *outfile.Key
	// Resumed, for a run that resumes an earlier one, holds the sums of
	// the output files that run wrote, by absolute path; nil for a new
	// run.
	Resumed map[string]string
	// Wrote, when set, is told each output file's sum just before the
	// file is written, so that a rerun knows its outputs (Resumed).
	Wrote func(path, sum string) error
	// Retry, for a shard of a run (not a dry run), lets the shard run
	// again after it finished, as a retried pod or a requeued array task
	// runs it: an earlier run's part of its own name is no refusal when
	// this run asks nothing and its part is current (plan.Output.Current),
	// so nothing is written; else it is refused as any earlier output.
	Retry   bool
	found   map[string]state
	retried map[string]bool // the paths Check let be, for Retry
}

// state is what an output file and its markdown hold, as
// outfile.Options.Expect takes it; "" expects nothing.
type state struct{ JSON, Markdown string }

// Check refuses, before anything is spent, an output that may not be
// written: a file evalmd did not write, an earlier run's output of the
// same name (run -u 0, or a dry run over a real run's file) unless Force,
// and, when resuming, one that is not as this run left it: another run
// wrote it meanwhile (two runs at once with -u 0), and both were paid
// for, so the one that finished first keeps its file. It records what the
// output holds now.
func (f *Files) Check(path string) error {
	opt := outfile.Options{Force: f.Force}
	if err := outfile.Check(path, opt); err != nil {
		return err
	}
	if err := outfile.Check(result.MarkdownPath(path), opt); err != nil {
		return err
	}
	j, err := outfile.State(path)
	if err != nil {
		return err
	}
	m, err := outfile.State(result.MarkdownPath(path))
	if err != nil {
		return err
	}
	if !f.Force {
		if err := otherSplit(path); err != nil {
			return err
		}
	}
	switch {
	case f.Force || j == outfile.Absent:
	case f.Resumed == nil && f.Retry:
		if f.retried == nil {
			f.retried = map[string]bool{}
		}
		f.retried[path] = true
	case f.Resumed == nil:
		return earlierError(path)
	case f.Resumed[absPath(path)] != j:
		return fmt.Errorf("%s was written by another run (or changed) since this run began; keeping it: this run's answers stay in its journal (--force writes them over it)", path)
	}
	if f.found == nil {
		f.found = map[string]state{}
	}
	f.found[path] = state{j, m}
	return nil
}

// earlierError refuses to write over an earlier run's output at path.
func earlierError(path string) error {
	return fmt.Errorf("%s exists, from an earlier run; not writing over it (-u N or --run-id ID gives this run its own file name, --force overwrites it)", path)
}

// otherSplit refuses a shard's part at path where a part of the same
// file (run id, sheet, model and epoch) in another number of shards is
// in its folder: the two splits share no question's shard, so agg could
// not make one run of them.
func otherSplit(path string) error {
	if !result.IsShardName(path) {
		return nil
	}
	dir, name := filepath.Split(path)
	cut := strings.LastIndex(name, "-shard")
	var k, n int
	fmt.Sscanf(name[cut:], "-shard%dof%d.json", &k, &n)
	entries, err := os.ReadDir(filepath.Clean(dir))
	if err != nil {
		return nil // no folder yet: no part
	}
	for _, e := range entries {
		other := e.Name()
		var ok, on int
		if !strings.HasPrefix(other, name[:cut+len("-shard")]) || !result.IsShardName(other) {
			continue
		}
		if _, err := fmt.Sscanf(other[cut:], "-shard%dof%d.json", &ok, &on); err == nil && on != n {
			return fmt.Errorf("%s exists, a part of this run id's output in %d shards; this run is in %d: --shard K/%d runs a shard of that run, --run-id ID starts a run of its own", filepath.Join(dir, other), on, n, on)
		}
	}
	return nil
}

// Asking refuses, before any question is asked, to ask the questions of
// an output whose file an earlier run of the same shard wrote (Retry):
// what is asked would be written over that run's part.
func (f *Files) Asking(o *plan.Output, asked int) error {
	if asked > 0 && f.retried[o.OutPath] {
		return fmt.Errorf("%s exists, from an earlier run of this shard, and %d of its questions would be asked again (the sheet or a setting changed since); not writing over it (--run-id ID gives this run its own file names, --force overwrites it)", o.OutPath, asked)
	}
	return nil
}

// absPath is path made absolute, as Resumed keys it.
func absPath(path string) string {
	if a, err := filepath.Abs(path); err == nil {
		return a
	}
	return path
}

// Write writes the output file and its markdown as one (both or neither,
// outfile.WriteFiles), while each holds what Check found, each streamed
// from the spill.
func (f *Files) Write(o *plan.Output, s *Spill) error {
	if o.Current != nil {
		return nil // an earlier output holds it
	}
	path := o.OutPath
	if f.retried[path] {
		// Asked nothing, and still not current: graded otherwise now.
		return earlierError(path)
	}
	if err := outfile.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	found := f.found[path]
	out := outfile.File{Path: path, Opt: outfile.Options{Force: f.Force, Expect: found.JSON, Seal: f.Seal},
		Write: func(w io.Writer) error { return o.File.WriteJSON(w, s.Len(), s.JSON) }}
	if f.Wrote != nil {
		out.Made = func(sum string) error { return f.Wrote(absPath(path), sum) }
	}
	md := outfile.File{Path: result.MarkdownPath(path), Opt: outfile.Options{Force: f.Force, Expect: found.Markdown, Seal: f.Seal},
		Write: func(w io.Writer) error { return o.File.WriteMarkdown(w, s.Len(), s.Markdown) }}
	return outfile.WriteFiles(out, md)
}

func (f *Files) Close() error { return nil }

// InspectLogs writes an Inspect log of each run of a sheet on a model
// into Dir, in Format (inspect.FormatEval when "", or inspect.FormatJSON):
// the epochs of a run are one log, written once its last epoch is in (or
// at Close, with those there are).
type InspectLogs struct {
	Dir, Format string
	Force       bool
	epochs      map[[2]string][]*result.File // a run's epochs so far, by sheet and model
	order       [][2]string
}

func (l *InspectLogs) Write(o *plan.Output, _ *Spill) error {
	if o.Current != nil {
		return nil // an earlier output, and its log, hold it
	}
	if o.Epochs <= 1 {
		return l.write([]*result.File{o.File})
	}
	key := [2]string{o.SheetPath, o.Model}
	if l.epochs == nil {
		l.epochs = map[[2]string][]*result.File{}
	}
	if _, ok := l.epochs[key]; !ok {
		l.order = append(l.order, key)
	}
	l.epochs[key] = append(l.epochs[key], o.File)
	if len(l.epochs[key]) < o.Epochs {
		return nil
	}
	files := l.epochs[key]
	delete(l.epochs, key)
	return l.write(files)
}

func (l *InspectLogs) write(files []*result.File) error {
	if _, err := inspect.WriteRunLog(l.Dir, files, inspect.LogOptions{Force: l.Force, Settings: files[0].Sheet.Settings, Format: l.Format}); err != nil {
		return fmt.Errorf("inspect log: %w", err)
	}
	return nil
}

// Close writes the log of each run whose epochs did not all come in.
func (l *InspectLogs) Close() error {
	var errs []error
	for _, key := range l.order {
		if files, ok := l.epochs[key]; ok {
			errs = append(errs, l.write(files))
		}
	}
	l.epochs, l.order = nil, nil
	return errors.Join(errs...)
}

// say writes one line to a console, after clear (what clears a progress
// line drawn in place, or "").
func say(w io.Writer, clear, format string, args ...any) {
	fmt.Fprint(w, clear+fmt.Sprintf(format, args...)+"\n")
}

// Supersede moves aside, once an output is written, the earlier outputs
// of its sheet and model that it supersedes (reuse.Supersedes): each,
// with its markdown and its grade file (grade -w), into the result.Superseded folder beside it, where
// no reader of the folder counts it, and its run's Inspect log in LogDir
// (when the run writes logs there and it is there) into LogDir's. One it
// may not move (edited since evalmd wrote it, not evalmd's, a name taken
// there) stays, said in one line; agg still counts each answer once.
type Supersede struct {
	Force   bool
	Console Console
	LogDir  string
}

func (s *Supersede) Write(o *plan.Output, _ *Spill) error {
	f := o.Outline
	if o.Current != nil {
		// Not written: the earlier output that holds it supersedes the
		// others (copies a rerun wrote before reruns wrote nothing).
		f = o.Current.Outline
	}
	if f == nil {
		return nil // no earlier output
	}
	var moved []string
	for _, e := range o.Earlier {
		if !reuse.Supersedes(f, e) {
			continue
		}
		dir := filepath.Join(filepath.Dir(e.Path), result.Superseded)
		if _, err := outfile.Move(e.Path, dir, outfile.Options{Force: s.Force}); err != nil {
			s.Console.Say("warning: %s on %s: leaving %s where it is: %v", o.Model, filepath.Base(o.SheetPath), e.Path, err)
			continue
		}
		moved = append(moved, filepath.Base(e.Path))
		with := []string{result.MarkdownPath(e.Path), regrade.GradePath(e.Path)}
		if s.LogDir != "" {
			for _, format := range []string{inspect.FormatEval, inspect.FormatJSON} {
				if name, err := inspect.RunLogName(e.File, format); err == nil {
					with = append(with, filepath.Join(s.LogDir, name))
				}
			}
		}
		for _, p := range with {
			if !exists(p) {
				continue
			}
			if _, err := outfile.Move(p, filepath.Join(filepath.Dir(p), result.Superseded), outfile.Options{Force: s.Force}); err != nil {
				s.Console.Say("warning: %s on %s: leaving %s where it is: %v", o.Model, filepath.Base(o.SheetPath), p, err)
			}
		}
	}
	if len(moved) > 0 {
		s.Console.Say("%s on %s: moved %s to %s (superseded: its answers to the sheet as it is now are all in %s)",
			o.Model, filepath.Base(o.SheetPath), strings.Join(moved, ", "), filepath.Join(filepath.Dir(f.Path), result.Superseded),
			filepath.Base(f.Path))
	}
	return nil
}

func (s *Supersede) Close() error { return nil }

// exists says whether path names something.
func exists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}
