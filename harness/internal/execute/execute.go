// Package execute is the middle step of a run: the questions of every
// planned output are asked through one runner pool (or the providers'
// batch APIs), code and agent modes run in one sandbox pool, each answer
// is graded as it comes in, and each output goes to the write step's
// Writer as soon as its last question is settled. One journal holds the
// whole run.
//
// Every question is asked from one place, jobs: a later step that answers
// some questions without asking (reuse by request key) belongs
// there, before the runner sees them.
package execute

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/evalmd/evalmd/grade"
	"github.com/evalmd/evalmd/harness/internal/plan"
	"github.com/evalmd/evalmd/harness/internal/reuse"
	"github.com/evalmd/evalmd/harness/internal/write"
	"github.com/evalmd/evalmd/internal/aimd"
	"github.com/evalmd/evalmd/model"
	"github.com/evalmd/evalmd/regrade"
	"github.com/evalmd/evalmd/result"
	"github.com/evalmd/evalmd/runner"
	"github.com/evalmd/evalmd/sandbox"
	"github.com/evalmd/evalmd/solve"
	"github.com/evalmd/evalmd/verdict"
)

// Options are what the execute step needs besides the outputs and models.
type Options struct {
	// Runner tunes sending; its Journal is set from Resume.
	Runner runner.Options
	// Resume is the run's journal and run id (LoadResume).
	Resume Resume
	// Batch, when set, sends through the providers' batch APIs.
	Batch *Batch
	// Graders grade each answer (built once for the run).
	Graders *regrade.Graders
	// Prices override the price table's (--price, the config's).
	Prices plan.Prices
	// Sandbox is where code and agent modes run Python; Reformat is the
	// model of InfiAgent's reformat step (nil: none).
	Sandbox  sandbox.Config
	Reformat model.Model
	Writer   write.Writer
	Console  write.Console
	// MaxCost caps what the run spends, in dollars (run --max-cost; 0:
	// no cap): see budget.go.
	MaxCost float64
}

// Batch is run --batch: the questions go through the providers' batch
// APIs (OpenAI's Batches, Anthropic's Message Batches) at batch prices
// instead of live calls.
type Batch struct {
	// FallbackLive answers requests a batch failed for a passing reason or
	// let expire live, instead of in a new batch (--batch-fallback live).
	FallbackLive bool
	// Poll is the wait between status checks; 0 is the batch package's
	// default.
	Poll time.Duration
}

// Result is what the step did: the outputs written and their counts.
type Result struct {
	// Files are the outputs written and, marked Current, the earlier
	// output files that hold what an output of the run would (every
	// answer reused, graded alike): none was written in their place.
	Files []File
	// Ungraded name the questions that could not be graded (graded null:
	// regrade.UngradedAt), NoJudge counts those left null for want of a
	// judge model.
	Ungraded []regrade.Ungradable
	NoJudge  int
	// Questions counts the questions of the outputs written, Failed those
	// that ended with an error; FirstError is the first such error.
	Questions, Failed int
	FirstError        string
}

// File is an output file of the run as its summary counts it.
type File struct {
	Path    string
	Current bool          // an earlier output that holds what the run's would: nothing was written
	Sheet   *result.Sheet // its sheet record: model, epoch, subset, totals
	Tally   result.Tally
}

