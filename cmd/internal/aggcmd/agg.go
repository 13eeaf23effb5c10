// Package aggcmd is the agg command (evalmd agg and the cmd/agg main): it
// turns a folder of output files into markdown leaderboards
// (LIME's agg.py, with its flags): LIME's Leaderboard, Runs and All
// Questions tables, then intervals, paired comparisons, discrepancies,
// usage, errors and benchmark metrics.
//
//	agg -i DIR|'GLOB' [-o FILE.md|-] [--completions|--discrepancies-full] [--md|--terminal]
//	    [-v] [-charts] [--log-dir DIR] [-html FILE.html] [-xlsx FILE.xlsx]
//	agg -i DIR --serve 127.0.0.1:PORT [--allow-remote]
//	agg -i DIR --baseline DIR [--fail-on regression] [--alpha A] [--min-drop D] [--fail-under X]
//	    [--comment FILE.md] [--junit FILE.xml] [--report-url URL]
//
// -i takes a folder (searched recursively) or a glob pattern of output
// files (not recursive, as LIME's). --completions and
// --discrepancies-full are LIME's report types, each replacing the
// default report. Without -o (or with -o -) the report goes to stdout,
// its tables laid out for the screen when stdout is a terminal (--md
// forces markdown, --terminal the screen); each file written (-o FILE,
// charts, -html, -xlsx, --log-dir) is named on stderr.
//
// --reducer (mean, majority, pass@K, all-correct) says how a model's
// answers to one question, its epochs and its runs of the sheet, become
// the question's score in the models table; figures are then over
// questions, not answers.
//
// -html writes one self-contained HTML page (tables, charts, every
// question, run comparison), -xlsx an Excel workbook (leaderboard, models,
// grades, completions); with either, the markdown is written only when -o
// names it.
//
// --baseline DIR compares each model's answers with a baseline folder's,
// question by question on the questions both have (same sheet, name and
// ground truth): accuracy before and after, the paired difference with its
// interval, McNemar's p, the questions that flipped, a verdict; the
// report ends with it. --fail-on regression exits 4 when a model got
// significantly worse (--alpha, default 0.05; --min-drop a practical
// floor), --fail-under X when a model's accuracy interval starts below X.
// For CI: with GITHUB_STEP_SUMMARY set the comparison is appended there;
// --comment writes it as a pull request comment, --junit writes JUnit XML
// (a test case per model and question). docs/ci.md has the workflows.
//
// --serve ADDR serves that page at http://ADDR/ instead, made afresh when
// the folder's output files change, and the open page reloads itself; a
// port alone is 127.0.0.1's, and an address other computers can reach
// needs --allow-remote. On loopback the page overrides a grade (right,
// wrong, or accept: right, and added to the sheet's accepted answers): a
// person's verdict on an answer, recorded as evalmd review records it
// (reviewer: the page's field, else $EVALMD_REVIEWER, else $USER);
// served with --allow-remote it is read-only.
package aggcmd

import (
	"context"
	"flag"
	"fmt"
	"io"
	"time"

	"github.com/evalmd/evalmd/agg"
	"github.com/evalmd/evalmd/agg/render"
	"github.com/evalmd/evalmd/agg/stats"
	"github.com/evalmd/evalmd/benchmark/benchmarks"
	"github.com/evalmd/evalmd/cmd/internal/cli"
	"github.com/evalmd/evalmd/cmd/internal/config"
	"github.com/evalmd/evalmd/inspect"
	"github.com/evalmd/evalmd/internal/visible"
	"github.com/evalmd/evalmd/report"
	"github.com/evalmd/evalmd/result"
	"github.com/evalmd/evalmd/review"
	"github.com/evalmd/evalmd/xlsxout"
)

// Command is agg's entry in the command table, with fresh flags; look
// says where its config files are looked for (from the -i folder up, then
// the current folder), isTerminal whether a writer is a terminal (tests
// inject it), getenv reads the environment (GITHUB_STEP_SUMMARY).
func Command(look config.Lookup, isTerminal func(io.Writer) bool, getenv func(string) string) *cli.Command {
	fs := flag.NewFlagSet("agg", flag.ContinueOnError)
	f := bindFlags(fs)
	return &cli.Command{
		Name:  "agg",
		Usage: "-i DIR|'GLOB' [-o FILE.md|-] [--completions|--discrepancies-full] [--md|--terminal] [-v] [-charts] [--reducer R] [--log-dir DIR] [-html FILE.html] [-xlsx FILE.xlsx] [--baseline DIR [--fail-on regression] [--comment FILE]] [--junit FILE] | --serve 127.0.0.1:PORT",
		Short: "Turn a folder of output files into markdown leaderboards (and HTML, Excel, Inspect logs).",
		Flags: fs,
		Run: func(ctx context.Context, stdout, stderr io.Writer, args []string) error {
			return f.run(ctx, fs, stdout, stderr, args, look, isTerminal, getenv)
		},
	}
}

