package harness

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/evalmd/evalmd/grade"
	"github.com/evalmd/evalmd/inspect"
	"github.com/evalmd/evalmd/internal/outfile"
	"github.com/evalmd/evalmd/internal/readfile"
	"github.com/evalmd/evalmd/model"
	"github.com/evalmd/evalmd/regrade"
	"github.com/evalmd/evalmd/result"
	"github.com/evalmd/evalmd/runner"
	"github.com/evalmd/evalmd/runner/aimd"
)

// sheetRun is one output file being filled in: a sheet on a model. Its
// answer counts are kept by the runner's emit (one goroutine), which hands
// each answered question to the goroutine that grades it (ungraded,
// encoded) and writes the file once the last question is in.
type sheetRun struct {
	job  *outputJob
	left int // questions not settled yet

	answered, noAnswer, failed int
	noted                      int // answers with a note (replyNote): refused, or no text
	calls, cached, resumed     int
	inTok, outTok              int
	cost                       float64
	priced                     bool

	ungraded int
	// noJudge counts the questions left null because they need the
	// judge and the run has none (grade.NoJudge), said once per run.
	noJudge  int
	encoded  [][]byte // each question as the output file holds it, once graded
	firstErr string   // the first failed question's error, in sheet order
	written  bool
}

// slot is where an outcome goes: a sheet run and a question of it.
type slot struct {
	run *sheetRun
	q   int
}

// ask sends the questions of every planned output through one runner
// pool: each model (or server) keeps its requests in flight across sheet
// boundaries, and each output file is graded and written as soon as its
// last question is settled. One journal holds the whole run.
func ask(ctx context.Context, cfg Config, made map[string]model.Model, plan []*outputJob, st resumeState, gr *regrade.Graders, sum *Summary) error {
	infos := make(map[string]model.Info, len(made))
	for name, m := range made {
		infos[name] = m.Info()
	}
	runs := make([]*sheetRun, len(plan))
	var jobs []runner.Job
	where := make(map[string]slot)
	for pi, job := range plan {
		sr := &sheetRun{job: job, left: len(job.Requests)}
		_, sr.priced = model.Cost(infos[job.Model], 0, 0, cfg.priceFor(job.Model))
		runs[pi] = sr
		keys := jobKeys(job)
		for i, req := range job.Requests {
			key := keys[i]
			rj := runner.Job{Key: key, Request: req, Model: made[job.Model]}
			if req.Solve != nil && req.Solve.Mode == model.ModeAgent {
				// An agent question is many calls and runs of code: each
				// call has the provider's own timeout, each run the
				// sandbox's, the whole its question_timeout; no one attempt
				// bounds it all.
				rj.Timeout = -1
			}
			jobs = append(jobs, rj)
			where[key] = slot{sr, i}
		}
	}

	opt := cfg.Runner
	opt.Journal = st.journal
	opt.Cost = func(name string, r model.Response) (float64, bool) {
		return model.Cost(infos[name], r.InputTokens, r.OutputTokens, cfg.priceFor(name))
	}
	if opt.Warn == nil {
		opt.Warn = func(msg string) { cfg.say("warning: %s", msg) }
	}
	if opt.Stopping == nil {
		opt.Stopping = func(inFlight int) {
			if ctx.Err() != nil && inFlight > 0 { // interrupted, not stopped by a failed write
				noun := "requests"
				if inFlight == 1 {
					noun = "request"
				}
				cfg.say("interrupt: waiting for %d %s in flight; Ctrl-C again to abort", inFlight, noun)
			}
		}
	}
	// -c auto: each output records its server's limit as it went; a
	// decrease (the server is congested) is said.
	var limitMu sync.Mutex
	limits := map[string][]aimd.Change{}
	if opt.Adaptive != nil && opt.OnLimit == nil {
		opt.OnLimit = func(models []string, c aimd.Change) {
			limitMu.Lock()
			for _, m := range models {
				limits[m] = append(limits[m], c)
			}
			limitMu.Unlock()
			if c.Limit < c.From {
				cfg.say("%s: at most %d requests in flight from now (was %d): %s", strings.Join(models, ", "), c.Limit, c.From, c.Reason)
			}
		}
	}

	// One goroutine grades and encodes each question as its answer comes
	// in, and writes each output once its sheet is complete: the runner's
	// own goroutine is never held up by grading, and little is left to do
	// after a sheet's last answer.
	rctx, stop := context.WithCancel(ctx)
	defer stop()
	start := time.Now()
	// A step is a question to grade, or the sheet is complete (q = -1).
	steps := make(chan slot, len(jobs)+len(runs))
	var finishErr error
	var wg sync.WaitGroup
	wg.Go(func() {
		for s := range steps {
			if finishErr != nil || ctx.Err() != nil {
				continue // a stopped run writes no more outputs; answers stay in the journal
			}
			var err error
			if s.q >= 0 {
				err = s.run.grade(ctx, s.q, gr)
			} else {
				limitMu.Lock()
				s.run.job.Output.Sheet.ConnectionLimits = slices.Clone(limits[s.run.job.Model])
				limitMu.Unlock()
				err = finish(cfg, s.run, infos[s.run.job.Model], time.Since(start))
			}
			if err != nil && ctx.Err() == nil {
				finishErr = err
				stop() // answers stay in the journal
			}
		}
	})
	for _, sr := range runs {
		if sr.left == 0 {
			steps <- slot{sr, -1}
		}
	}
	settle := func(o runner.Outcome, batchID string) {
		s := where[o.Key]
		s.run.add(o, s.q, infos[s.run.job.Model], cfg.priceFor(s.run.job.Model), batchID)
		steps <- s
		if s.run.left == 0 {
			steps <- slot{s.run, -1}
		}
	}
	var stats runner.Stats
	var err error
	if cfg.Batch != nil {
		stats, err = sendBatch(rctx, cfg, jobs, opt, st.journal, settle)
	} else {
		stats, err = runner.Run(rctx, nil, jobs, opt, func(o runner.Outcome) { settle(o, "") })
	}
	close(steps)
	wg.Wait()

	for _, sr := range runs {
		if !sr.written {
			continue
		}
		sum.Outputs = append(sum.Outputs, sr.job.OutPath)
		sum.GradeFailures += sr.ungraded
		sum.NoJudge += sr.noJudge
		sum.Failed += sr.failed
		sum.Questions += len(sr.job.Requests)
		if sum.FirstError == "" {
			sum.FirstError = sr.firstErr
		}
	}
	kept := fmt.Sprintf("answers so far are kept in %s; rerun the same command to go on", st.journal)
	if cfg.Batch != nil {
		kept = "the batches keep running; their ids and " + kept + " and collect them"
	}
	switch {
	case finishErr != nil:
		return fmt.Errorf("%w (%s)", finishErr, kept)
	case ctx.Err() != nil:
		return fmt.Errorf("stopped with %d of %d questions answered; %s", stats.Answered+stats.NoAnswer+stats.Failed, stats.Jobs, kept)
	case err != nil:
		return fmt.Errorf("%w; %s", err, kept)
	case sum.Failed > 0:
		// The journal stays: a rerun asks only the failed questions, into
		// the same output files.
		return nil
	}
	st.remove()
	return nil
}

