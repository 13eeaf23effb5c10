package agg

import (
	"context"
	"io"

	"github.com/evalmd/evalmd/agg/load"
	"github.com/evalmd/evalmd/agg/stats"
	"github.com/evalmd/evalmd/result"
)

// Data is everything agg keeps from a folder of output files (load.Data:
// one small row per question and per-model usage sums; whole files are
// never kept), with the metrics it was loaded for and how its tables
// reduce a question answered more than once.
type Data struct {
	*load.Data
	// metrics are the benchmark metrics the data was loaded for.
	metrics []Metric
	// Reducer turns a model's answers to one question into its score in
	// Totals (the zero value: the mean).
	Reducer stats.Reducer
	// base is the baseline a comparison is made with (Read with
	// Options.Baseline, LoadOptions.Baseline), baseDir its folder.
	base    *Data
	baseDir string
}

// LoadOptions say which output files count and who else sees them
// (load.LoadOptions, with agg's metrics and baseline).
type LoadOptions struct {
	// IncludeDryRuns counts the outputs of dry runs (run -y), which hold
	// prompts and no answers; by default they are left out.
	IncludeDryRuns bool
	// Metrics are the benchmarks' figures the data is loaded for.
	Metrics []Metric
	// LatestVersion counts, of each sheet, only the runs of the newest
	// version of its questions (the version of the run started last):
	// the leaderboard is the sheet's as it is now. By default every run
	// counts, as in LIME's agg.
	LatestVersion bool
	// Answers keeps every counted question's completion and answer, for
	// LIME's report types (Completions, DiscrepanciesFull).
	Answers bool
	// Baseline is the baseline a comparison will be made with (Compare),
	// whose runs this folder may hold too (load.LoadOptions.Baseline).
	Baseline *Data
	// Each, when set, is called in name order with every output file
	// decoded, whole, and whether it counts (load.LoadOptions.Each).
	Each func(path string, f *result.File, counted bool)

	// streamAbove and whole are load.LoadOptions' StreamAbove and Whole,
	// for tests.
	streamAbove int64
	whole       bool
}

// Load reads every output file below dir (load.Load) for the tables of
// agg and of opt.Metrics.
func Load(ctx context.Context, dir string, warn io.Writer, opt LoadOptions) (*Data, error) {
	lopt := load.LoadOptions{IncludeDryRuns: opt.IncludeDryRuns, Metrics: loadMetrics(opt.Metrics), LatestVersion: opt.LatestVersion,
		Answers: opt.Answers, Each: opt.Each, StreamAbove: opt.streamAbove, Whole: opt.whole}
	if opt.Baseline != nil {
		lopt.Baseline = opt.Baseline.Data
	}
	ld, err := load.Load(ctx, dir, warn, lopt)
	if err != nil {
		return nil, err
	}
	return &Data{Data: ld, metrics: opt.Metrics, base: opt.Baseline}, nil
}

// newData returns an empty Data for the metrics (load.NewData).
func newData(metrics []Metric) (*Data, error) {
	ld, err := load.NewData(loadMetrics(metrics))
	if err != nil {
		return nil, err
	}
	return &Data{Data: ld, metrics: metrics}, nil
}

// loadMetrics are metrics as load reads them.
func loadMetrics(metrics []Metric) []load.Metric {
	out := make([]load.Metric, len(metrics))
	for i, m := range metrics {
		out[i] = m
	}
	return out
}