// flags are agg's flags: agg.Options' own, and the rest.
type flags struct {
	opt                                      agg.Options
	completions, discFull, mdStyle, terminal bool
	logDir, logFormat                        string
	htmlOut, xlsxOut                         string
	reducer                                  string
	serveOn                                  string
	allowRemote                              bool
	gate                                     *gateFlags
}

// bindFlags registers agg's flags on fs.
func bindFlags(fs *flag.FlagSet) *flags {
	f := &flags{}
	opt := &f.opt
	fs.StringVar(&opt.Dir, "i", "", "input `dir` (every output*.json below it is read) or a glob pattern of output files, as 'results/*gpt-4*' (not recursive)")
	fs.StringVar(&opt.Out, "o", "", "write the markdown report to this `file` (default: stdout, laid out for the screen on a terminal)")
	fs.BoolVar(&opt.Verbose, "v", false, "verbose: counts and the file written, on stderr")
	fs.BoolVar(&opt.Charts, "charts", false, "also write SVG charts beside the markdown")
	fs.BoolVar(&opt.IncludeDryRuns, "include-dry-runs", false, "count the outputs of dry runs (run -y), left out by default")
	fs.BoolVar(&opt.LatestVersion, "latest-version", false, "count, of each sheet, only the runs of the newest version of its questions (default: every run, as LIME's agg; the config's latest_version)")
	fs.BoolVar(&opt.Force, "force", false, "write over files evalmd did not write, or changed since it wrote them")
	fs.IntVar(&opt.MaxDiscrepancies, "max-discrepancies", 0, "rows of the discrepancy table (0: 50, -1: all)")
	fs.BoolVar(&f.completions, "completions", false, "report type: every question's completions, a row per run (replaces the default report, as LIME's)")
	fs.BoolVar(&f.discFull, "discrepancies-full", false, "report type: questions graded differently, each run's grade and completion side by side (replaces the default report)")
	fs.BoolVar(&f.mdStyle, "md", false, "markdown even on a terminal (when the report goes to stdout)")
	fs.BoolVar(&f.terminal, "terminal", false, "tables laid out for the screen even when stdout is not a terminal (LIME's --terminal)")
	fs.StringVar(&f.logDir, "log-dir", "", "also write an Inspect log per run (its epochs one log) into this folder")
	fs.StringVar(&f.logFormat, "log-format", inspect.FormatEval, "format of the Inspect logs: eval or json")
	fs.StringVar(&f.htmlOut, "html", "", "write a self-contained HTML report to this `file` (the markdown only with -o)")
	fs.StringVar(&f.xlsxOut, "xlsx", "", "write an Excel workbook to this `file` (the markdown only with -o)")
	fs.StringVar(&f.reducer, "reducer", "mean", "how a model's answers to one question (its epochs and runs) become the question's score in the models table: "+stats.ReducerNames)
	fs.StringVar(&f.serveOn, "serve", "", "serve the HTML report at this `address` (127.0.0.1:PORT, or PORT), made afresh as the outputs change, until Ctrl-C")
	fs.BoolVar(&f.allowRemote, "allow-remote", false, "let --serve listen on an address other computers can reach (0.0.0.0:PORT): the page shows every prompt and completion")
	f.gate = bindGate(fs, opt)
	return f
}

// run is agg with its flags parsed: the options settled and checked, then
// the folder served, or read once and written as each output asks.
func (f *flags) run(ctx context.Context, fs *flag.FlagSet, stdout, stderr io.Writer, args []string,
	look config.Lookup, isTerminal func(io.Writer) bool, getenv func(string) string) error {
	// What agg says on stderr quotes names and paths from the folder
	// (warnings, the gate's verdicts): made visible, as the screen's
	// tables are, so that none drives the terminal.
	stderr = visible.Writer{W: stderr}
	opt := &f.opt
	opt.Stdout, opt.Stderr = stdout, stderr
	if opt.Dir == "" && len(args) == 1 {
		opt.Dir = args[0] // LIME's later agg took the folder as an argument
	} else if len(args) > 0 {
		return cli.Usagef("unexpected arguments %q", args)
	}
	if opt.Dir == "" {
		return cli.Usagef("-i DIR is required")
	}
	if err := latestVersion(fs, opt, look); err != nil {
		return err
	}
	if err := f.check(); err != nil {
		return err
	}
	set, err := benchmarks.Set()
	if err != nil {
		return err
	}
	opt.Metrics = set.Metrics
	// The page's options, served or written (-html).
	ro := report.Options{MaxDiscrepancies: opt.MaxDiscrepancies, Warn: stderr, Force: opt.Force, IncludeDryRuns: opt.IncludeDryRuns, Metrics: set.Metrics, Reducer: opt.Reducer, LatestVersion: opt.LatestVersion}
	if err := f.gate.check(opt); err != nil {
		return err
	}
	if f.serveOn != "" {
		if f.gate.gated(opt) || f.gate.junit != "" {
			return cli.Usagef("--serve shows the folder; --baseline, --fail-under, --comment and --junit go without it")
		}
		by := review.Reviewer(getenv)
		return serve(ctx, stderr, fs, serveOptions{addr: f.serveOn, allowRemote: f.allowRemote, dir: opt.Dir, page: ro, by: by, seal: look.Key})
	} else if f.allowRemote {
		return cli.Usagef("--allow-remote goes with --serve")
	}
	if err := f.reportType(); err != nil {
		return err
	}
	// Without -o the report is printed (LIME wrote agg-XXXX.md
	// into the folder without a word). LIME's rule: the screen
	// layout when stdout is a terminal, markdown when it is
	// redirected; --md and --terminal decide.
	if opt.Out == "" && f.htmlOut == "" && f.xlsxOut == "" {
		opt.Out = "-"
	}
	opt.Screen = f.terminal || opt.Out == "-" && !f.mdStyle && isTerminal(stdout)
	return f.write(ctx, stderr, getenv, ro)
}

