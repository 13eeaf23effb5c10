// Package agg turns a folder of output files into markdown a person pastes
// into a README or a paper: LIME's three tables (Leaderboard, Runs, All
// Questions), byte for byte as LIME's agg.py prints them, then what LIME
// lacks: per-model accuracy with 95% intervals, paired McNemar tests,
// questions graded differently between models or runs, usage, errors apart
// from wrong answers, the figures of the benchmarks the sheets belong to
// (Metric values a benchmark package offers), and optional SVG charts.
//
// Files are streamed (package agg/load): each is decoded by result.Parse
// (the one strict decoder of output files, which every other reader uses
// too), reduced to one small row per question and dropped, so a folder of
// 10,000 files never sits in memory. A command that writes several reports reads the folder
// once: Read (Load, LoadOptions.Each) hands each decoded file to the
// others as it goes, then Write writes the markdown and Unread says which
// files could not be read.
//
// Where agg departs from LIME's agg.py, on purpose: it searches the folder
// recursively (LIME lists only the folder itself); a file that is not an
// output file (bad or half-written JSON, a foreign document) is named on
// stderr and skipped, where LIME's whole run fails; LIME's verbose counts go
// to stderr, so the report can go to stdout with -o -.
//
// Run writes the report Options ask for: the summary, or one of LIME's
// report types, which a Report value names. A benchmark's Metric may also
// be a ChartMetric, whose charts agg writes beside its own; render.Cols
// builds the render.Column list of the render.Tables it returns. Load
// keeps a folder's Data for other formats: its methods return each table as plain rows, LIME's as LeaderRow,
// RunsRow and QuestionRow, agg's own as ModelTotal, Pair (McNemar's test of
// two models), Discrepancy and load.Usage; package xlsxout reads the
// leaderboard and the totals this way.
//
// An answer is one sample however many files carry it: the answers a
// rerun reused (result.Sample) are counted once, by every table. Where
// people's verdicts cover answers (their review), the Models table says
// how many grades are people's and a table per grader measures it
// against them (agreement, Cohen's kappa, the answers graded otherwise).
//
// A question a model answered more than once (the epochs of a run, or
// runs of the same sheet) is one unit: a stats.Reducer turns its
// answers into one score, and the totals' errors and intervals are over
// questions, not answers; MeanPair compares two models by their
// per-question means.
//
// For a CI gate (package agg/gate), Read reads a baseline folder too
// (Options.Baseline, ReadBaseline), and Data.Baseline hands it over.
package agg

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/evalmd/evalmd/agg/load"
	"github.com/evalmd/evalmd/agg/render"
	"github.com/evalmd/evalmd/agg/stats"
	"github.com/evalmd/evalmd/internal/outfile"
	"github.com/evalmd/evalmd/result"
)

// Options are agg's settings, as the command line gives them.
type Options struct {
	// Dir is the folder searched (recursively) for output*.json files,
	// or a glob pattern of output files (matched without recursion, as
	// LIME's agg.py takes them).
	Dir string
	// Out is the markdown file written. Empty means LIME's default:
	// agg-XXXX.md in Dir, XXXX a random id. "-" means Stdout.
	Out string
	// Verbose prints LIME's counts (questions found, unique sheets) and the
	// file written on Stderr.
	Verbose bool
	// Charts also writes SVG charts beside the markdown and links them.
	Charts bool
	// MaxDiscrepancies caps the discrepancy table (0: 50; negative: no cap).
	MaxDiscrepancies int
	// Force writes over files evalmd did not write or that were changed
	// since (see internal/outfile); never over an output file read.
	Force bool
	// IncludeDryRuns counts the outputs of dry runs, left out by default.
	IncludeDryRuns bool
	// LatestVersion counts only the runs of each sheet's newest version
	// (see LoadOptions).
	LatestVersion bool
	// ID replaces the random 4-character id of the default output name, so
	// tests know the file name.
	ID string
	// Report is the report written: the summary (LIME's tables and
	// agg's), or one of LIME's report types, which replace it.
	Report Report
	// Screen lays the tables out for a terminal (LIME's --terminal)
	// instead of markdown.
	Screen bool
	// Metrics are the benchmarks' own figures, printed after agg's tables
	// for the files whose "benchmark" meta names them.
	Metrics []Metric
	// Reducer turns a model's answers to one question (its epochs and
	// runs) into the question's score in the models table; the zero value
	// is the mean.
	Reducer stats.Reducer
	// Baseline is a folder (or glob) of earlier output files, read with
	// Dir's (ReadBaseline) for a comparison (Data.Baseline, package
	// agg/gate).
	Baseline string

	Stdout, Stderr io.Writer
}

// ErrNoOutputs is returned when a folder holds no output file agg can read.
var ErrNoOutputs = errors.New("no output files found")