// sheetRun is one output file being filled in: a sheet on a model. Its
// answer counts are kept by the runner's emit (one goroutine), which hands
// each answered question to the goroutine that grades it (ungraded,
// tally), puts it in the run's scratch files and writes the output once
// the last question is in.
type sheetRun struct {
	out   *plan.Output
	model model.Model
	left  int // questions not settled yet
	// asked are the questions the runner asks, by the place of their job
	// among the run's (jobs.go); nil when it asks them all.
	asked []int

	mu sync.Mutex
	// held are the questions built for their job and not settled yet.
	held map[int]*result.Question

	answered, noAnswer, failed int
	noted                      int // answers with a note (replyNote): refused, or no text
	calls, cached, resumed     int
	inTok, outTok, reasonTok   int
	cacheRead, cacheWrite      int
	// cutThinking counts the chat answers cut by max_tokens while
	// reasoning (LimitMaxTokens), said apart from the other notes.
	cutThinking int
	cost        float64
	priced      bool
	// saved is what the prompt cache saved (result.Question.CacheSaved),
	// savedAny says some answer read from or wrote to it.
	saved    float64
	savedAny bool
	reused   int // answered from an earlier output, not asked
	// reusedFrom are the files reused answers came from, each once, in
	// the order of the questions; kept and undone are the reused answers
	// whose grading a flag set before (reusing).
	reusedFrom   []string
	kept, undone gradingChanges

	ungraded []regrade.Ungradable // the questions that could not be graded (regrade.UngradedAt)
	// noJudge counts the questions left null because they need the
	// judge and the run has none (grade.NoJudge), said once per run.
	noJudge  int
	spill    *write.Spill // each question as the output file holds it, once graded
	firstErr string       // the first failed question's error, in sheet order
	errAt    int          // its question, or -1
	written  bool
	// current is the earlier output that holds what this one would, when
	// one does: nothing is written (reuse.Repeats).
	current *reuse.Earlier
	tally   result.Tally
	// verdicts are the people's verdicts of the output's folder, and
	// occ[i] which question of its name question i is; occ is nil when
	// the folder has none.
	verdicts *verdict.Set
	occ      []int
}

// slot is where an outcome goes: a sheet run, a question of it and its
// record.
type slot struct {
	run *sheetRun
	q   int
	rec *result.Question
}

// Run asks the questions of every output of models (by name): each model
// (or server) keeps its requests in flight across sheet boundaries, and
// each output is graded and written as soon as its last question is
// settled. A sandbox pool is started (and checked) first when some
// question runs code. The run's state is saved before the first question
// and its journal removed once every output holds every answer.
func Run(ctx context.Context, outs []*plan.Output, models map[string]model.Model, opt Options) (Result, error) {
	infos := make(map[string]model.Info, len(models))
	for name, m := range models {
		infos[name] = m.Info()
	}
	models, closeModels, err := sandboxed(ctx, outs, models, opt)
	if err != nil {
		return Result{}, err
	}
	defer closeModels()
	if opt.Resume.Once {
		defer opt.Resume.remove()
	}
	scratch, err := write.NewScratch(opt.Resume.Journal)
	if err != nil {
		return Result{}, err
	}
	defer scratch.Close()
	ropt := runnerOptions(ctx, opt, infos)
	ropt.Budget = budget(opt.MaxCost, infos, opt.Prices)
	t0 := time.Now()

	rctx, stop := context.WithCancel(ctx)
	defer stop()
	g := startGrading(ctx, stop, opt, ropt)
	js, err := newJobs(ctx, outs, models, infos, opt, scratch, g.settleReused)
	if err != nil {
		g.wait()
		return Result{}, err
	}
	if js.Len() > 0 {
		// A run that asks nothing leaves no state (a retried shard whose
		// parts are current writes nothing); one written before its file
		// is (Resume.Wrote) saves it there.
		if err := opt.Resume.save(); err != nil {
			g.wait()
			return Result{}, err
		}
	}
	g.completeEmpty(js.runs)
	settle := g.settler(js, infos, opt.Prices)
	var stats runner.Stats
	if opt.Batch != nil {
		if err := checkBatchBudget(js, ropt.Budget); err != nil {
			g.wait()
			return Result{}, err
		}
		stats, err = sendBatch(rctx, opt, js, ropt.Options, settle)
	} else {
		stats, err = runner.RunJobs(rctx, js, ropt.Options, func(o runner.Outcome) { settle(o, "") })
	}
	finishErr := g.wait()
	if be := (*runner.BudgetError)(nil); errors.As(err, &be) && finishErr == nil {
		finishErr = writeUnasked(ctx, js.runs, opt, time.Since(t0))
	}

	res := gather(js.runs)
	if err := runError(ctx, opt, stats, finishErr, err); err != nil {
		return res, err
	}
	if res.Failed == 0 {
		// With failed questions the journal stays: a rerun asks only
		// those, into the same output files.
		opt.Resume.remove()
	}
	return res, nil
}

