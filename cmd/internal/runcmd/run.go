// Package runcmd is the run command (evalmd run, evalmd eval, evalmd check,
// and the cmd/run main): it asks models the questions of markdown sheets and
// writes graded output files (LIME's main.py, with its flags).
//
//	run -f SHEET | -d DIR -m MODEL[,MODEL...] [-o DIR] [-u N] [-y] [-v]
//
// See docs/models.md for models, resuming and the offline built-ins.
package runcmd

import (
	"cmp"
	"context"
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/evalmd/evalmd/benchmark/benchmarks"
	"github.com/evalmd/evalmd/cmd/internal/cli"
	"github.com/evalmd/evalmd/cmd/internal/config"
	"github.com/evalmd/evalmd/harness"
	"github.com/evalmd/evalmd/inspect"
	"github.com/evalmd/evalmd/internal/aimd"
	"github.com/evalmd/evalmd/internal/outfile"
	"github.com/evalmd/evalmd/internal/setting"
	"github.com/evalmd/evalmd/model"
	"github.com/evalmd/evalmd/model/builtin"
	"github.com/evalmd/evalmd/model/openai"
	"github.com/evalmd/evalmd/model/providers"
	"github.com/evalmd/evalmd/result"
	"github.com/evalmd/evalmd/runner"
	"github.com/evalmd/evalmd/schema"
)

// Command is run's entry in the command table, with fresh flags; look
// says where its config files are looked for, getenv reads keys and
// servers from the environment, environ lists it (for run --check).
func Command(look config.Lookup, getenv func(string) string, environ func() []string) *cli.Command {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	f := bindFlags(fs)
	return &cli.Command{
		Name:  "run",
		Usage: "-f SHEET | -d DIR -m MODEL[,MODEL...] [-o DIR] [-u N] [-y] [-v] [flags]",
		Short: "Ask models the questions of markdown sheets and write graded output files.",
		Flags: fs,
		Run: func(ctx context.Context, stdout, stderr io.Writer, args []string) error {
			if len(args) > 0 {
				return cli.Usagef("unexpected argument %q", args[0])
			}
			conf, err := config.Load(look.ForSheets(cmp.Or(f.sheetFile, f.sheetDir)))
			if err != nil {
				return err
			}
			if f.verbose {
				fmt.Fprintln(stderr, conf.Used())
			}
			// The config's models, concurrency and sandbox are used where
			// no flag names them; its settings lie under the flags (below).
			f.given = map[string]bool{}
			fs.Visit(func(fl *flag.Flag) { f.given[fl.Name] = true })
			s, err := f.settle(conf, getenv, stderr)
			if err != nil {
				return err
			}
			sheets := func() (harness.Config, error) {
				return sheetsConfig(f.sheetFile, f.sheetDir, f.schemaFile, s.settings, slices.Concat(conf.DataRoots, f.dataRoots), f.outside)
			}
			if f.checkOnly {
				sb, err := f.modes.Sandbox(s.values)
				if err != nil {
					return err
				}
				if err := checkReport(ctx, stdout, conf, getenv, environ, sb, f.baseURL); err != nil || f.sheetFile == "" && f.sheetDir == "" {
					return err
				}
				return checkSheets(ctx, stdout, sheets)
			}
			if (f.sheetFile == "") == (f.sheetDir == "") {
				return cli.Usagef("give one of -f SHEET or -d DIR")
			}
			cfg, err := sheets()
			if err != nil {
				return err
			}
			if err := f.build(&cfg, conf, s, getenv, stderr); err != nil {
				return err
			}
			if !f.dryRun {
				cfg.Key = machineKey(look, stderr)
			}
			if f.watch {
				return watchSheets(ctx, cfg, f.sheetFile, f.sheetDir, func(ctx context.Context, cfg harness.Config) error {
					return runOnce(ctx, cfg, stdout, stderr, f.verbose, f.dryRun)
				}, stderr)
			}
			return runOnce(ctx, cfg, stdout, stderr, f.verbose, f.dryRun)
		},
	}
}

// settled is what run's flags and the config settle before any sheet is
// read: the shard asked, the largest reply read, and the run's own
// settings (the config files', under the flags) and their values.
type settled struct {
	shard    harness.Shard
	replyCap int64
	settings []setting.Layer
	values   setting.Values
}