// Read loads the output files below opt.Dir for the report opt asks for
// (dry runs left out unless opt.IncludeDryRuns; opt.Metrics' meta; for
// LIME's report types, every answer), and says on opt.Stderr what it left
// out. each, when not nil, sees every file decoded (LoadOptions.Each), so
// the other reports of one command read the folder with agg, once. A
// folder where no file counts is an error.
func Read(ctx context.Context, opt Options, each func(path string, f *result.File, counted bool)) (*Data, error) {
	if opt.Stderr == nil {
		opt.Stderr = io.Discard
	}
	st, err := os.Stat(opt.Dir)
	switch {
	case err != nil && !result.IsGlob(opt.Dir):
		return nil, err
	case err == nil && !st.IsDir():
		return nil, fmt.Errorf("%s is not a directory (a glob pattern such as 'results/*gpt-4*' reads some files of one)", opt.Dir)
	}
	var base *Data
	if opt.Baseline != "" {
		if base, err = ReadBaseline(ctx, opt); err != nil {
			return nil, err
		}
	}
	d, err := Load(ctx, opt.Dir, opt.Stderr, LoadOptions{IncludeDryRuns: opt.IncludeDryRuns, Metrics: opt.Metrics,
		LatestVersion: opt.LatestVersion, Answers: opt.Report != Summary, Each: each, Baseline: base})
	if err != nil {
		return nil, err
	}
	d.baseDir = opt.Baseline
	d.Reducer = opt.Reducer
	if n := len(d.DryRuns); n > 0 {
		fmt.Fprintf(opt.Stderr, "agg: left out %d dry-run outputs (evalmd run -y: prompts, no answers); --include-dry-runs counts them\n", n)
	}
	for _, r := range d.NoAnswers {
		fmt.Fprintf(opt.Stderr, "agg: no answers in %s: no question was answered\n", r)
	}
	for _, v := range d.Versions {
		// A sheet edited between runs: its runs answer different
		// questions, said whether or not they are counted together.
		fmt.Fprintf(opt.Stderr, "agg: %s\n", v)
	}
	for _, r := range d.PartialShards {
		fmt.Fprintf(opt.Stderr, "agg: a run in shards with a part missing in %s: its scores cover only the parts read (rerun that shard)\n", r)
	}
	for _, r := range d.Subsets {
		// A subset's score is not its sheet's: said, so it is not
		// compared with a whole run's without a word.
		fmt.Fprintf(opt.Stderr, "agg: a subset in %s: its scores cover only those\n", r)
	}
	// The two grading modes, or graders' grades and people's, meet in
	// one table: said, as LIME's tables have no column for it (agg's
	// Models table has one).
	for _, m := range append(d.MixedGrading(), d.PeopleGrades()...) {
		fmt.Fprintf(opt.Stderr, "agg: %s\n", m)
	}
	if d.Files == 0 {
		if len(d.DryRuns) > 0 {
			return nil, fmt.Errorf("%s: every output file is a dry run's; --include-dry-runs counts them", opt.Dir)
		}
		if n := len(d.Skipped); n > 0 {
			return nil, fmt.Errorf("%s: %w that could be read: %d could not be read (each named above)", opt.Dir, ErrNoOutputs, n)
		}
		return nil, fmt.Errorf("%s: %w (LIME's rule: names starting with \"output\" and ending in \".json\")", opt.Dir, ErrNoOutputs)
	}
	if opt.Verbose {
		// LIME's agg.py prints these two lines.
		fmt.Fprintf(opt.Stderr, "questions found: %d\n", d.Questions())
		fmt.Fprintf(opt.Stderr, "unique sheets:   %d\n", d.uniqueSheets())
	}
	return d, nil
}

// ReadBaseline reads opt.Baseline as Read reads opt.Dir; Read reads it
// first when opt names one, for Compare. A folder that holds no output
// file yet (a CI's first run, before any result was cached) is an empty
// baseline, said on opt.Stderr: every model is new.
func ReadBaseline(ctx context.Context, opt Options) (*Data, error) {
	bopt := opt
	bopt.Dir, bopt.Verbose, bopt.Report, bopt.Baseline = opt.Baseline, false, Summary, ""
	if st, err := os.Stat(bopt.Dir); err == nil && st.IsDir() {
		paths, err := result.Find(bopt.Dir, func(error) {})
		if err == nil && len(paths) == 0 {
			if opt.Stderr != nil {
				fmt.Fprintf(opt.Stderr, "agg: the baseline %s holds no output file: every model is new\n", bopt.Dir)
			}
			return newData(opt.Metrics)
		}
	}
	d, err := Read(ctx, bopt, nil)
	if err != nil {
		return nil, fmt.Errorf("the baseline: %w", err)
	}
	return d, nil
}

// Baseline is the baseline read with d (Options.Baseline) and its folder's
// name; nil when none was given.
func (d *Data) Baseline() (*load.Data, string) {
	if d.base == nil {
		return nil, d.baseDir
	}
	return d.base.Data, d.baseDir
}

// Unread is the error of the output files that could not be read (each
// was named when read), or nil. Commands return it after writing their
// reports: the files read are still worth a report, and the failure still
// shows in the exit status.
func (d *Data) Unread() error {
	if n := len(d.Skipped); n > 0 {
		return fmt.Errorf("%d of %d output files could not be read (each named above); the report leaves them out", n, len(d.Paths))
	}
	return nil
}

