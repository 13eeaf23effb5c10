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
	"time"

	"github.com/evalmd/evalmd/benchmark/benchmarks"
	"github.com/evalmd/evalmd/cmd/internal/cli"
	"github.com/evalmd/evalmd/cmd/internal/config"
	"github.com/evalmd/evalmd/cmd/internal/judgeflag"
	"github.com/evalmd/evalmd/cmd/internal/modeflag"
	"github.com/evalmd/evalmd/harness"
	"github.com/evalmd/evalmd/inspect"
	"github.com/evalmd/evalmd/internal/setting"
	"github.com/evalmd/evalmd/model"
	"github.com/evalmd/evalmd/model/builtin"
	"github.com/evalmd/evalmd/model/openai"
	"github.com/evalmd/evalmd/model/providers"
	"github.com/evalmd/evalmd/result"
	"github.com/evalmd/evalmd/runner"
	"github.com/evalmd/evalmd/runner/aimd"
	"github.com/evalmd/evalmd/schema"
)

// Command is run's entry in the command table, with fresh flags; look
// says where its config files are looked for, getenv reads keys and
// servers from the environment, environ lists it (for run --check).
func Command(look config.Lookup, getenv func(string) string, environ func() []string) *cli.Command {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	var (
		sheetFile = fs.String("f", "", "the sheet to run")
		sheetDir  = fs.String("d", "", "run every input*.md sheet below this folder")
		models    = fs.String("m", "", "model(s), comma-separated: openai/gpt-4o, anthropic/..., ollama/..., mock, random, oracle, replay:FILE.jsonl")
		outDir    = fs.String("o", "", "folder for output files (default: beside each sheet)")
		runIDLen  = fs.Int("u", 4, "hex digits of the run id, 0 to 32 (0: none)")
		dryRun    = fs.Bool("y", false, "dry run: write the output files with prompts and ground truths, call no model")
		schemaF   = fs.String("s", "", "sheet schema YAML (default: the built-in one)")
		_         = fs.Bool("j", true, "write JSON output (always on; kept for LIME's command lines)")
		verbose   = fs.Bool("v", false, "print each output file written")
		force     = fs.Bool("force", false, "write over files evalmd did not write, or changed since it wrote them")
		outside   = fs.Bool("allow-outside-files", false, "send files a sheet names outside its folder and the --data-root folders")
		conc      = fs.String("c", "10", "requests in flight per server, across all sheets: a number (at least 1), or auto to adapt to the server (from 10, between 1 and 100)")
		maxWait   = fs.Duration("max-wait", 5*time.Minute, "the longest pause a server's Retry-After may impose")
		perModel  = fs.Bool("c-per-model", false, "give each model its own -c, even when models share a server")
		baseURL   = fs.String("base-url", "", "base URL of an OpenAI-compatible server")
		complAPI  = fs.Bool("completion-api", false, "send raw text prompts to /v1/completions (llama.cpp, vLLM) instead of chat, as DataBench's baseline ran")
		keyEnv    = fs.String("api-key-env", "", "environment variable holding the API key (default: the provider's, e.g. OPENAI_API_KEY, NAME_API_KEY for openai-api/NAME/)")
		rpm       = fs.Int("rpm", 0, "requests per minute per model (0: no limit)")
		tpm       = fs.Int("tpm", 0, "estimated tokens per minute per model (0: no limit)")
		timeout   = fs.Duration("timeout", 10*time.Minute, "time limit of one request")
		maxReply  = fs.String("max-reply", "32MiB", "the largest reply body read from a server (K, M, G suffixes); a larger reply is the question's error")
		retries   = fs.Int("retries", 5, "retries of a failed request after its first attempt (0: none)")
		cacheDir  = fs.String("cache", "", "answer repeated requests from this cache folder")
		fresh     = fs.Bool("fresh", false, "ask every question, reusing no answer of an earlier output whose request was the same")
		price     = fs.String("price", "", "price override IN,OUT in US dollars per million tokens")
		mockReply = fs.String("mock-reply", "", "the reply of the mock model")
		vision    = fs.String("vision", "", "send images: on, off (default: by model name)")
		logDir    = fs.String("log-dir", "", "also write an Inspect log per output file into this folder")
		logFormat = fs.String("log-format", inspect.FormatEval, "format of the Inspect logs: eval or json")
		checkOnly = fs.Bool("check", false, "say which providers are configured, the sandbox's state and the config in force; run nothing")
		batchOn   = fs.Bool("batch", false, "send the questions through the providers' batch APIs (OpenAI, Anthropic): half the price, answers within 24 h; with -y, write the request files")
		batchFall = fs.String("batch-fallback", "", "live: answer what a batch failed or let expire with live requests (default: a new batch, twice)")
		batchPoll = fs.Duration("batch-poll", 30*time.Second, "with --batch, the wait between status checks")
		runIDFlag = fs.String("run-id", "", "the run id (letters, digits, -, _, .), in place of a random one of -u digits; every shard of a run takes the same")
		shardFlag = fs.String("shard", "", "ask only shard `K/N` of the run's questions (K from 1 to N), for a run split over N machines into one -o folder; agg merges the shards")
		shardsN   = fs.Int("shards", 0, "the number of shards, with the shard taken from "+JobIndexEnv+" (a Kubernetes Indexed Job's pod; also "+ShardsEnv+")")
		watchOn   = fs.Bool("watch", false, "after the run, run again each sheet saved (polling the -f sheet, or the input*.md below -d), until Ctrl-C")
	)
	// The subset is the run's, not a question's: it is no setting (no
	// meta key or config member could mean anything per question).
	var subset harness.Subset
	fs.IntVar(&subset.Limit, "limit", 0, "ask only the first `N` questions of each sheet (after --questions; 0: all)")
	fs.Func("questions", "ask only the questions whose name or id meta matches one of these comma-separated `GLOB`s (path.Match: *, ?, [a-z])", func(v string) error {
		for _, g := range strings.Split(v, ",") {
			if g = strings.TrimSpace(g); g != "" {
				subset.Questions = append(subset.Questions, g)
			}
		}
		return nil
	})
	var dataRoots []string
	fs.Func("data-root", "a folder whose files sheets may send, besides each sheet's own folder (repeatable; a converted sheet's data_root names its data)", func(dir string) error {
		dataRoots = append(dataRoots, dir)
		return nil
	})
	judge := judgeflag.Bind(fs)
	modes := modeflag.Bind(fs)
	return &cli.Command{
		Name:  "run",
		Usage: "-f SHEET | -d DIR -m MODEL[,MODEL...] [-o DIR] [-u N] [-y] [-v] [flags]",
		Short: "Ask models the questions of markdown sheets and write graded output files.",
		Flags: fs,
		Run: func(ctx context.Context, stdout, stderr io.Writer, args []string) error {
			if len(args) > 0 {
				return cli.Usagef("unexpected argument %q", args[0])
			}
			conf, err := config.Load(look.ForSheets(cmp.Or(*sheetFile, *sheetDir)))
			if err != nil {
				return err
			}
			if *verbose {
				fmt.Fprintln(stderr, conf.Used())
			}
			// The config's models, concurrency and sandbox are used where
			// no flag names them; its settings lie under the flags (below).
			given := map[string]bool{}
			fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
			if err != nil {
				return err
			}
			switch {
			case *runIDLen < 0 || *runIDLen > 32:
				return cli.Usagef("-u %d: the run id has 0 to 32 hex digits", *runIDLen)
			case *maxWait <= 0:
				return cli.Usagef("--max-wait %v: give a positive duration", *maxWait)
			case *retries < 0:
				return cli.Usagef("--retries %d: give 0 (no retries) or more", *retries)
			case *rpm < 0 || *tpm < 0:
				return cli.Usagef("--rpm and --tpm take 0 (no limit) or more")
			case *batchFall != "" && *batchFall != "live" && *batchFall != "batch":
				return cli.Usagef("--batch-fallback %q: say live (or batch, the default)", *batchFall)
			case (*batchFall != "" || *batchPoll != 30*time.Second) && !*batchOn:
				return cli.Usagef("--batch-fallback and --batch-poll go with --batch")
			case *watchOn && *batchOn:
				return cli.Usagef("--watch and --batch: a batch's answers take up to 24 h; watch reruns live")
			case *batchPoll <= 0:
				return cli.Usagef("--batch-poll %v: give a positive duration", *batchPoll)
			case *timeout <= 0:
				return cli.Usagef("--timeout %v: give a positive duration", *timeout)
			}
			if err := subset.Check(); err != nil {
				return cli.Usagef("%v", err)
			}
			shard, warning, err := shardOf(*shardFlag, *shardsN, getenv)
			if err != nil {
				return err
			}
			if warning != "" {
				fmt.Fprintln(stderr, warning)
			}
			if *runIDFlag != "" {
				if err := result.CheckRunID(*runIDFlag); err != nil {
					return cli.Usagef("--run-id: %v", err)
				}
			}
			replyCap, err := model.ParseSize(*maxReply)
			if err != nil {
				return cli.Usagef("--max-reply %v", err)
			}
			if err := inspect.CheckFormat(*logFormat); err != nil {
				return cli.Usagef("--log-format: %v", err)
			}
			// The run's own settings: the config files', under the flags.
			runSettings := append(append([]setting.Layer(nil), conf.Settings()...), *modes.Settings)
			runValues, err := setting.Resolve("", nil, runSettings...)
			if err != nil {
				return err
			}
			sheets := func() (harness.Config, error) {
				return sheetsConfig(*sheetFile, *sheetDir, *schemaF, runSettings, slices.Concat(conf.DataRoots, dataRoots), *outside)
			}
			if *checkOnly {
				sb, err := modes.Sandbox(runValues)
				if err != nil {
					return err
				}
				if err := checkReport(ctx, stdout, conf, getenv, environ, sb, *baseURL); err != nil || *sheetFile == "" && *sheetDir == "" {
					return err
				}
				return checkSheets(ctx, stdout, sheets)
			}
			if (*sheetFile == "") == (*sheetDir == "") {
				return cli.Usagef("give one of -f SHEET or -d DIR")
			}
			cfg, err := sheets()
			if err != nil {
				return err
			}
			c := *conc
			if !given["c"] && conf.Concurrency != "" {
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
			if runValues.Gen.Seed != nil {
				randomSeed = *runValues.Gen.Seed
			}
			cfg.Prices, cfg.OutDir, cfg.RunIDLen, cfg.DryRun, cfg.Force, cfg.Stderr = conf.PriceTable(), *outDir, *runIDLen, *dryRun, *force, stderr
			cfg.Model = model.Options{BaseURL: *baseURL, APIKeyEnv: *keyEnv, Getenv: getenv, BaseURLs: conf.BaseURLs, Timeout: *timeout, MaxReply: replyCap,
				Provider: []any{openai.Options{CompletionAPI: *complAPI}, builtin.Options{MockReply: *mockReply, Seed: randomSeed}}}
			cfg.NewModel, cfg.Describe = reg.New, reg.Describe
			cfg.Runner = runner.Options{Concurrency: inFlight, Adaptive: adaptive, SeparateLimits: *perModel, MaxAttempts: *retries + 1,
				Timeout: *timeout, MaxWait: *maxWait, RPM: *rpm, TPM: *tpm}
			cfg.LogDir, cfg.LogFormat = *logDir, *logFormat
			if !*dryRun {
				// The judge has its own server and key (--judge-base-url,
				// --judge-api-key-env, the config's): nothing of the run's
				// model is passed on. It retries as the run's requests do
				// (--retries, --max-wait).
				if cfg.Judge, err = judge.Options(model.Options{Getenv: getenv, Timeout: *timeout, MaxReply: replyCap}, cfg.Runner, conf, stderr); err != nil {
					return err
				}
			}
			if cfg.Sandbox, err = modes.Sandbox(runValues); err != nil {
				return err
			}
			// The reformat model has its own server and takes nothing of
			// the run's model (--base-url, --api-key-env); its provider's
			// server may come from the config's base_urls.
			cfg.Reformat = modes.Reformat
			cfg.ReformatOptions = model.Options{BaseURL: modes.ReformatBaseURL, Getenv: getenv, BaseURLs: conf.BaseURLs, Timeout: *timeout, MaxReply: replyCap}
			if *cacheDir != "" {
				c, err := runner.OpenCache(*cacheDir)
				if err != nil {
					return err
				}
				cfg.Runner.Cache = c
				if n := c.Note(); n != "" {
					fmt.Fprintf(stderr, "warning: %s\n", n)
				}
			}
			if *price != "" {
				p, err := model.ParsePrice(*price)
				if err != nil {
					return cli.Usagef("--price: %v", err)
				}
				cfg.Price = &p
			}
			switch *vision {
			case "":
			case "on", "off":
				v := *vision == "on"
				cfg.Vision = &v
			default:
				return cli.Usagef("--vision %q: say on or off", *vision)
			}
			names := strings.Split(*models, ",")
			if !given["m"] {
				names = conf.Models
			}
			{
				for _, m := range names {
					if m = strings.TrimSpace(m); m != "" && !slices.Contains(cfg.Models, m) {
						cfg.Models = append(cfg.Models, m)
					}
				}
			}
			cfg.Subset = subset
			cfg.Fresh = *fresh
			cfg.Shard, cfg.RunID = shard, *runIDFlag
			if *batchOn {
				cfg.Batch = &harness.BatchConfig{FallbackLive: *batchFall == "live", Poll: *batchPoll}
			}
			if *watchOn {
				return watchSheets(ctx, cfg, *sheetFile, *sheetDir, func(ctx context.Context, cfg harness.Config) error {
					return runOnce(ctx, cfg, stdout, stderr, *verbose, *dryRun)
				}, stderr)
			}
			return runOnce(ctx, cfg, stdout, stderr, *verbose, *dryRun)
		},
	}
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
