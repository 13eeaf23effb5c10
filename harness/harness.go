// Package harness runs models on sheets: it reads each sheet, builds every
// question's request, asks each model (or, in a dry run, nobody), grades the
// answers and writes one output file per sheet and model, with its readable
// markdown beside it.
//
// Run takes a Config and returns a Summary of what it wrote (the output
// files, the questions that failed or could not be graded), from which a
// command sets its exit status; a run that finished with failed questions
// returns a *FailedError beside it.
//
// Check is Run's first step alone (evalmd check -f): it reads the sheets
// as a run does, asks nothing and writes nothing, and returns every
// Problem it finds where a run stops at the first.
//
// Trust (evalmd trust) seals the outputs of a folder evalmd wrote
// elsewhere, which the user vouches for, so that a Run with the
// machine's Config.Key reuses their answers; it says what it sealed in
// each folder as a Vouched.
package harness

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/evalmd/evalmd/batch"
	"github.com/evalmd/evalmd/grade"
	"github.com/evalmd/evalmd/harness/internal/execute"
	"github.com/evalmd/evalmd/harness/internal/plan"
	"github.com/evalmd/evalmd/harness/internal/prepare"
	"github.com/evalmd/evalmd/harness/internal/write"
	"github.com/evalmd/evalmd/internal/outfile"
	"github.com/evalmd/evalmd/internal/setting"
	"github.com/evalmd/evalmd/model"
	"github.com/evalmd/evalmd/regrade"
	"github.com/evalmd/evalmd/result"
	"github.com/evalmd/evalmd/runner"
	"github.com/evalmd/evalmd/sandbox"
	"github.com/evalmd/evalmd/schema"
)