// sandboxed wraps models for code and agent modes (solve.Model) around
// one sandbox pool when some question of outs runs code, and returns them
// with what closes them and the pool; models as they are otherwise. The
// pool is started, and checked, here, before any model call: a missing
// bubblewrap or pandas is one error naming the Debian packages.
func sandboxed(ctx context.Context, outs []*plan.Output, models map[string]model.Model, opt Options) (map[string]model.Model, func(), error) {
	if !needsSandbox(outs) {
		return models, func() {}, nil
	}
	pool, err := sandbox.NewPool(ctx, opt.Sandbox)
	if err != nil {
		return nil, nil, err
	}
	wrapped := make(map[string]model.Model, len(models))
	var sms []*solve.Model
	for name, m := range models {
		// An agent question's model calls retry inside its job
		// with the runner's rules (solve.Model.Retry).
		sm := &solve.Model{Inner: m, Sandbox: pool, Reformat: opt.Reformat, Retry: opt.Runner}
		sms = append(sms, sm)
		wrapped[name] = sm
	}
	closeAll := func() {
		// The models before the pool they run code in, the last made
		// first.
		for _, sm := range slices.Backward(sms) {
			sm.Close()
		}
		pool.Close()
	}
	return wrapped, closeAll, nil
}

// grading is the one goroutine that grades and encodes each question as
// its answer comes in, and writes each output once its sheet is complete:
// the runner's own goroutine is never held up by grading, and little is
// left to do after a sheet's last answer.
type grading struct {
	// steps are the questions to grade, or a sheet complete (q = -1).
	// The runner's emit waits when grading falls behind.
	steps chan slot
	wg    sync.WaitGroup
	// err is the first error grading or writing an output, which stopped
	// the run; read once the goroutine is done (wait).
	err error
}

// startGrading starts the grading goroutine. An error grading or writing
// an output calls stop, ending the sending; after it, or once ctx is
// done, the steps still sent are dropped: a stopped run writes no more
// outputs, and their answers stay in the journal.
func startGrading(ctx context.Context, stop context.CancelFunc, opt Options, ropt *sending) *grading {
	g := &grading{steps: make(chan slot, stepsBuffer)}
	start := time.Now()
	g.wg.Go(func() {
		for s := range g.steps {
			if g.err != nil || ctx.Err() != nil {
				continue // a stopped run writes no more outputs; answers stay in the journal
			}
			var err error
			if s.q >= 0 {
				err = s.run.grade(ctx, s.q, s.rec, opt.Graders)
			} else {
				s.run.out.File.Sheet.ConnectionLimits = ropt.limits(s.run.out.Model)
				err = s.run.finish(opt, time.Since(start))
			}
			if err != nil && ctx.Err() == nil {
				g.err = err
				stop() // answers stay in the journal
			}
		}
	})
	return g
}

// settleReused counts and grades a question answered from an earlier
// output (newJobs'), before any question is asked.
func (g *grading) settleReused(s slot) {
	s.run.addReused(s.rec)
	g.steps <- s
}

// completeEmpty completes each sheet left with nothing to ask once the
// reused questions are settled: every question reused, or none at all.
func (g *grading) completeEmpty(runs []*sheetRun) {
	for _, sr := range runs {
		if sr.left == 0 {
			g.steps <- slot{sr, -1, nil}
		}
	}
}

// settler is the emit of the sending (live or batch): each outcome goes
// into its question's record, is counted and graded, and its sheet is
// completed after its last question.
func (g *grading) settler(js *jobs, infos map[string]model.Info, prices plan.Prices) func(o runner.Outcome, batchID string) {
	return func(o runner.Outcome, batchID string) {
		sr, q := js.locate(o.Index)
		rec := sr.take(q)
		sr.add(o, rec, infos[sr.out.Model], prices.For(sr.out.Model), batchID)
		g.steps <- slot{sr, q, rec}
		if sr.left == 0 {
			g.steps <- slot{sr, -1, nil}
		}
	}
}