// jobKeys name the questions of a planned output in the run's journals.
// The model and sheet keep the run's outputs apart in its one journal; the
// index keeps duplicate question names apart; the name makes a journal of
// an edited sheet visibly stale rather than misapplied.
func jobKeys(job *outputJob) []string {
	sheetKey, err := filepath.Abs(job.SheetPath) // once a sheet: a relative path costs a getwd
	if err != nil {
		sheetKey = job.SheetPath
	}
	keys := make([]string, len(job.Output.Questions))
	for i, q := range job.Output.Questions {
		keys[i] = fmt.Sprintf("%s|%s|%d:%s", job.Model, sheetKey, i, q.Name)
	}
	return keys
}

// add records an outcome in its question and counts it.
func (sr *sheetRun) add(o runner.Outcome, q int, info model.Info, price *model.Price, batchID string) {
	record(&sr.job.Output.Questions[q], o, info, price, batchID)
	sr.left--
	switch {
	case o.Err == nil:
		sr.answered++
		if replyNote(o.Response) != "" {
			sr.noted++
		}
		if c, ok := costOf(info, price, o.Response, batchID); ok {
			sr.cost += c
		}
	case errors.Is(o.Err, model.ErrNoAnswer):
		sr.noAnswer++
	default:
		sr.failed++
	}
	switch {
	case o.FromJournal:
		sr.resumed++
	case o.Cached:
		sr.cached++
	default:
		sr.calls += o.Attempts
	}
	sr.inTok += o.Response.InputTokens
	sr.outTok += o.Response.OutputTokens
}