// check refuses a log format, reducer or number of discrepancies agg has
// not, and sets the reducer.
func (f *flags) check() error {
	if err := inspect.CheckFormat(f.logFormat); err != nil {
		return cli.Usagef("--log-format: %v", err)
	}
	var err error
	if f.opt.Reducer, err = stats.ParseReducer(f.reducer); err != nil {
		return cli.Usagef("--reducer: %v", err)
	}
	if f.opt.MaxDiscrepancies < -1 {
		return cli.Usagef("-max-discrepancies %d: give -1 (all), 0 (50) or a number of rows", f.opt.MaxDiscrepancies)
	}
	return nil
}

// reportType sets the report LIME's report type flags ask for, which
// exclude each other and the charts.
func (f *flags) reportType() error {
	switch {
	case f.completions && f.discFull:
		return cli.Usagef("--completions and --discrepancies-full are two report types: give one")
	case f.mdStyle && f.terminal:
		return cli.Usagef("--md and --terminal contradict each other")
	case f.completions:
		f.opt.Report = agg.Completions
	case f.discFull:
		f.opt.Report = agg.DiscrepanciesFull
	}
	if f.opt.Charts && f.opt.Report != agg.Summary {
		return cli.Usagef("-charts goes with the default report, not --completions or --discrepancies-full")
	}
	return nil
}

// write reads the folder once, by agg, for every output asked: its
// tables, the questions of the page and the workbook, the Inspect logs
// (each file it decodes goes to them as it goes), and writes each.
func (f *flags) write(ctx context.Context, stderr io.Writer, getenv func(string) string, ro report.Options) error {
	opt := f.opt
	var qs *report.Builder
	if f.htmlOut != "" || f.xlsxOut != "" {
		qs = report.NewBuilder(opt.Dir)
	}
	logs := &inspect.RunLogs{Dir: f.logDir, Warn: stderr,
		Options: inspect.LogOptions{Force: opt.Force, Format: f.logFormat, IncludeDryRuns: opt.IncludeDryRuns}}
	var each func(path string, f *result.File, counted bool)
	if qs != nil || f.logDir != "" {
		each = func(path string, file *result.File, counted bool) {
			if qs != nil && counted {
				qs.Add(path, file)
			}
			if f.logDir != "" {
				logs.Add(path, file)
			}
		}
	}
	d, err := agg.Read(ctx, opt, each)
	if err != nil {
		return err
	}
	compared := f.gate.compare(&opt, d)
	if opt.Out != "" {
		var extra []render.Table
		if compared != nil {
			extra = compared.Tables(0)
		}
		if err := d.Write(opt, extra...); err != nil {
			return err
		}
	}
	if f.htmlOut != "" {
		if err := report.Save(f.htmlOut, d, qs.Data(), ro); err != nil {
			return err
		}
		fmt.Fprintf(stderr, "wrote %s\n", f.htmlOut)
	}
	if f.xlsxOut != "" {
		if err := xlsxout.Save(f.xlsxOut, d, qs.Data(), xlsxout.Options{Force: opt.Force}); err != nil {
			return err
		}
		fmt.Fprintf(stderr, "wrote %s\n", f.xlsxOut)
	}
	if f.logDir != "" {
		fmt.Fprintf(stderr, "wrote %d Inspect logs to %s\n", logs.Close(), f.logDir)
	}
	return joinGate(f.gate.report(stderr, opt, d, compared, f.htmlOut, getenv, time.Now()), d.Unread())
}

// latestVersion takes --latest-version from the config (latest_version:
// the nearest evalmd.yaml at or above the -i folder, evalmd init's turns
// it on) unless the flag is given.
func latestVersion(fs *flag.FlagSet, opt *agg.Options, look config.Lookup) error {
	given := false
	fs.Visit(func(f *flag.Flag) { given = given || f.Name == "latest-version" })
	if given {
		return nil
	}
	conf, err := config.Load(look.ForSheets(result.DisplayRoot(opt.Dir)))
	if err != nil {
		return err
	}
	if conf.LatestVersion != nil {
		opt.LatestVersion = *conf.LatestVersion
	}
	return nil
}
