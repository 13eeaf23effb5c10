package runcmd

import (
	"flag"
	"math"
	"strings"
	"time"

	"github.com/evalmd/evalmd/cmd/internal/cli"
	"github.com/evalmd/evalmd/cmd/internal/judgeflag"
	"github.com/evalmd/evalmd/cmd/internal/modeflag"
	"github.com/evalmd/evalmd/harness"
	"github.com/evalmd/evalmd/inspect"
)

// flags are run's flags as data: bound to a flag set (bindFlags), checked
// (check, settle) and made into the run's config (build), each a step.
type flags struct {
	sheetFile, sheetDir, schemaFile string
	models                          string
	outDir                          string
	runIDLen                        int
	dryRun, verbose, force, outside bool
	conc                            string
	maxWait                         time.Duration
	perModel                        bool
	baseURL, keyEnv                 string
	complAPI                        bool
	rpm, tpm                        int
	timeout                         time.Duration
	maxReply                        string
	retries                         int
	cacheDir                        string
	fresh                           bool
	price, mockReply, vision        string
	maxCost                         float64
	logDir, logFormat               string
	checkOnly                       bool
	batchOn                         bool
	batchFall                       string
	batchPoll                       time.Duration
	runID, shard                    string
	shards                          int
	watch                           bool
	// The subset is the run's, not a question's: it is no setting (no
	// meta key or config member could mean anything per question).
	subset    harness.Subset
	dataRoots []string
	judge     *judgeflag.Flags
	modes     *modeflag.Flags
	// given are the flags given on the command line, by name.
	given map[string]bool
}

// defaultBatchPoll is --batch-poll's default.
const defaultBatchPoll = 30 * time.Second

// bindFlags registers run's flags on fs.
func bindFlags(fs *flag.FlagSet) *flags {
	f := &flags{}
	fs.StringVar(&f.sheetFile, "f", "", "the sheet to run")
	fs.StringVar(&f.sheetDir, "d", "", "run every input*.md sheet below this folder")
	fs.StringVar(&f.models, "m", "", "model(s), comma-separated: openai/gpt-4o, anthropic/..., ollama/..., mock, random, oracle, replay:FILE.jsonl")
	fs.StringVar(&f.outDir, "o", "", "folder for output files (default: beside each sheet)")
	fs.IntVar(&f.runIDLen, "u", 4, "hex digits of the run id, 0 to 32 (0: none)")
	fs.BoolVar(&f.dryRun, "y", false, "dry run: write the output files with prompts and ground truths, call no model")
	fs.StringVar(&f.schemaFile, "s", "", "sheet schema YAML (default: the built-in one)")
	fs.Bool("j", true, "write JSON output (always on; kept for LIME's command lines)")
	fs.BoolVar(&f.verbose, "v", false, "print each output file written")
	fs.BoolVar(&f.force, "force", false, "write over files evalmd did not write, or changed since it wrote them")
	fs.BoolVar(&f.outside, "allow-outside-files", false, "send files a sheet names outside its folder and the --data-root folders")
	fs.StringVar(&f.conc, "c", "10", "requests in flight per server, across all sheets: a number (at least 1), or auto to adapt to the server (from 10, between 1 and 100)")
	fs.DurationVar(&f.maxWait, "max-wait", 5*time.Minute, "the longest pause a server's Retry-After may impose")
	fs.BoolVar(&f.perModel, "c-per-model", false, "give each model its own -c, even when models share a server")
	fs.StringVar(&f.baseURL, "base-url", "", "base URL of an OpenAI-compatible server")
	fs.BoolVar(&f.complAPI, "completion-api", false, "send raw text prompts to /v1/completions (llama.cpp, vLLM) instead of chat, as DataBench's baseline ran")
	fs.StringVar(&f.keyEnv, "api-key-env", "", "environment variable holding the API key (default: the provider's, e.g. OPENAI_API_KEY, NAME_API_KEY for openai-api/NAME/)")
	fs.IntVar(&f.rpm, "rpm", 0, "requests per minute per model (0: no limit)")
	fs.IntVar(&f.tpm, "tpm", 0, "estimated tokens per minute per model (0: no limit)")
	fs.DurationVar(&f.timeout, "timeout", 10*time.Minute, "time limit of one request")
	fs.StringVar(&f.maxReply, "max-reply", "32MiB", "the largest reply body read from a server (K, M, G suffixes); a larger reply is the question's error")
	fs.IntVar(&f.retries, "retries", 5, "retries of a failed request after its first attempt (0: none)")
	fs.StringVar(&f.cacheDir, "cache", "", "answer repeated requests from this cache folder")
	fs.BoolVar(&f.fresh, "fresh", false, "ask every question, reusing no answer of an earlier output whose request was the same")
	fs.StringVar(&f.price, "price", "", "price override IN,OUT[,CACHED_IN[,CACHE_WRITE]] in US dollars per million tokens (input, output, prompt cache reads and writes)")
	fs.Float64Var(&f.maxCost, "max-cost", 0, "stop sending before the run's spending could pass `USD` (what was spent plus the worst case in flight); exit status 5, and the same command asks the rest (0: no cap; the config's max_cost, your own file only)")
	fs.StringVar(&f.mockReply, "mock-reply", "", "the reply of the mock model")
	fs.StringVar(&f.vision, "vision", "", "send images: on, off or auto (by the config's vision member, else the model's name: OpenAI's but gpt-3.5, Anthropic's), or per model: MODEL=on,MODEL=off")
	fs.StringVar(&f.logDir, "log-dir", "", "also write an Inspect log per output file into this folder")
	fs.StringVar(&f.logFormat, "log-format", inspect.FormatEval, "format of the Inspect logs: eval or json")
	fs.BoolVar(&f.checkOnly, "check", false, "say which providers are configured, the sandbox's state and the config in force; run nothing")
	fs.BoolVar(&f.batchOn, "batch", false, "send the questions through the providers' batch APIs (OpenAI, Anthropic): half the price, answers within 24 h; with -y, write the request files")
	fs.StringVar(&f.batchFall, "batch-fallback", "", "live: answer what a batch failed or let expire with live requests (default: a new batch, twice)")
	fs.DurationVar(&f.batchPoll, "batch-poll", defaultBatchPoll, "with --batch, the wait between status checks")
	fs.StringVar(&f.runID, "run-id", "", "the run id (letters, digits, -, _, .), in place of a random one of -u digits; every shard of a run takes the same")
	fs.StringVar(&f.shard, "shard", "", "ask only shard `K/N` of the run's questions (K from 1 to N), for a run split over N machines into one -o folder; agg merges the shards")
	fs.IntVar(&f.shards, "shards", 0, "the number of shards, with the shard taken from "+JobIndexEnv+" (a Kubernetes Indexed Job's pod; also "+ShardsEnv+")")
	fs.BoolVar(&f.watch, "watch", false, "after the run, run again each sheet saved (polling the -f sheet, or the input*.md below -d), until Ctrl-C")
	fs.IntVar(&f.subset.Limit, "limit", 0, "ask only the first `N` questions of each sheet (after --questions; 0: all)")
	fs.Func("questions", "ask only the questions whose name or id meta matches one of these comma-separated `GLOB`s (path.Match: *, ?, [a-z])", func(v string) error {
		for _, g := range strings.Split(v, ",") {
			if g = strings.TrimSpace(g); g != "" {
				f.subset.Questions = append(f.subset.Questions, g)
			}
		}
		return nil
	})
	fs.Func("data-root", "a folder whose files sheets may send, besides each sheet's own folder (repeatable; a converted sheet's data_root names its data)", func(dir string) error {
		f.dataRoots = append(f.dataRoots, dir)
		return nil
	})
	f.judge = judgeflag.Bind(fs)
	f.modes = modeflag.Bind(fs)
	return f
}