// grade grades question q and encodes it for the output file.
func (sr *sheetRun) grade(ctx context.Context, q int, gr *regrade.Graders) error {
	job := sr.job
	ok, err := regrade.GradeQuestion(ctx, job.Output, q, gr)
	if err != nil {
		return fmt.Errorf("%s on %s: grading: %w", job.Model, job.SheetPath, err)
	}
	switch {
	case job.Output.Questions[q].GradeDetail == grade.NoJudge:
		sr.noJudge++ // not a failure: said once for the run
	case !ok:
		sr.ungraded++
	}
	if sr.encoded == nil {
		sr.encoded = make([][]byte, len(job.Output.Questions))
	}
	sr.encoded[q], err = result.EncodeQuestion(&job.Output.Questions[q])
	if err != nil {
		return fmt.Errorf("%s on %s: question %q: %w", job.Model, job.SheetPath, job.Output.Questions[q].Name, err)
	}
	return nil
}

// finish says how a completed, graded output went and writes it (and its
// Inspect log).
func finish(cfg Config, sr *sheetRun, info model.Info, wall time.Duration) error {
	job := sr.job
	n := len(job.Requests)
	job.Output.Sheet.Totals = &result.Totals{Questions: n, Answered: sr.answered, Errors: sr.failed,
		InputTokens: sr.inTok, OutputTokens: sr.outTok, WallSeconds: wall.Seconds()}
	if sr.priced {
		c := sr.cost
		job.Output.Sheet.Totals.Cost = &c
	}
	correct := 0
	for _, q := range job.Output.Questions {
		if q.Grade != nil && *q.Grade {
			correct++
		}
		if q.Error != nil && sr.firstErr == "" {
			sr.firstErr = *q.Error
		}
	}
	ungraded := ""
	if sr.ungraded > 0 {
		ungraded = fmt.Sprintf(", %d could not be graded", sr.ungraded)
	}
	errs := fmt.Sprintf("%d errors", sr.failed)
	if sr.failed > 0 {
		errs += fmt.Sprintf(" (first: %s)", oneLine(sr.firstErr))
	}
	cost := "cost unknown (no price for this model; --price IN,OUT)"
	if sr.priced {
		cost = fmt.Sprintf("$%.4f", sr.cost)
	}
	answered := fmt.Sprintf("%d answered", sr.answered)
	if sr.noted > 0 {
		answered += fmt.Sprintf(" (%d refused or without text: see their note)", sr.noted)
	}
	subset := ""
	if s := job.Output.Sheet.Subset; s != nil {
		subset = ", " + s.Describe(n)
	}
	cfg.say("%s on %s: %d/%d correct%s%s, %s, %s, %d unanswered, %d calls (%d cached, %d resumed), tokens %d in / %d out, %s, %.1fs",
		job.Model, filepath.Base(job.SheetPath), correct, n, subset, ungraded, answered, errs, sr.noAnswer,
		sr.calls, sr.cached, sr.resumed, sr.inTok, sr.outTok, cost, wall.Seconds())
	if err := writeOutput(job.OutPath, job.Output, cfg.Force, job.Found, sr.encoded); err != nil {
		return err
	}
	if cfg.LogDir != "" {
		if _, err := inspect.WriteLog(cfg.LogDir, job.Output, inspect.LogOptions{Force: cfg.Force, Settings: job.Output.Sheet.Settings, Format: cfg.LogFormat}); err != nil {
			return fmt.Errorf("inspect log: %w", err)
		}
	}
	sr.written = true
	return nil
}

// oneLine keeps an error's first line, cut to a length a console line
// holds.
func oneLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	if len(s) > 300 {
		s = s[:300] + "..."
	}
	return s
}

// record puts an outcome into its question.
func record(q *result.Question, o runner.Outcome, info model.Info, price *model.Price, batchID string) {
	secs := o.Elapsed.Seconds()
	q.EvalTime = &secs
	switch {
	case o.Err == nil:
		text := o.Response.Text
		q.Completion = &text
		q.InputTokens, q.OutputTokens = o.Response.InputTokens, o.Response.OutputTokens
		q.FinishReason = o.Response.FinishReason
		q.Note = replyNote(o.Response)
		q.SetWork(o.Response.Work)
		q.BatchID = batchID
		if c, ok := costOf(info, price, o.Response, batchID); ok {
			q.Cost = &c
		}
	case errors.Is(o.Err, model.ErrNoAnswer):
		q.Unanswered = true
	default:
		msg := o.Err.Error()
		q.Error = &msg
	}
}