// Config is one invocation of run.
type Config struct {
	Sheets []string // sheet files, in order
	Models []string // model names; a dry run without models writes "dry-run"
	OutDir string   // "" = beside each sheet, as LIME does
	// SheetRoot is the folder -d named; with OutDir, each output goes to
	// the sheet's folder relative to it, so equal sheet names in different
	// folders do not overwrite each other.
	SheetRoot string
	RunIDLen  int // hex characters of the run id; 0 = none (LIME's -u 0)
	// RunID, when set, is the run id (run --run-id), in place of a random
	// one of RunIDLen digits.
	RunID  string
	DryRun bool // write prompts and ground truths, call no model
	// Force writes over files evalmd did not write or that were changed
	// since (see internal/outfile).
	Force  bool
	Schema *schema.Schema

	// Model are the options every model is made with (keys, base URL).
	Model model.Options
	// Runner tunes sending: concurrency, retries, rate limits, cache.
	// Journal is set by Run: one for the whole run (see ResumeFiles).
	Runner runner.Options
	// Price overrides the price table (--price).
	Price *model.Price
	// Prices are prices by model name as given (a config file's), over the
	// price table and under Price.
	Prices map[string]model.Price
	// Graders names the graders; nil means grade.NewRegistry(), the
	// generic ones. Commands pass their benchmark Set's.
	Graders *grade.Registry
	// DataKeys are the meta keys benchmarks declare as their own data
	// (their Set's MetaKeys): no warning names them as unknown.
	DataKeys []string
	// Judge configures the "judge" grader: its own model (built by the
	// command, with its own server and key), template and max_tokens.
	Judge grade.JudgeOptions
	// Settings are the run's own settings (the config files' and the
	// flags'), laid with each sheet's and question's meta into the
	// question's (setting.Resolve).
	Settings []setting.Layer
	// Sandbox says where code and agent modes run Python; a pool is
	// started (and checked) only when some question needs one.
	Sandbox sandbox.Config
	// Reformat names the model of InfiAgent's reformat step (--reformat),
	// made with ReformatOptions; sheets whose meta says "reformat:
	// required" are refused without it.
	Reformat        string
	ReformatOptions model.Options
	// LogDir, when set, also receives an Inspect log per output file, in
	// LogFormat (inspect.FormatEval when "", or inspect.FormatJSON).
	LogDir    string
	LogFormat string
	// Vision forces images on (true) or off (false) for every model;
	// nil decides by VisionOf, else by the model's name.
	Vision *bool
	// VisionOf says, by model name, whether the model is sent images
	// (run --vision MODEL=on, the config's vision member).
	VisionOf map[string]bool
	// MaxCost caps what the run spends, in US dollars (run --max-cost; 0:
	// no cap): before each request, what was spent plus the worst case
	// of the requests in flight and of this one must fit. At the cap the
	// run stops sending, writes its outputs with the questions not asked
	// noted, and returns a *runner.BudgetError.
	MaxCost float64
	// AllowOutsideFiles sends files a sheet names outside its folder and
	// DataRoots (see prompt.Builder).
	AllowOutsideFiles bool
	// DataRoots are folders the user vouches for (run --data-root): a
	// sheet may send files below them too. A sheet's own data_root meta
	// cannot widen what it may send.
	DataRoots []string
	// Batch, when set, sends the questions through the providers' batch
	// APIs (run --batch); a dry run writes the request files instead.
	Batch *BatchConfig
	// Subset chooses the questions asked of each sheet (run --limit,
	// --questions); the zero Subset asks them all.
	Subset Subset
	// Fresh asks every question (run --fresh): no answer of an earlier
	// output is reused (see harness/internal/reuse).
	Fresh bool
	// Key is the machine's key (outfile.LoadKey): the outputs the run
	// writes are sealed with it, only earlier outputs sealed with it are
	// reused from, and the run's journal is named with it, so that a run
	// resumes only a journal this machine wrote. nil seals nothing,
	// reuses nothing and resumes nothing: the journal is named with a key
	// of this run alone, and removed when it ends.
	Key *outfile.Key
	// Shard, when not zero, asks only this machine's share of the run
	// (run --shard K/N): each output is written as its part (plan.Shard),
	// with a journal of its own, under a run id every shard agrees on
	// (RunID, else one made from the run's sheets, models and folders).
	Shard Shard

	// NewModel builds a model by name: the program's model.Registry New,
	// with the providers it links. Required unless DryRun.
	NewModel func(name string, opt model.Options) (model.Model, error)
	// Describe says what a model is from its name alone, for a dry run,
	// which builds no model: the program's model.Registry Describe. nil
	// knows nothing of any (no price, no context limit).
	Describe func(name string, opt model.Options) model.Info

	Stderr io.Writer // warnings and totals
	Now    func() time.Time
	Rand   io.Reader // run ids; crypto/rand when nil

	clear string // what a line starts with: ClearLine under a progress line drawn in place
	// once names the journal of a run without Key (start): no later run
	// finds it.
	once *outfile.Key
}

// Summary says what a run wrote.
type Summary struct {
	Outputs []string
	// Current are the earlier outputs that hold what an output of the run
	// would (every answer reused, graded alike): the run wrote none in
	// their place, and added no run.
	Current []string
	// Files count each output written, then each current one, as the
	// run's summary table shows them: from what the run knows, not read
	// back.
	Files    []OutputFile
	Warnings int
	// Ungraded name the questions that could not be graded (graded null:
	// regrade.UngradedAt), each at its sheet's file and line.
	Ungraded []regrade.Ungradable
	// NoJudge counts the questions graded null because they need the
	// judge grader and the run has no judge model (grade.NoJudge).
	NoJudge int
	// Questions counts the questions of the outputs written (reused
	// answers included: each records reused_from), Failed those that
	// ended with an error; FirstError is the first such error.
	Questions, Failed int
	FirstError        string
}

