// Package harness runs models on sheets: it reads each sheet, builds every
// question's request, asks each model (or, in a dry run, nobody), grades the
// answers and writes one output file per sheet and model, with its readable
// markdown beside it.
//
// Run takes a Config and returns a Summary of what it wrote (the output
// files, the questions that failed or could not be graded), from which a
// command sets its exit status; a run that finished with failed questions
// returns a *FailedError beside it.
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
	"strconv"
	"strings"
	"time"

	"github.com/evalmd/evalmd/grade"
	"github.com/evalmd/evalmd/inspect"
	"github.com/evalmd/evalmd/internal/outfile"
	"github.com/evalmd/evalmd/internal/setting"
	"github.com/evalmd/evalmd/model"
	"github.com/evalmd/evalmd/prompt"
	"github.com/evalmd/evalmd/regrade"
	"github.com/evalmd/evalmd/result"
	"github.com/evalmd/evalmd/runner"
	"github.com/evalmd/evalmd/sandbox"
	"github.com/evalmd/evalmd/schema"
	"github.com/evalmd/evalmd/sheet"
	"github.com/evalmd/evalmd/solve"
	"github.com/evalmd/evalmd/tokens"
	"github.com/evalmd/evalmd/workbook"
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
	RunIDLen  int  // hex characters of the run id; 0 = none (LIME's -u 0)
	DryRun    bool // write prompts and ground truths, call no model
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
	// Grader overrides the sheets' grader meta (--grader).
	Grader string
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
	// ContextLimit and Encoding, when set, override the model's and the
	// sheets' context limit and tiktoken encoding for truncation.
	ContextLimit int
	Encoding     string
	// LogDir, when set, also receives an Inspect log per output file, in
	// LogFormat (inspect.FormatEval when "", or inspect.FormatJSON).
	LogDir    string
	LogFormat string
	// Vision forces images on (true) or off (false) for every model;
	// nil decides by the model's name.
	Vision *bool
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

	// NewModel builds a model by name: the program's model.Registry New,
	// with the providers it links. Required unless DryRun.
	NewModel func(name string, opt model.Options) (model.Model, error)

	Stderr io.Writer // warnings and totals
	Now    func() time.Time
	Rand   io.Reader // run ids; crypto/rand when nil

	clear string // what a line starts with: ClearLine under a progress line drawn in place
}

// outputJob is one sheet on one model: its requests and the output file the
// answers fill in.
type outputJob struct {
	SheetPath string
	OutPath   string
	Model     string
	Requests  []model.Request
	Output    *result.File
	// Found is what the output and its markdown held when the run was
	// planned: they are written only while they still do, so of two runs
	// started at once for one file (-u 0), the second to finish is
	// refused, as it would be had it started after the first.
	Found outputState
}

// outputState is what an output file and its markdown hold, as
// outfile.Options.Expect takes it; "" expects nothing.
type outputState struct{ JSON, Markdown string }

// foundOutput is what the output at path and its markdown hold now.
func foundOutput(path string) (outputState, error) {
	j, err := outfile.State(path)
	if err != nil {
		return outputState{}, err
	}
	m, err := outfile.State(result.MarkdownPath(path))
	return outputState{j, m}, err
}

// Summary says what a run wrote.
type Summary struct {
	Outputs  []string
	Warnings int
	// GradeFailures counts the questions whose grader failed (graded null).
	GradeFailures int
	// NoJudge counts the questions graded null because they need the
	// judge grader and the run has no judge model (grade.NoJudge).
	NoJudge int
	// Questions counts the questions asked, Failed those that ended with
	// an error; FirstError is the first such error.
	Questions, Failed int
	FirstError        string
}