// Write writes the markdown report opt asks for (opt.Out, with charts
// when opt.Charts) from data Read loaded; extra are sections after agg's
// own in the summary (ReportOptions.Extra).
func (d *Data) Write(opt Options, extra ...render.Table) error {
	if opt.Stdout == nil {
		opt.Stdout = io.Discard
	}
	if opt.Stderr == nil {
		opt.Stderr = io.Discard
	}
	var err error
	out := opt.Out
	if out == "" {
		id := opt.ID
		if id == "" {
			if id, err = randomID(); err != nil {
				return err
			}
		}
		out = filepath.Join(result.DisplayRoot(opt.Dir), "agg-"+id+".md")
	}
	wopt := outfile.Options{Force: opt.Force, Inputs: d.Inputs()}
	if out != "-" {
		// Refused before any chart is written.
		if err := outfile.Check(out, wopt); err != nil {
			return err
		}
	}
	var charts []Chart
	if opt.Charts && opt.Report == Summary {
		// Beside the report; a printed report's go beside the outputs,
		// where LIME wrote its report, not into whatever folder agg
		// was started from.
		base := "agg"
		dir := result.DisplayRoot(opt.Dir)
		if out != "-" {
			dir = filepath.Dir(out)
			base = strings.TrimSuffix(filepath.Base(out), filepath.Ext(out))
		}
		charts, err = d.WriteCharts(dir, base, wopt)
		if err != nil {
			return err
		}
		for i, c := range charts {
			fmt.Fprintf(opt.Stderr, "wrote %s\n", filepath.Join(dir, c.File))
			if out == "-" { // linked from where the printed report is read
				charts[i].File = filepath.ToSlash(filepath.Join(dir, c.File))
			}
		}
	}
	md, err := d.Text(opt.Report, opt.Screen, ReportOptions{MaxDiscrepancies: opt.MaxDiscrepancies, Charts: charts, Extra: extra})
	if err != nil {
		return err
	}
	if out == "-" {
		if _, err := io.WriteString(opt.Stdout, md); err != nil {
			return err
		}
		return nil
	}
	if err := outfile.Write(out, []byte(md), wopt); err != nil {
		return err
	}
	fmt.Fprintf(opt.Stderr, "wrote %s\n", out)
	return nil
}

// Inputs are the files agg read, which none of its outputs may replace:
// the output files found, the readable .md beside each (as much a run's
// output as its JSON), and the baseline's.
func (d *Data) Inputs() []string {
	var inputs []string
	for _, x := range []*Data{d, d.base} {
		if x == nil {
			continue
		}
		for _, p := range x.Paths {
			inputs = append(inputs, p, result.MarkdownPath(p))
		}
	}
	return inputs
}

// randomID is LIME's uuid4().hex[:4]: four lowercase hex digits.
func randomID() (string, error) {
	var b [2]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("agg: random id: %w", err)
	}
	return hex.EncodeToString(b[:]), nil
}

func (d *Data) uniqueSheets() int {
	seen := map[load.Str]bool{}
	for i := range d.Rows() {
		if s := d.Rows()[i].Sheet; s != load.NoStr {
			seen[s] = true
		}
	}
	return len(seen)
}

// ReportOptions shape the markdown report.
type ReportOptions struct {
	MaxDiscrepancies int     // 0: 50; negative: all
	Charts           []Chart // charts to link, already written
	// Extra are sections after agg's own (the comparison with a
	// baseline), in the summary report.
	Extra []render.Table
}

// Markdown renders the whole report: LIME's tables first, unchanged, then
// agg's own sections.
func (d *Data) Markdown(opt ReportOptions) (string, error) {
	var b strings.Builder
	b.WriteString(d.LIMEMarkdown())
	for _, t := range append(d.ownTables(opt), opt.Extra...) {
		s, err := t.Markdown()
		if err != nil {
			return "", err
		}
		b.WriteString(s)
	}
	if len(opt.Charts) > 0 {
		b.WriteString("### Charts\n\n")
		for _, c := range opt.Charts {
			fmt.Fprintf(&b, "![%s](%s)\n\n", c.Title, c.File)
		}
	}
	return b.String(), nil
}

// ownTables are agg's tables after LIME's, in order.
func (d *Data) ownTables(opt ReportOptions) []render.Table {
	limit := opt.MaxDiscrepancies
	if limit == 0 {
		limit = 50
	} else if limit < 0 {
		limit = 0
	}
	totals, repeats := d.totals()
	disc, ndisc := d.Discrepancies(limit)
	tables := []render.Table{totalsTable(totals, repeats, d.Reducer), pairsTable(d.Pairs())}
	if repeats {
		tables = append(tables, meanPairsTable(d.MeanPairs()))
	}
	tables = append(tables, discrepancyTable(disc, ndisc), usageTable(d.Usages(), repeats), errorsTable(totals, repeats))
	tables = append(tables, d.agreementTables(limit)...)
	return append(tables, d.metricTables()...)
}