// Run runs every model on every sheet, in three steps each entered once:
// plan (package plan lays the sheets on the models as jobs; package
// prepare reads the sheets and builds every request, so every sheet,
// request, output and grader is checked before any model is asked),
// execute (package execute: all questions through one runner pool per
// model or server, each answer graded as it comes in) and write (package
// write: each output file, its markdown and Inspect log, written as soon
// as its sheet is done). One journal holds the whole run, so a rerun of
// the same command after a crash, a Ctrl-C or failed questions asks only
// what is missing.
func Run(ctx context.Context, cfg Config) (Summary, error) {
	var sum Summary
	cfg, models, err := cfg.start()
	if err != nil {
		return sum, err
	}
	runID, err := cfg.newRunID()
	if err != nil {
		return sum, err
	}
	ms, err := openModels(cfg, models)
	if err != nil {
		return sum, err
	}
	if err := cfg.checkBudget(ms); err != nil {
		return sum, err
	}
	// The graders are built once: each question's is checked when it is
	// planned, and grades it when it is answered.
	graders := regrade.NewGraders(cfg.Graders, grade.Options{JudgeOptions: cfg.Judge, Scripts: cfg.Sandbox.RunScript}, "")
	// A dry run keeps no journal; a real one resumes the same command's.
	var st execute.Resume
	if !cfg.DryRun {
		if st, err = execute.LoadResume(ResumeFiles(cfg)); err != nil {
			return sum, err
		}
		st.Once = cfg.Key == nil
		cfg.sayPlanted(st.Journal)
		if st.Exists {
			runID = st.RunID
			cfg.say("resuming run %q from %s", runID, st.Journal)
		}
		st.RunID = runID
	}
	files := &write.Files{Force: cfg.Force, Wrote: st.Wrote, Retry: !cfg.Shard.IsZero() && !cfg.DryRun}
	if !cfg.DryRun {
		files.Seal = cfg.Key
	}
	if st.Exists {
		files.Resumed = st.Written
	}
	outs, err := cfg.plan(ctx, &sum, ms, runID, graders, files, nil)
	if err != nil {
		return sum, err
	}
	w := write.All{files}
	if !cfg.DryRun {
		w = append(w, &write.Supersede{Force: cfg.Force, Console: cfg.console(), LogDir: cfg.LogDir})
	}
	if cfg.LogDir != "" {
		w = append(w, &write.InspectLogs{Dir: cfg.LogDir, Format: cfg.LogFormat, Force: cfg.Force})
	}
	if cfg.DryRun {
		return sum, cfg.writeDryRun(ctx, &sum, outs, w, ms.names, runID)
	}
	if err := reuseAnswers(cfg, ms.made, outs, st.Exists); err != nil {
		return sum, err
	}
	res, err := execute.Run(ctx, outs, ms.made, execute.Options{Runner: cfg.Runner, Resume: st, Batch: cfg.Batch,
		Graders: graders, Prices: cfg.prices(), Sandbox: cfg.Sandbox, Reformat: ms.reformat, Writer: w, Console: cfg.console(), MaxCost: cfg.MaxCost})
	return cfg.summarize(sum, res, err)
}