// settle checks the flags and settles what they and the config say of
// the whole run; a shard's warning goes to stderr.
func (f *flags) settle(conf *config.Config, getenv func(string) string, stderr io.Writer) (settled, error) {
	var s settled
	if err := f.check(); err != nil {
		return s, err
	}
	shard, warning, err := f.shardFlags(getenv)
	if err != nil {
		return s, err
	}
	if warning != "" {
		fmt.Fprintln(stderr, warning)
	}
	s.shard = shard
	if f.runID != "" {
		if err := result.CheckRunID(f.runID); err != nil {
			return s, cli.Usagef("--run-id: %v", err)
		}
	}
	if s.replyCap, err = model.ParseSize(f.maxReply); err != nil {
		return s, cli.Usagef("--max-reply %v", err)
	}
	if s.replyCap > result.MaxString {
		// A longer reply would make an output its readers refuse.
		return s, cli.Usagef("--max-reply %s: at most %d MiB, the longest string agg and grade read from an output file", f.maxReply, result.MaxString>>20)
	}
	if g, ok := f.modes.Settings.Values["grader"]; ok {
		set, err := benchmarks.Set()
		if err != nil {
			return s, err
		}
		if err := set.Graders.Known(g); err != nil {
			return s, cli.Usagef("--grader %q: %v", g, err)
		}
	}
	if err := inspect.CheckFormat(f.logFormat); err != nil {
		return s, cli.Usagef("--log-format: %v", err)
	}
	s.settings = append(append([]setting.Layer(nil), conf.Settings()...), *f.modes.Settings)
	s.values, err = setting.Resolve("", nil, s.settings...)
	return s, err
}

// build fills in cfg, the sheets' config, with the rest of the run's: the
// models and how they are asked, the judge, the sandbox, the reformat
// model, the cache, prices, vision, the subset and shard, batches.
func (f *flags) build(cfg *harness.Config, conf *config.Config, s settled, getenv func(string) string, stderr io.Writer) error {
	c := f.conc
	if !f.given["c"] && conf.Concurrency != "" {
		c = conf.Concurrency // checked as the file was read
	}
	inFlight, adaptive, err := concurrency(c)
	if err != nil {
		return err
	}
	reg := providers.Registry()
	// The random model's picks take the run's sampling seed (--seed,
	// else the config's); none is 0, as before.
	var randomSeed int64
	if s.values.Gen.Seed != nil {
		randomSeed = *s.values.Gen.Seed
	}
	cfg.Prices, cfg.OutDir, cfg.RunIDLen, cfg.DryRun, cfg.Force, cfg.Stderr = conf.PriceTable(), f.outDir, f.runIDLen, f.dryRun, f.force, stderr
	cfg.Model = model.Options{BaseURL: f.baseURL, APIKeyEnv: f.keyEnv, Getenv: getenv, BaseURLs: conf.BaseURLs, SendKey: conf.SendKey, Timeout: f.timeout, MaxReply: s.replyCap,
		Provider: []any{openai.Options{CompletionAPI: f.complAPI}, builtin.Options{MockReply: f.mockReply, Seed: randomSeed}}}
	cfg.NewModel, cfg.Describe = reg.New, reg.Describe
	cfg.Runner = runner.Options{Concurrency: inFlight, Adaptive: adaptive, SeparateLimits: f.perModel, MaxAttempts: f.retries + 1,
		Timeout: f.timeout, MaxWait: f.maxWait, RPM: f.rpm, TPM: f.tpm}
	cfg.LogDir, cfg.LogFormat = f.logDir, f.logFormat
	if !f.dryRun {
		// The judge has its own server and key (--judge-base-url,
		// --judge-api-key-env, the config's): nothing of the run's
		// model is passed on. It retries as the run's requests do
		// (--retries, --max-wait).
		if cfg.Judge, err = f.judge.Options(model.Options{Getenv: getenv, Timeout: f.timeout, MaxReply: s.replyCap}, cfg.Runner, conf, stderr); err != nil {
			return err
		}
	}
	if cfg.Sandbox, err = f.modes.Sandbox(s.values); err != nil {
		return err
	}
	// The reformat model has its own server and takes nothing of
	// the run's model (--base-url, --api-key-env); its provider's
	// server may come from the config's base_urls.
	cfg.Reformat = f.modes.Reformat
	cfg.ReformatOptions = model.Options{BaseURL: f.modes.ReformatBaseURL, Getenv: getenv, BaseURLs: conf.BaseURLs, SendKey: conf.SendKey,
		Timeout: f.timeout, MaxReply: s.replyCap}
	if err := f.buildAsking(cfg, conf, stderr); err != nil {
		return err
	}
	cfg.Subset = f.subset
	cfg.Fresh = f.fresh
	cfg.MaxCost = f.maxCost
	if !f.given["max-cost"] && conf.MaxCost != nil {
		cfg.MaxCost = *conf.MaxCost // the user's own file: a workspace's is refused
	}
	cfg.Shard, cfg.RunID = s.shard, f.runID
	if f.batchOn {
		cfg.Batch = &harness.BatchConfig{FallbackLive: f.batchFall == "live", Poll: f.batchPoll}
	}
	return nil
}