// wait ends the steps, once the sending is done, waits for the last to be
// graded and written, and returns the error that stopped grading, if one
// did.
func (g *grading) wait() error {
	close(g.steps)
	g.wg.Wait()
	return g.err
}

// gather is what the run's outputs came to: the files written, and the
// earlier ones current in their place, with their questions, failures
// and the questions that could not be graded.
func gather(runs []*sheetRun) Result {
	var res Result
	for _, sr := range runs {
		if e := sr.current; e != nil {
			res.Files = append(res.Files, File{Path: e.Path, Current: true, Sheet: &e.File.Sheet, Tally: e.Tally})
		}
		if !sr.written {
			continue
		}
		res.Files = append(res.Files, File{Path: sr.out.OutPath, Sheet: &sr.out.File.Sheet, Tally: sr.tally})
		res.Ungraded = append(res.Ungraded, sr.ungraded...)
		res.NoJudge += sr.noJudge
		res.Failed += sr.failed
		res.Questions += sr.out.Len()
		if res.FirstError == "" {
			res.FirstError = sr.firstErr
		}
	}
	return res
}

// runError is the error of a run that did not end: an output that could
// not be graded or written (finishErr), a stop (ctx done; stats say how
// far it went), or the sending's error; nil when none. Each says where
// the answers so far are kept, for a rerun to go on from.
func runError(ctx context.Context, opt Options, stats runner.Stats, finishErr, sendErr error) error {
	kept := fmt.Sprintf("answers so far are kept in %s; rerun the same command to go on", opt.Resume.Journal)
	if opt.Batch != nil {
		kept = "the batches keep running; their ids and " + kept + " and collect them"
	}
	switch {
	case finishErr != nil:
		return fmt.Errorf("%w (%s)", finishErr, kept)
	case ctx.Err() != nil:
		return fmt.Errorf("stopped with %d of %d questions answered; %s", stats.Answered+stats.NoAnswer+stats.Failed, stats.Jobs, kept)
	case sendErr != nil:
		return fmt.Errorf("%w; %s", sendErr, kept)
	}
	return nil
}

// needsSandbox says whether some question runs code.
func needsSandbox(outs []*plan.Output) bool {
	for _, o := range outs {
		if o.Solve {
			return true
		}
	}
	return false
}

// sending is the runner's options for a run, with the connection limits
// each server went through (-c auto), by model.
type sending struct {
	runner.Options
	mu        sync.Mutex
	limitsLog map[string][]aimd.Change
}

// limits are the changes of the connection limit the model's server went
// through so far.
func (s *sending) limits(model string) []aimd.Change {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.limitsLog[model])
}

// runnerOptions are opt's runner options with the run's journal, prices
// and console.
func runnerOptions(ctx context.Context, opt Options, infos map[string]model.Info) *sending {
	s := &sending{Options: opt.Runner, limitsLog: map[string][]aimd.Change{}}
	ro := &s.Options
	ro.Journal = opt.Resume.Journal
	ro.Cost = func(name string, r model.Response) (float64, bool) {
		return model.Cost(infos[name], r.Usage(), opt.Prices.For(name))
	}
	if ro.Warn == nil {
		ro.Warn = func(msg string) { opt.Console.Say("warning: %s", msg) }
	}
	if ro.Stopping == nil {
		ro.Stopping = func(inFlight int) {
			if ctx.Err() != nil && inFlight > 0 { // interrupted, not stopped by a failed write
				noun := "requests"
				if inFlight == 1 {
					noun = "request"
				}
				opt.Console.Say("interrupt: waiting for %d %s in flight; Ctrl-C again to abort", inFlight, noun)
			}
		}
	}
	// -c auto: each output records its server's limit as it went; a
	// decrease (the server is congested) is said.
	if ro.Adaptive != nil && ro.OnLimit == nil {
		ro.OnLimit = func(models []string, c aimd.Change) {
			s.mu.Lock()
			for _, m := range models {
				s.limitsLog[m] = append(s.limitsLog[m], c)
			}
			s.mu.Unlock()
			if c.Limit < c.From {
				opt.Console.Say("%s: at most %d requests in flight from now (was %d): %s", strings.Join(models, ", "), c.Limit, c.From, c.Reason)
			}
		}
	}
	return s
}