// Run runs every model on every sheet: every sheet, request and grader is
// checked first, then all questions go through one runner pool per model
// (or server), and each output file is written as soon as its sheet is
// done. One journal holds the whole run, so a rerun of the same command
// after a crash, a Ctrl-C or failed questions asks only what is missing.
func Run(ctx context.Context, cfg Config) (Summary, error) {
	var sum Summary
	if cfg.Stderr == nil {
		cfg.Stderr = io.Discard
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
			return sum, fmt.Errorf("no model: name one with -m")
		}
		models = []string{"dry-run"}
	}
	if cfg.NewModel == nil && !cfg.DryRun {
		return sum, fmt.Errorf("no model providers: Config.NewModel is not set")
	}
	if cfg.Model.HTTPClient == nil {
		// Every model's pool may hold its connections at once.
		cfg.Model.HTTPClient = pooledClient(max(cfg.Runner.Concurrency, 10) * len(models))
	}
	runID, err := newRunID(cfg.Rand, cfg.RunIDLen)
	if err != nil {
		return sum, err
	}
	if err := checkOutputs(cfg, models); err != nil {
		return sum, err
	}
	// Models are made once, before any sheet, so a bad name or a missing
	// key stops the run before anything is spent.
	made := map[string]model.Model{}
	if !cfg.DryRun {
		for _, name := range models {
			m, err := cfg.NewModel(name, cfg.Model)
			if err != nil {
				return sum, err // the registry names the model
			}
			if cfg.Batch != nil {
				if _, err := batchAPI(m); err != nil {
					return sum, err
				}
			}
			made[name] = m
		}
	}
	var reformat model.Model
	if cfg.Reformat != "" && !cfg.DryRun {
		if reformat, err = cfg.NewModel(cfg.Reformat, cfg.ReformatOptions); err != nil {
			return sum, fmt.Errorf("--reformat: %w", err)
		}
	}
	if cfg.Batch != nil && cfg.DryRun && len(cfg.Models) == 0 {
		return sum, fmt.Errorf("-y --batch writes each model's request files: name the model(s) with -m")
	}
	graders := regrade.NewGraders(cfg.Graders, grade.Options{JudgeOptions: cfg.Judge}, cfg.Grader)

	// A dry run keeps no journal; a real one resumes the same command's.
	var st resumeState
	if !cfg.DryRun {
		if st, err = loadResume(cfg); err != nil {
			return sum, err
		}
		if st.exists {
			runID = st.RunID
			cfg.say("resuming run %q from %s", runID, st.journal)
		}
	}

	// Every sheet, request and grader is checked before any model is
	// asked: bad input stops the run before anything is spent.
	var plan []*outputJob
	notes := &planNotes{said: map[string]bool{}, missing: map[string]bool{}}
	matched := make([]bool, len(cfg.Subset.Questions)) // which --questions globs matched
	needsSandbox := func(plan []*outputJob) bool {
		for _, job := range plan {
			for _, r := range job.Requests {
				if r.Solve != nil {
					return true
				}
			}
		}
		return false
	}
	for _, path := range cfg.Sheets {
		doc, err := sheet.ParseFile(path, cfg.Schema)
		if err != nil {
			return sum, err
		}
		for _, w := range doc.Warnings {
			cfg.say("warning: %s", w)
			sum.Warnings++
		}
		info, items := doc.Resolve()
		for _, w := range unknownKeys(path, info, items, cfg.DataKeys) {
			cfg.say("warning: %s", w)
			sum.Warnings++
		}
		all := len(items)
		if items = cfg.Subset.choose(items, matched); len(items) == 0 && all > 0 {
			continue // the subset asks nothing of this sheet: no output
		}
		if reformat == nil && !cfg.DryRun {
			if err := checkReformat(path, info, items); err != nil {
				return sum, err
			}
		}
		for _, name := range models {
			minfo := model.Describe(name) // a dry run makes no model: the name tells
			if m := made[name]; m != nil {
				minfo = m.Info()
			}
			job, err := prepare(ctx, cfg, path, info, items, name, minfo, runID, notes)
			if err != nil {
				return sum, err
			}
			job.Output.Sheet.Subset = cfg.Subset.record(all)
			// Refused before anything is spent.
			if err := checkOutput(job.OutPath, outfile.Options{Force: cfg.Force}); err != nil {
				return sum, err
			}
			if err := checkEarlier(job.OutPath, cfg.Force, st.exists); err != nil {
				return sum, err
			}
			if job.Found, err = foundOutput(job.OutPath); err != nil {
				return sum, err
			}
			if !cfg.DryRun {
				if err := checkGraders(job, graders); err != nil {
					return sum, err
				}
			}
			plan = append(plan, job)
		}
	}
	if err := cfg.Subset.unmatched(matched); err != nil {
		return sum, err
	}
	if n := len(notes.missingOrder); n > 0 {
		cfg.say("warning: %d parquet table%s named by chat questions do%s not exist (first: %s): the prompts name them, code or agent mode would need them",
			n, map[bool]string{true: "", false: "s"}[n == 1], map[bool]string{true: "es", false: ""}[n == 1], notes.missingOrder[0])
		sum.Warnings++
	}
	if cfg.Batch != nil {
		if err := checkBatchModes(plan); err != nil {
			return sum, err
		}
	}
	sum.Warnings += warnUnmatched(cfg, models, made, plan)
	if cfg.DryRun {
		if cfg.Batch != nil {
			journal, _ := ResumeFiles(cfg)
			if err := writeBatchFiles(cfg, models, plan, filepath.Dir(journal), runID); err != nil {
				return sum, err
			}
		}
		for _, job := range plan {
			if err := writeOutput(job.OutPath, job.Output, cfg.Force, job.Found, nil); err != nil {
				return sum, err
			}
			if cfg.LogDir != "" {
				if _, err := inspect.WriteLog(cfg.LogDir, job.Output, inspect.LogOptions{Force: cfg.Force, Settings: job.Output.Sheet.Settings, Format: cfg.LogFormat}); err != nil {
					return sum, fmt.Errorf("inspect log: %w", err)
				}
			}
			sum.Outputs = append(sum.Outputs, job.OutPath)
		}
		dryRunReport(cfg, plan)
		return sum, nil
	}
	if needsSandbox(plan) {
		// Checked before any model call: a missing bubblewrap or pandas
		// is one error naming the Debian packages.
		pool, err := sandbox.NewPool(ctx, cfg.Sandbox)
		if err != nil {
			return sum, err
		}
		defer pool.Close()
		for name, m := range made {
			// An agent question's model calls retry inside its job
			// with the runner's rules (solve.Model.Retry).
			sm := &solve.Model{Inner: m, Sandbox: pool, Reformat: reformat, Retry: cfg.Runner}
			defer sm.Close()
			made[name] = sm
		}
	}
	if err := st.save(runID); err != nil {
		return sum, err
	}
	if err := ask(ctx, cfg, made, plan, st, graders, &sum); err != nil {
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
		errs = append(errs, &FailedError{Failed: sum.Failed, Total: sum.Questions, First: oneLine(sum.FirstError)})
	}
	if err := regrade.GradeErrors(sum.GradeFailures, "run"); err != nil {
		errs = append(errs, err)
	}
	return sum, errors.Join(errs...)
}