// start fills in cfg's defaults and checks what needs no file: the
// models named (a dry run without models writes "dry-run").
func (cfg Config) start() (Config, []string, error) {
	if cfg.Stderr == nil {
		cfg.Stderr = io.Discard
	}
	if cfg.Key == nil {
		cfg.once = outfile.RandomKey()
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Runner.Progress == nil && cfg.Stderr == os.Stderr {
		cfg.Runner.Progress = os.Stderr
	}
	if runner.IsTerminal(cfg.Runner.Progress) {
		// The progress line is redrawn in place: a line said meanwhile
		// clears it first.
		cfg.clear = runner.ClearLine
	}
	cfg.Stderr = &syncWriter{w: cfg.Stderr}
	models := cfg.Models
	if len(models) == 0 {
		if !cfg.DryRun {
			return cfg, nil, fmt.Errorf("no model: name one with -m")
		}
		models = []string{"dry-run"}
	}
	if cfg.NewModel == nil && !cfg.DryRun {
		return cfg, nil, fmt.Errorf("no model providers: Config.NewModel is not set")
	}
	if cfg.Model.HTTPClient == nil {
		// Every model's pool may hold its connections at once.
		cfg.Model.HTTPClient = pooledClient(max(cfg.Runner.Concurrency, 10) * len(models))
	}
	if cfg.Batch != nil && cfg.DryRun && len(cfg.Models) == 0 {
		return cfg, nil, fmt.Errorf("-y --batch writes each model's request files: name the model(s) with -m")
	}
	if err := cfg.Shard.Check(); err != nil {
		return cfg, nil, err
	}
	if !cfg.Shard.IsZero() && cfg.LogDir != "" {
		return cfg, nil, fmt.Errorf("--shard and --log-dir: a shard holds a part of each run; the Inspect logs are written where the parts meet: evalmd agg -i FOLDER --log-dir DIR")
	}
	if cfg.RunID != "" {
		if err := result.CheckRunID(cfg.RunID); err != nil {
			return cfg, nil, err
		}
	}
	return cfg, models, nil
}

// models are the run's models: made once, before any sheet, so a bad name
// or a missing key stops the run before anything is spent. A dry run
// makes none: infos describe them by name.
type models struct {
	names    []string
	made     map[string]model.Model
	infos    map[string]model.Info
	reformat model.Model // InfiAgent's reformat step's, or nil
}

// describe says what a model is from its name alone (Config.Describe).
func (cfg Config) describe(name string) model.Info {
	if cfg.Describe == nil {
		return model.Info{Model: name}
	}
	return cfg.Describe(name, cfg.Model)
}

func openModels(cfg Config, names []string) (models, error) {
	ms := models{names: names, made: map[string]model.Model{}, infos: map[string]model.Info{}}
	for _, name := range names {
		ms.infos[name] = cfg.describe(name)
		if cfg.DryRun {
			continue
		}
		m, err := cfg.NewModel(name, cfg.Model)
		if err != nil {
			return ms, err // the registry names the model
		}
		if cfg.Batch != nil {
			if _, err := batch.API(m); err != nil {
				return ms, err
			}
		}
		ms.made[name], ms.infos[name] = m, m.Info()
	}
	if cfg.Reformat != "" && !cfg.DryRun {
		var err error
		if ms.reformat, err = cfg.NewModel(cfg.Reformat, cfg.ReformatOptions); err != nil {
			return ms, fmt.Errorf("--reformat: %w", err)
		}
	}
	return ms, nil
}

// plan is the run's first step: the sheets read, laid out on the models
// (plan.Make) and made into requests and unanswered outputs, every output
// checked writable (files holds what each held) and every grader built.
//
// With problems set (Check), nothing is written (files is nil) and every
// problem of the sheets is gathered there, where a run stops at the first.
func (cfg Config) plan(ctx context.Context, sum *Summary, ms models, runID string, graders *regrade.Graders, files *write.Files, problems *prepare.Problems) ([]*plan.Output, error) {
	popt := prepare.Options{Schema: cfg.Schema, DataKeys: cfg.DataKeys, Settings: cfg.Settings, Vision: cfg.Vision, VisionOf: cfg.VisionOf,
		AllowOutsideFiles: cfg.AllowOutsideFiles, DataRoots: cfg.DataRoots,
		NoModel: len(cfg.Models) == 0, DryRun: cfg.DryRun, Reformat: ms.reformat != nil, Created: cfg.Now(), Stderr: cfg.Stderr, Clear: cfg.clear,
		Models: ms.made, Problems: problems}
	checks := &checks{graders: graders, batch: cfg.Batch != nil, made: ms.made, capped: cfg.MaxCost > 0 && !cfg.DryRun}
	popt.Check = checks.question
	sheets, warnings, err := prepare.Read(cfg.Sheets, popt)
	sum.Warnings += warnings
	if err != nil {
		return nil, err
	}
	planned := make([]plan.Sheet, len(sheets))
	for i := range sheets {
		if planned[i], err = sheets[i].Plan(cfg.Settings, problems); err != nil {
			return nil, err
		}
	}
	jobs, err := plan.Make(planned, plan.Options{Models: ms.names, OutDir: cfg.OutDir, SheetRoot: cfg.SheetRoot, RunID: runID, Subset: cfg.Subset, Shard: cfg.Shard})
	if err != nil {
		return nil, err
	}
	outs, warnings, err := prepare.Outputs(ctx, sheets, jobs, ms.infos, runID, popt)
	sum.Warnings += warnings
	if err != nil {
		return nil, err
	}
	if problems != nil {
		if err := checks.ungradedError(); err != nil {
			problems.Errors = append(problems.Errors, err)
		}
		return outs, nil
	}
	for _, o := range outs {
		if err := files.Check(o.OutPath); err != nil {
			return nil, err
		}
	}
	if !cfg.DryRun {
		if err := checks.ungradedError(); err != nil {
			return nil, err
		}
	}
	sum.Warnings += warnUnmatched(cfg, ms.names, ms.made, checks.keyed)
	if cfg.Batch != nil || cfg.LogDir != "" {
		// A batch is made of every request at once, an Inspect log of
		// every question.
		for _, o := range outs {
			if err := o.Materialize(ctx); err != nil {
				return nil, err
			}
		}
	}
	return outs, nil
}

// writeDryRun is a dry run's write step, in place of executing: each
// output written unanswered, with (--batch) each model's request files,
// and what asking would cost said.
func (cfg Config) writeDryRun(ctx context.Context, sum *Summary, outs []*plan.Output, w write.All, models []string, runID string) error {
	if cfg.Batch != nil {
		journal, _ := ResumeFiles(cfg)
		bf, err := write.NewBatchFiles(models, cfg.NewModel, cfg.Model, filepath.Dir(journal), runID, cfg.Force, cfg.console(), cfg.prices())
		if err != nil {
			return err
		}
		w = append(write.All{bf}, w...)
	}
	report := &write.DryRunReport{Console: cfg.console(), Models: cfg.Models, Describe: cfg.describe, Batch: cfg.Batch != nil, Prices: cfg.prices()}
	w = append(w, report)
	journal, _ := ResumeFiles(cfg)
	scratch, err := write.NewScratch(journal)
	if err != nil {
		return err
	}
	defer scratch.Close()
	for _, o := range outs {
		// Each question is built, counted and put in the scratch files
		// in turn (kept only when the writers need them all: batch
		// files, Inspect logs).
		spill := scratch.Spill(o.Len())
		for i := range o.Len() {
			t, rec, err := o.Question(ctx, i)
			if err == nil {
				err = spill.PutQuestion(&o.File.Sheet, i, rec)
			}
			if err != nil {
				return fmt.Errorf("%s: %w", o.OutPath, err)
			}
			report.Ask(o, t)
		}
		if err := w.Write(o, spill); err != nil {
			return err
		}
		sum.Outputs = append(sum.Outputs, o.OutPath)
	}
	return w.Close()
}

// summarize is the run's Summary from what the execute step did, and its
// error: the step's, else the questions that failed or could not be
// graded.
func (cfg Config) summarize(sum Summary, res execute.Result, err error) (Summary, error) {
	var current []OutputFile
	for _, f := range res.Files {
		of := OutputFile{Path: f.Path, Current: f.Current, Sheet: f.Sheet, Tally: f.Tally}
		if f.Current {
			sum.Current, current = append(sum.Current, f.Path), append(current, of)
		} else {
			sum.Outputs, sum.Files = append(sum.Outputs, f.Path), append(sum.Files, of)
		}
	}
	sum.Files = append(sum.Files, current...)
	sum.Ungraded, sum.NoJudge = res.Ungraded, res.NoJudge
	sum.Questions, sum.Failed, sum.FirstError = res.Questions, res.Failed, res.FirstError
	if err != nil {
		return sum, err
	}
	if sum.NoJudge > 0 {
		n, s := sum.NoJudge, "s need"
		if n == 1 {
			s = " needs"
		}
		cfg.say("%d question%s the judge grader and no judge model was given: graded null (grade --judge MODEL -w grades them)", n, s)
	}
	var errs []error
	if sum.Failed > 0 {
		// The outputs are written and hold every error; the exit status
		// and this line say the run did not fully succeed, and the
		// journal kept lets a rerun ask only those.
		errs = append(errs, &FailedError{Failed: sum.Failed, Total: sum.Questions, First: execute.OneLine(sum.FirstError)})
	}
	if err := regrade.GradeErrors("run", sum.Ungraded); err != nil {
		errs = append(errs, err)
	}
	return sum, errors.Join(errs...)
}

// console is where the steps say what they do.
func (cfg Config) console() write.Console { return write.Console{W: cfg.Stderr, Clear: cfg.clear} }

// say writes one line to the console.
func (cfg Config) say(format string, args ...any) {
	fmt.Fprint(cfg.Stderr, cfg.clear+fmt.Sprintf(format, args...)+"\n")
}

// OutputFile is an output file of a run, written or current, as the
// run's summary counts it.
type OutputFile struct {
	Path string
	// Current marks an earlier output that holds what the run's would
	// have: the run wrote nothing in its place and spent nothing on it.
	Current bool
	Sheet   *result.Sheet // its sheet record: model, epoch, subset, totals
	Tally   result.Tally
}

// FailedError is a run that finished with questions that failed (their
// errors are in the output files): a partial failure, not a failure to run.
type FailedError struct {
	Failed, Total int
	First         string // the first failure's reason
}

func (e *FailedError) Error() string {
	return fmt.Sprintf("run: %d of %d questions failed (first: %s); rerun the same command to ask only those", e.Failed, e.Total, e.First)
}

// Partial says the run finished with some questions failed.
func (e *FailedError) Partial() bool { return true }

// pooledClient keeps as many idle connections per host as requests in
// flight: Go's default of 2 makes a run at -c 32 reopen connections all
// the time (about 60 µs of CPU per question, measured in runner).
func pooledClient(concurrency int) *http.Client {
	if concurrency < 10 {
		concurrency = 10
	}
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.MaxIdleConns = 2 * concurrency
	t.MaxIdleConnsPerHost = concurrency
	return &http.Client{Transport: t}
}

// keyedAnswers is a model that answers from a fixed set of keys (replay):
// Unmatched lists those that none of the questions asks for.
type keyedAnswers interface {
	Unmatched(qs []model.QuestionRef) []string
}

// maxUnmatchedSaid bounds the answers named in warnUnmatched's warning.
const maxUnmatchedSaid = 5

// warnUnmatched warns, once per model, about the answers of a keyed model
// (replay lines) that no question of the run asks for (keyed holds the
// questions each asks): they would otherwise be dropped without a word.
// It returns the warnings given.
func warnUnmatched(cfg Config, models []string, made map[string]model.Model, keyed map[string][]model.QuestionRef) int {
	n := 0
	for _, name := range models {
		keys, ok := made[name].(keyedAnswers)
		if !ok {
			continue
		}
		lost := keys.Unmatched(keyed[name])
		if len(lost) == 0 {
			continue
		}
		said := lost[:min(len(lost), maxUnmatchedSaid)]
		more := ""
		if len(lost) > len(said) {
			more = fmt.Sprintf(", and %d more", len(lost)-len(said))
		}
		cfg.say("warning: %s: %d answers match no question of this run (by name or id), so none is used: %s%s",
			name, len(lost), strings.Join(said, ", "), more)
		n++
	}
	return n
}

// newRunID is the run's id: the one given, else for a shard the one
// every shard of the run makes alike (sharedRunID), else a random one.
func (cfg Config) newRunID() (string, error) {
	switch {
	case cfg.RunID != "":
		return cfg.RunID, nil
	case !cfg.Shard.IsZero():
		return sharedRunID(cfg), nil
	}
	return newRunID(cfg.Rand, cfg.RunIDLen)
}

// newRunID makes LIME's run id: the first n hex digits of a random uuid.
func newRunID(r io.Reader, n int) (string, error) {
	if n <= 0 {
		return "", nil
	}
	if r == nil {
		r = rand.Reader
	}
	b := make([]byte, (n+1)/2)
	if _, err := io.ReadFull(r, b); err != nil {
		return "", fmt.Errorf("run id: %w", err)
	}
	return hex.EncodeToString(b)[:n], nil
}

// FindSheets returns every input*.md file below dir, sorted (LIME's -d
// takes the files named input*.md).
func FindSheets(dir string) ([]string, error) {
	var out []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && strings.HasPrefix(d.Name(), "input") && strings.HasSuffix(d.Name(), ".md") {
			out = append(out, p)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no input*.md sheets below it", dir)
	}
	sort.Strings(out)
	return out, nil
}

// prices are the run's price overrides.
func (c *Config) prices() plan.Prices { return plan.Prices{One: c.Price, ByModel: c.Prices} }