// buildAsking sets the cache answers come from, the price and images
// asked for, and the models asked: -m's, else the config's, each once.
func (f *flags) buildAsking(cfg *harness.Config, conf *config.Config, stderr io.Writer) error {
	if f.cacheDir != "" {
		c, err := runner.OpenCache(f.cacheDir)
		if err != nil {
			return err
		}
		cfg.Runner.Cache = c
		if n := c.Note(); n != "" {
			fmt.Fprintf(stderr, "warning: %s\n", n)
		}
	}
	if f.price != "" {
		p, err := model.ParsePrice(f.price)
		if err != nil {
			return cli.Usagef("--price: %v", err)
		}
		cfg.Price = &p
	}
	if err := f.buildVision(cfg, conf); err != nil {
		return err
	}
	names := strings.Split(f.models, ",")
	if !f.given["m"] {
		names = conf.Models
	}
	for _, m := range names {
		if m = strings.TrimSpace(m); m != "" && !slices.Contains(cfg.Models, m) {
			cfg.Models = append(cfg.Models, m)
		}
	}
	return nil
}

// sheetsConfig is how run and check -f read sheets: the sheets (-f, or
// those below -d), the schema (-s), the run's own settings, the folders
// files may come from, and the benchmarks' graders and meta keys.
func sheetsConfig(file, dir, schemaFile string, settings []setting.Layer, dataRoots []string, outside bool) (harness.Config, error) {
	set, err := benchmarks.Set()
	if err != nil {
		return harness.Config{}, err
	}
	cfg := harness.Config{Settings: settings, DataRoots: dataRoots, AllowOutsideFiles: outside, Graders: set.Graders, DataKeys: set.MetaKeys}
	if schemaFile != "" {
		if cfg.Schema, err = schema.Load(schemaFile); err != nil {
			return cfg, err
		}
	}
	if file != "" {
		cfg.Sheets = []string{file}
		return cfg, nil
	}
	cfg.SheetRoot = dir
	cfg.Sheets, err = harness.FindSheets(dir)
	return cfg, err
}

// runOnce runs the sheets of cfg and ends with the summary table.
func runOnce(ctx context.Context, cfg harness.Config, stdout, stderr io.Writer, verbose, dryRun bool) error {
	sum, err := harness.Run(ctx, cfg)
	// The summary goes to stdout, unless -v lists the output
	// files there (one a line, for scripts): then to stderr.
	table := stdout
	if verbose {
		for _, p := range append(slices.Clip(sum.Outputs), sum.Current...) {
			fmt.Fprintln(stdout, p)
		}
		table = stderr
	}
	if !dryRun {
		if werr := writeSummary(table, sum.Files); werr != nil && err == nil {
			err = werr
		}
	}
	return err
}

// concurrency reads -c (or the config's concurrency): a number of
// requests in flight, or auto for an adaptive limit (then the number is
// its ceiling, which sizes the connection pool).
func concurrency(v string) (int, *aimd.Config, error) {
	n, auto, err := config.ParseConcurrency(v)
	switch {
	case err != nil:
		return 0, nil, cli.Usagef("-c %v", err)
	case auto:
		return aimd.DefaultMax, &aimd.Config{}, nil
	}
	return n, nil, nil
}

// machineKey is the machine's key (config.Lookup.Key), or nil, said in
// one line, when it cannot be had.
func machineKey(look config.Lookup, stderr io.Writer) *outfile.Key {
	k, err := look.Key()
	if err != nil {
		fmt.Fprintf(stderr, "warning: %v; without it, evalmd cannot tell the outputs it wrote: no earlier answer is reused and no run resumed\n", err)
	}
	return k
}