// check refuses flags that cannot go together or take no such value (a
// usage error, as the first of them).
func (f *flags) check() error {
	switch {
	case f.runIDLen < 0 || f.runIDLen > 32:
		return cli.Usagef("-u %d: the run id has 0 to 32 hex digits", f.runIDLen)
	case f.maxWait <= 0:
		return cli.Usagef("--max-wait %v: give a positive duration", f.maxWait)
	case f.retries < 0:
		return cli.Usagef("--retries %d: give 0 (no retries) or more", f.retries)
	case f.rpm < 0 || f.tpm < 0:
		return cli.Usagef("--rpm and --tpm take 0 (no limit) or more")
	case f.batchFall != "" && f.batchFall != "live" && f.batchFall != "batch":
		return cli.Usagef("--batch-fallback %q: say live (or batch, the default)", f.batchFall)
	case (f.batchFall != "" || f.batchPoll != defaultBatchPoll) && !f.batchOn:
		return cli.Usagef("--batch-fallback and --batch-poll go with --batch")
	case f.watch && f.batchOn:
		return cli.Usagef("--watch and --batch: a batch's answers take up to 24 h; watch reruns live")
	case f.batchPoll <= 0:
		return cli.Usagef("--batch-poll %v: give a positive duration", f.batchPoll)
	case f.maxCost < 0 || math.IsNaN(f.maxCost) || math.IsInf(f.maxCost, 0):
		return cli.Usagef("--max-cost %v: give a number of US dollars, 0 for no cap", f.maxCost)
	case f.timeout <= 0:
		return cli.Usagef("--timeout %v: give a positive duration", f.timeout)
	}
	if err := f.subset.Check(); err != nil {
		return cli.Usagef("%v", err)
	}
	return nil
}