// addReused counts question q, answered from an earlier output: an
// answer, neither a call nor tokens or cost of this run.
func (sr *sheetRun) addReused(q *result.Question) {
	sr.left--
	sr.reused++
	if q.HasAnswer() {
		sr.answered++
	}
	if q.Note != "" {
		sr.noted++
	}
}

// add records an outcome in its question's record qr and counts it.
func (sr *sheetRun) add(o runner.Outcome, qr *result.Question, info model.Info, price *model.Price, batchID string) {
	record(qr, o, info, price, batchID)
	sr.left--
	switch {
	case o.Err == nil:
		if qr.HasAnswer() {
			sr.answered++
		}
		if qr.Limit == LimitMaxTokens && qr.Mode == "" {
			sr.cutThinking++
		} else if qr.Note != "" {
			sr.noted++
		}
		if c, ok := costOf(info, price, o.Response, batchID); ok {
			sr.cost += c
		}
		if saved, ok := cacheSaved(info, price, o.Response, batchID); ok {
			sr.saved, sr.savedAny = sr.saved+saved, true
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
	sr.reasonTok += o.Response.ReasoningTokens
	sr.cacheRead += o.Response.CacheReadTokens
	sr.cacheWrite += o.Response.CacheWriteTokens
}

// grade grades question q, whose record is qr, puts it in the scratch
// files and counts it.
func (sr *sheetRun) grade(ctx context.Context, q int, qr *result.Question, gr *regrade.Graders) error {
	o := sr.out
	var vs regrade.Verdicts
	if sr.occ != nil {
		vs = regrade.Verdicts{Set: sr.verdicts, N: sr.occ[q]}
	}
	ok, err := regrade.GradeQuestion(ctx, o.File, qr, gr, vs)
	if err != nil {
		return fmt.Errorf("%s on %s: grading: %w", o.Model, o.SheetPath, err)
	}
	switch {
	case qr.GradeDetail == grade.NoJudge:
		sr.noJudge++ // not a failure: said once for the run
	case !ok:
		at := fmt.Sprintf("%s:%d", o.SheetPath, o.Item(q).Line)
		sr.ungraded = append(sr.ungraded, regrade.UngradedAt(at, qr))
	}
	if o.Outline != nil {
		o.Outline.Set(q, qr)
	}
	if err := sr.spill.PutQuestion(&o.File.Sheet, q, qr); err != nil {
		return fmt.Errorf("%s on %s: %w", o.Model, o.SheetPath, err)
	}
	sr.tally.Add(qr)
	if qr.Error != nil && (sr.errAt < 0 || q < sr.errAt) {
		sr.firstErr, sr.errAt = *qr.Error, q
	}
	return nil
}

// promptCacheNote says how many input tokens the provider's prompt cache
// served and took, "" when none.
func (sr *sheetRun) promptCacheNote() string {
	var parts []string
	if sr.cacheRead > 0 {
		parts = append(parts, fmt.Sprintf("%d cache read", sr.cacheRead))
	}
	if sr.cacheWrite > 0 {
		parts = append(parts, fmt.Sprintf("%d cache write", sr.cacheWrite))
	}
	if len(parts) == 0 {
		return ""
	}
	return " (" + strings.Join(parts, ", ") + ")"
}

// finish says how a completed, graded output went and hands it to the
// writer.
func (sr *sheetRun) finish(opt Options, wall time.Duration) error {
	o := sr.out
	n := o.Len()
	o.File.Sheet.Totals = &result.Totals{Questions: n, Answered: sr.answered, Errors: sr.failed,
		InputTokens: sr.inTok, OutputTokens: sr.outTok, ReasoningTokens: sr.reasonTok,
		CacheReadTokens: sr.cacheRead, CacheWriteTokens: sr.cacheWrite, WallSeconds: wall.Seconds()}
	if sr.priced {
		c := sr.cost
		o.File.Sheet.Totals.Cost = &c
	}
	if sr.savedAny {
		saved := sr.saved
		o.File.Sheet.Totals.CacheSaved = &saved
	}
	correct, liberal := sr.tally.Correct, sr.tally.Liberal
	ungraded := ""
	if liberal > 0 {
		ungraded = fmt.Sprintf(", %d graded liberally", liberal)
	}
	if r := sr.tally.Reviewed; r > 0 {
		ungraded += fmt.Sprintf(", %d by people's verdicts", r)
	}
	if n := len(sr.ungraded); n > 0 {
		ungraded += fmt.Sprintf(", %d could not be graded", n)
	}
	errs := fmt.Sprintf("%d errors", sr.failed)
	if sr.failed > 0 {
		errs += fmt.Sprintf(" (first: %s)", OneLine(sr.firstErr))
	}
	cost := "cost unknown (no price for this model; --price IN,OUT)"
	if sr.priced {
		cost = fmt.Sprintf("$%.4f", sr.cost)
		if sr.savedAny {
			cost += fmt.Sprintf(" (the prompt cache saved $%.4f)", sr.saved)
		}
	}
	answered := fmt.Sprintf("%d answered", sr.answered)
	if sr.noted > 0 {
		answered += fmt.Sprintf(", %d refused or without text (see their note)", sr.noted)
	}
	subset := ""
	if s := o.File.Sheet.Subset; s != nil {
		subset = ", " + s.Describe(n)
	}
	sheet := filepath.Base(o.SheetPath)
	if o.Epochs > 1 {
		sheet += fmt.Sprintf(" (epoch %d of %d)", o.Epoch, o.Epochs)
	}
	reasoning := ""
	if sr.reasonTok > 0 {
		reasoning = fmt.Sprintf(" (%d reasoning)", sr.reasonTok)
	}
	if e, ok := reuse.Repeats(o.Outline, o.Earlier); ok {
		// Nothing asked, nothing graded otherwise: the run adds no run.
		// The writers are still told, to put aside what e supersedes.
		opt.Console.Say("%s on %s: %d/%d correct%s, nothing asked: current, %s holds these answers graded alike; nothing written",
			o.Model, sheet, correct, n, subset, filepath.Base(e.Path))
		sr.current, o.Current = &e, &e
		return opt.Writer.Write(o, sr.spill)
	}
	opt.Console.Say("%s on %s: %d/%d correct%s%s%s, %s, %s, %d unanswered, %d calls (%d cached, %d resumed), tokens %d in%s / %d out%s, %s, %.1fs",
		o.Model, sheet, correct, n, subset, ungraded, sr.reusedNote(), answered, errs, sr.noAnswer,
		sr.calls, sr.cached, sr.resumed, sr.inTok, sr.promptCacheNote(), sr.outTok, reasoning, cost, wall.Seconds())
	if sr.cutThinking > 0 {
		limit := "max_tokens"
		if s := o.File.Sheet.Settings; s != nil && s.MaxTokens > 0 {
			limit = fmt.Sprintf("max_tokens %d", s.MaxTokens)
		}
		opt.Console.Say("warning: %s on %s: %d of %d answers are empty, cut by %s while the model was reasoning (limit: max_tokens in the output): raise max_tokens (--max-tokens, or the sheet's meta)",
			o.Model, filepath.Base(o.SheetPath), sr.cutThinking, n, limit)
	}
	if err := opt.Writer.Write(o, sr.spill); err != nil {
		return err
	}
	sr.written = true
	return nil
}

// OneLine keeps an error's first line, cut to a length a console line
// holds.
func OneLine(s string) string {
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
		r := o.Response
		cut := cutThinking(r)
		if r.Work == nil {
			// A chat answer: the think_tags rule is applied here, to what
			// the cache and the journal keep as the server sent it (code
			// and agent modes applied it to each reply they read).
			q.SetChatReply(r, q.SolveSettings["think_tags"])
			r = model.SplitThink(r, q.SolveSettings["think_tags"])
		} else {
			text := r.Text
			q.Completion, q.Reasoning = &text, r.Reasoning
		}
		q.ReasoningTokens = r.ReasoningTokens
		q.InputTokens, q.OutputTokens = r.InputTokens, r.OutputTokens
		q.CacheReadTokens, q.CacheWriteTokens = r.CacheReadTokens, r.CacheWriteTokens
		q.FinishReason = r.FinishReason
		q.Note = replyNote(r, r.Reasoning != "" || o.Response.Text != "")
		q.SetWork(r.Work)
		if cut {
			q.Limit = LimitMaxTokens
			if q.Settings != nil && q.Settings.MaxTokens > 0 {
				q.LimitValue = float64(q.Settings.MaxTokens)
			}
			q.Note = "cut by max_tokens while reasoning (finish_reason " + r.FinishReason + "): no answer; raise max_tokens"
		}
		q.BatchID = batchID
		q.ServedModel = r.Model // what the server said answered; offline models say nothing
		if c, ok := costOf(info, price, o.Response, batchID); ok {
			q.Cost = &c
		}
		if saved, ok := cacheSaved(info, price, o.Response, batchID); ok {
			q.CacheSaved = &saved
		}
	case errors.Is(o.Err, model.ErrNoAnswer):
		q.Unanswered = true
	default:
		msg := o.Err.Error()
		q.Error = &msg
	}
}

// LimitMaxTokens is the limit of a chat answer the model ran out of
// tokens for while reasoning (result.Question's Limit).
const LimitMaxTokens = "max_tokens"

// cutThinking says whether a chat reply was cut by max_tokens while the
// model was still reasoning: stopped for length, with reasoning (returned
// apart, counted, or a leading <think> block) and no answer after it.
func cutThinking(r model.Response) bool {
	if r.Work != nil || (r.FinishReason != "length" && r.FinishReason != "max_tokens") {
		return false
	}
	split := model.SplitThink(r, model.ThinkAuto)
	return strings.TrimSpace(split.Text) == "" && (split.Reasoning != "" || r.ReasoningTokens > 0)
}

// replyNote says what a reader of the output must know of an answer that
// is graded as any other but is no plain text: a refusal, or a reply with
// no text at all (content null: a filter, max_tokens spent on reasoning),
// which a completion of "" alone does not tell from an empty answer.
// thought says the reply had reasoning, kept or dropped by think_tags.
func replyNote(r model.Response, thought bool) string {
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
	case r.Text == "" && thought:
		return "the reply had reasoning and no answer" + finish + ": graded as an empty answer"
	case r.Text == "":
		return "the reply had no text" + finish + ": graded as an empty answer"
	case r.FinishReason == "length" || r.FinishReason == "max_tokens":
		// A server whose chat template opens the reasoning block in the
		// prompt (DeepSeek-R1's) sends a reply cut while reasoning with no
		// tag at all: it cannot be told from an answer cut short.
		return "cut by max_tokens" + finish + ": the answer may be cut short, or be reasoning the server's template opened a think block for; raise max_tokens"
	}
	return ""
}

// costOf prices an answer, at batch prices when a batch answered it.
// cacheSaved is what the prompt cache saved on r: its cost with every
// input token at the full input price, less its cost; false when r read
// and wrote nothing to the cache, or has no price.
func cacheSaved(info model.Info, price *model.Price, r model.Response, batchID string) (float64, bool) {
	if r.CacheReadTokens == 0 && r.CacheWriteTokens == 0 {
		return 0, false
	}
	paid, ok := costOf(info, price, r, batchID)
	full := r
	full.CacheReadTokens, full.CacheWriteTokens = 0, 0
	whole, _ := costOf(info, price, full, batchID)
	return whole - paid, ok
}

func costOf(info model.Info, price *model.Price, r model.Response, batchID string) (float64, bool) {
	c, ok := model.Cost(info, r.Usage(), price)
	if batchID != "" {
		c *= model.BatchDiscount
	}
	return c, ok
}