// replyNote says what a reader of the output must know of an answer that
// is graded as any other but is no plain text: a refusal, or a reply with
// no text at all (content null: a filter, max_tokens spent on reasoning),
// which a completion of "" alone does not tell from an empty answer.
func replyNote(r model.Response) string {
	finish := ""
	if r.FinishReason != "" {
		finish = " (finish_reason " + r.FinishReason + ")"
	}
	switch {
	case r.Work != nil || len(r.ToolCalls) > 0:
		return "" // code and agent modes record what ran instead
	case r.FinishReason == model.FinishRefusal && r.Text != "":
		return "the model refused: the completion is its refusal"
	case r.FinishReason == model.FinishRefusal:
		return "the model refused, with no text: graded as an empty answer"
	case r.Text == "":
		return "the reply had no text" + finish + ": graded as an empty answer"
	}
	return ""
}

// resumeState is the journal of one run (every sheet on every model) and
// the run id it was started with, so that rerunning the same command after
// a crash, a Ctrl-C or failed questions asks only what is missing and
// writes the same files.
type resumeState struct {
	journal string // the runner's journal
	state   string // a small JSON file holding the run id
	RunID   string `json:"run_id"`
	exists  bool
}

// ResumeFiles are the journal and the run state of the run cfg describes:
// in the output folder (else the folder -d named, else the first sheet's),
// named by a hash of the sheets, the models and the output folder, so the
// same command finds them again and another run's are never mixed in.
func ResumeFiles(cfg Config) (journal, state string) {
	models := append([]string(nil), cfg.Models...)
	sort.Strings(models)
	var sheets []string
	for _, s := range cfg.Sheets {
		if a, err := filepath.Abs(s); err == nil {
			s = a
		}
		sheets = append(sheets, s)
	}
	sort.Strings(sheets)
	abs := func(p string) string {
		if p == "" {
			return ""
		}
		if a, err := filepath.Abs(p); err == nil {
			return a
		}
		return p
	}
	h := sha256.New()
	for _, part := range [][]string{models, sheets, {abs(cfg.OutDir), abs(cfg.SheetRoot)}} {
		for _, s := range part {
			fmt.Fprintf(h, "%s\x00", s)
		}
		h.Write([]byte{1})
	}
	if !cfg.Subset.IsZero() {
		// Another subset is another run: its own run id and outputs, so
		// a rerun with other flags never fills this one's files. (Left
		// out of the hash when unused, so earlier journals still resume.)
		fmt.Fprintf(h, "limit %d\x00%s\x00", cfg.Subset.Limit, strings.Join(cfg.Subset.Questions, "\x00"))
	}
	dir := cfg.OutDir
	switch {
	case dir != "":
	case cfg.SheetRoot != "":
		dir = cfg.SheetRoot
	case len(cfg.Sheets) > 0:
		dir = filepath.Dir(cfg.Sheets[0])
	}
	base := filepath.Join(dir, ".evalmd-run-"+hex.EncodeToString(h.Sum(nil))[:12])
	return base + ".journal", base + ".run"
}

// loadResume finds the journal of an earlier, unfinished run of the same
// command. A state file whose run id is not one (a crafted "x/../../trav")
// is an error.
func loadResume(cfg Config) (resumeState, error) {
	var st resumeState
	st.journal, st.state = ResumeFiles(cfg)
	data, err := readfile.Read(st.state, readfile.Small)
	if err != nil {
		return st, nil
	}
	if json.Unmarshal(data, &st) == nil {
		if err := result.CheckRunID(st.RunID); err != nil {
			return st, fmt.Errorf("%s: %w; remove the file to start afresh", st.state, err)
		}
		st.exists = true
	}
	return st, nil
}

// save records the run id beside the journal.
func (st resumeState) save(runID string) error {
	if st.state == "" {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(st.state), 0o755); err != nil {
		return err
	}
	data, _ := json.Marshal(map[string]string{"run_id": runID})
	// The state is the run's own; a stale one is replaced.
	return outfile.Write(st.state, data, outfile.Options{Force: true})
}

// remove deletes the journal once every output holds every answer.
func (st resumeState) remove() {
	if st.journal != "" {
		os.Remove(st.journal)
		outfile.Remove(st.state)
		removeBatchJournals(st.journal)
	}
}

// syncWriter serialises writes to the console: outputs are written (and
// reported) by their own goroutine while the runner warns from others.
type syncWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (s *syncWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(p)
}