// checkEarlier refuses to write over an output of an earlier run (the
// same name: run -u 0, or a dry run over a real run's file), unless this
// run resumes that one (its journal says so) or --force.
func checkEarlier(path string, force, resuming bool) error {
	if force || resuming {
		return nil
	}
	if _, err := os.Lstat(path); err == nil {
		return fmt.Errorf("%s exists, from an earlier run; not writing over it (-u N gives this run its own file name, --force overwrites it)", path)
	}
	return nil
}

// say writes one line to the console.
func (cfg Config) say(format string, args ...any) {
	fmt.Fprint(cfg.Stderr, cfg.clear+fmt.Sprintf(format, args...)+"\n")
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

// unknownKeys are the warnings about the meta keys of a sheet that no
// setting, package or benchmark reads (a misspelt setting does nothing),
// each once.
func unknownKeys(path string, info sheet.Info, items []sheet.Item, data []string) []string {
	out := setting.CheckKeys(path, info.Meta, info.MetaLines, data)
	seen := map[string]bool{}
	for _, w := range out {
		seen[w] = true
	}
	for i := range items {
		for _, w := range setting.CheckKeys(path, items[i].Meta, items[i].MetaLines, data) {
			if !seen[w] { // a question's meta holds its sheet's
				seen[w] = true
				out = append(out, w)
			}
		}
	}
	return out
}

// checkReformat refuses a sheet whose answers need InfiAgent's reformat
// step when the run has no reformat model.
func checkReformat(path string, info sheet.Info, items []sheet.Item) error {
	for _, it := range items {
		if strings.TrimSpace(sheet.Steering(it.Meta, info.Meta)["reformat"]) == "required" {
			return fmt.Errorf("%s:%d: question %q has reformat: required (its prompt has no answer format; InfiAgent's reformat step adds it): run with --reformat MODEL (InfiAgent's is gpt-3.5-turbo-16k)", path, it.Line, it.Name)
		}
	}
	return nil
}

// checkGraders builds the grader of every question of a job, so an unknown
// grader name or a judge without --judge stops the run before any call.
func checkGraders(job *outputJob, g *regrade.Graders) error {
	for i := range job.Output.Questions {
		q := &job.Output.Questions[i]
		if _, err := g.Get(q.Grader); err != nil {
			return fmt.Errorf("%s: question %q: %w", job.SheetPath, q.Name, err)
		}
	}
	return nil
}

// prepare builds the requests and the unanswered output file of one sheet
// and model; notes gathers what is said once for the run.
func prepare(ctx context.Context, cfg Config, path string, info sheet.Info, items []sheet.Item, modelName string, minfo model.Info, runID string, notes *planNotes) (*outputJob, error) {
	outPath := outputPath(cfg, path, modelName, runID)
	name := info.Name
	if !info.Present {
		name = strings.TrimSuffix(filepath.Base(path), ".md")
	}
	vision := minfo.Vision
	if cfg.Vision != nil {
		vision = *cfg.Vision
	}
	b := &prompt.Builder{
		Dir: filepath.Dir(path), Model: modelName, Vision: vision, SheetMeta: info.Meta, SheetMetaLines: info.MetaLines,
		Warn:              func(msg string) { fmt.Fprintf(cfg.Stderr, "warning: %s\n", msg) },
		AllowOutsideFiles: cfg.AllowOutsideFiles,
		DataRoots:         cfg.DataRoots,
		MissingTable:      notes.missingTable,
		RenderWorkbook:    workbook.Render, Settings: cfg.Settings,
		Truncate: func(text string, meta map[string]string) (string, error) {
			return truncate(cfg, modelName, minfo, text, meta, notes.said)
		},
	}
	if len(cfg.Models) == 0 {
		// A dry run without a model: no context to cut the prompts for,
		// so they are written whole.
		b.Truncate = nil
	}
	out := &result.File{Sheet: result.Sheet{
		Name: name, RunID: runID, ModelName: modelName, MetaData: info.Meta, Question: info.Question,
		SheetFile: path, Created: cfg.Now().UTC().Format(time.RFC3339), ModelInfo: &minfo, DryRun: cfg.DryRun,
	}}
	if len(cfg.Models) == 0 {
		out.Sheet.ModelInfo = nil // no model: nothing to record
	}
	// The run-level settings: the sheet's meta under the flags. A
	// question's own meta may differ; its record holds what was sent.
	sheetLayer := setting.Layer{Source: setting.SheetMeta, File: path, Values: info.Meta, Lines: info.MetaLines}
	run, err := setting.Resolve("", nil, append([]setting.Layer{sheetLayer}, cfg.Settings...)...) // problems are reported per question
	if err != nil {
		return nil, err
	}
	if !run.Gen.IsZero() {
		out.Sheet.Settings = &run.Gen
	}
	graders := regrade.NewGraders(cfg.Graders, grade.Options{}, cfg.Grader)
	job := &outputJob{SheetPath: path, Model: modelName, Output: out, OutPath: outPath}
	// Sized at once: growing slices of these large structs question by
	// question was most of a 1000-question sheet's planning time.
	// A sheet without questions (warned about when it is read) writes
	// "questions": [], which every reader takes, not null.
	job.Requests = make([]model.Request, 0, len(items))
	out.Questions = make([]result.Question, 0, len(items))
	for i := range items {
		it := &items[i]
		req, values, err := b.BuildSettings(ctx, path, it)
		if err != nil {
			return nil, err
		}
		sent := req.Settings
		q := result.Question{
			Name: it.Name, MetaData: it.Meta, GroundTruth: it.GroundTruth,
			Question: req.Messages[0].Content, ModelName: modelName, Settings: &sent, SolveSettings: values.Record(),
		}
		q.Grader = graders.Name(&q, info.Meta)
		if it.Template != nil {
			// The message was built by a template; keep the question's own
			// text for a judge (LIME's question_usr).
			q.QuestionUsr = it.Text
		}
		if req.System != "" || it.System != nil {
			s := req.System
			q.System = &s
		}
		job.Requests = append(job.Requests, req)
		out.Questions = append(out.Questions, q)
	}
	return job, nil
}

// truncate cuts a user message as its meta asks, for the model's context:
// --context-limit and --encoding win over the meta, which wins over the
// model's Info. For a model that is not OpenAI's, tiktoken's counts are an
// estimate, which is said once per run and model (said holds the lines
// said). An offline model (mock, oracle, replay) has no context: without a
// limit from the flag or the meta its prompts are kept whole, as a dry run
// without a model keeps them, and with one they are cut by
// offlineEncoding unless an encoding is given; either is said once.
func truncate(cfg Config, modelName string, minfo model.Info, text string, meta map[string]string, said map[string]bool) (string, error) {
	if meta[tokens.MetaTruncate] == "" || meta[tokens.MetaTruncate] == "none" {
		return text, nil
	}
	if cfg.ContextLimit > 0 || cfg.Encoding != "" {
		m := make(map[string]string, len(meta)+2)
		for k, v := range meta {
			m[k] = v
		}
		if cfg.ContextLimit > 0 {
			m[tokens.MetaContextLimit] = strconv.Itoa(cfg.ContextLimit)
		}
		if cfg.Encoding != "" {
			m[tokens.MetaEncoding] = cfg.Encoding
		}
		meta = m
	}
	sayOnce := func(line string) {
		if !said[line] {
			said[line] = true
			fmt.Fprintln(cfg.Stderr, line)
		}
	}
	enc, _ := tokens.EncodingFor(minfo.Model)
	if minfo.Offline {
		if minfo.ContextLimit <= 0 && meta[tokens.MetaContextLimit] == "" {
			sayOnce(fmt.Sprintf("%s: prompts are not cut (truncate: %s): an offline model has no context limit; --context-limit N cuts them as a model with N tokens would", modelName, meta[tokens.MetaTruncate]))
			return text, nil
		}
		if enc == "" && meta[tokens.MetaEncoding] == "" {
			enc = offlineEncoding
			sayOnce(fmt.Sprintf("%s: prompts are cut by tiktoken's %s token counts (an offline model has no encoding; --encoding names another)", modelName, enc))
		}
	} else if minfo.Provider != "openai" {
		used := meta[tokens.MetaEncoding]
		if used == "" {
			used = enc
		}
		if used != "" {
			sayOnce(fmt.Sprintf("warning: %s: prompts are cut by tiktoken's %s token counts, an estimate for a model that is not OpenAI's", modelName, used))
		}
	}
	return tokens.Cut(text, meta, tokens.Limits{Model: modelName, ContextLimit: minfo.ContextLimit, Encoding: enc})
}

// planNotes gathers, while a run is planned, what is said once for the
// whole run rather than once per sheet.
type planNotes struct {
	said         map[string]bool // lines said (truncate)
	missing      map[string]bool // tables named by chat questions that do not exist
	missingOrder []string
}

// missingTable records a table a chat question names that does not exist.
func (n *planNotes) missingTable(path string) {
	if !n.missing[path] {
		n.missing[path] = true
		n.missingOrder = append(n.missingOrder, path)
	}
}

// offlineEncoding is the encoding an offline model's prompts are cut by
// when a context limit is given and no encoding: the newest OpenAI models'.
const offlineEncoding = tokens.O200kBase

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

// outputPath is where the output of a sheet and model goes.
func outputPath(cfg Config, sheetPath, modelName, runID string) string {
	dir := filepath.Dir(sheetPath)
	if cfg.OutDir != "" {
		dir = cfg.OutDir
		if cfg.SheetRoot != "" {
			if rel, err := filepath.Rel(cfg.SheetRoot, filepath.Dir(sheetPath)); err == nil && !strings.HasPrefix(rel, "..") {
				dir = filepath.Join(cfg.OutDir, rel)
			}
		}
	}
	return filepath.Join(dir, result.FileName(sheetPath, modelName, runID))
}

// keyedAnswers is a model that answers from a fixed set of keys (replay):
// Unmatched lists those that none of the questions asks for.
type keyedAnswers interface {
	Unmatched(qs []model.QuestionRef) []string
}

// maxUnmatchedSaid bounds the answers named in warnUnmatched's warning.
const maxUnmatchedSaid = 5

// warnUnmatched warns, once per model, about the answers of a keyed model
// (replay lines) that no question of the run asks for: they would
// otherwise be dropped without a word. It returns the warnings given.
func warnUnmatched(cfg Config, models []string, made map[string]model.Model, plan []*outputJob) int {
	n := 0
	for _, name := range models {
		keyed, ok := made[name].(keyedAnswers)
		if !ok {
			continue
		}
		var qs []model.QuestionRef
		for _, job := range plan {
			if job.Model == name {
				for _, r := range job.Requests {
					qs = append(qs, r.Question)
				}
			}
		}
		lost := keyed.Unmatched(qs)
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

// checkOutputs refuses a run in which two sheets, or two models whose names
// differ only in characters a file name cannot hold ("a:b", "a/b"), would
// write one file; the error names the two that collide.
func checkOutputs(cfg Config, models []string) error {
	type pair struct{ sheet, model string }
	seen := map[string]pair{}
	for _, p := range cfg.Sheets {
		for _, m := range models {
			out := outputPath(cfg, p, m, "")
			// Every sheet runs every model, so two sheets collide on one
			// model and two models on one sheet: never both.
			prev, ok := seen[out]
			switch {
			case !ok:
				seen[out] = pair{p, m}
			case prev.sheet == p:
				return fmt.Errorf("models %s and %s would both write %s (a file name cannot hold what tells them apart): run them apart, each with its own -o folder", prev.model, m, out)
			default:
				return fmt.Errorf("%s and %s would both write %s: give each its own -o folder", prev.sheet, p, out)
			}
		}
	}
	return nil
}

// writeOutput writes an output file and its markdown beside it, while
// they hold what was found; encoded holds questions already encoded (see
// result.MarshalEncoded).
func writeOutput(path string, f *result.File, force bool, found outputState, encoded [][]byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	jsonOpt := outfile.Options{Force: force, Expect: found.JSON}
	mdOpt := outfile.Options{Force: force, Expect: found.Markdown}
	mdPath := result.MarkdownPath(path)
	// Both are checked before the JSON, so neither is written.
	if err := outfile.Check(path, jsonOpt); err != nil {
		return err
	}
	if err := outfile.Check(mdPath, mdOpt); err != nil {
		return err
	}
	// The two are written side by side: each waits mostly for its fsync,
	// and run writes them after a sheet's last answer, when that wait
	// adds to the run's time. Neither changes f.
	mdErr := make(chan error, 1)
	go func() { mdErr <- result.WriteMarkdown(mdPath, f, mdOpt) }()
	return errors.Join(f.WriteEncoded(path, jsonOpt, encoded), <-mdErr)
}

// checkOutput says whether an output file and its markdown may be written.
func checkOutput(path string, opt outfile.Options) error {
	if err := outfile.Check(path, opt); err != nil {
		return err
	}
	return outfile.Check(result.MarkdownPath(path), opt)
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

// priceFor is the price override of the model named name: Price, else its
// entry in Prices, else none (the price table's).
func (c *Config) priceFor(name string) *model.Price {
	if c.Price != nil {
		return c.Price
	}
	if p, ok := c.Prices[name]; ok {
		return &p
	}
	return nil
}
