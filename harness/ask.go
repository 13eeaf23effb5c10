package harness

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/evalmd/evalmd/internal/outfile"
	"github.com/evalmd/evalmd/internal/readfile"
	"github.com/evalmd/evalmd/model"
	"github.com/evalmd/evalmd/regrade"
	"github.com/evalmd/evalmd/result"
	"github.com/evalmd/evalmd/runner"
)

// ask sends a job's requests through the runner, records every outcome in
// the output file and grades it.
// It returns how many questions failed and could not be graded.
func ask(ctx context.Context, cfg Config, m model.Model, job *Job, st resumeState, gr *regrade.Graders) (counts, error) {
	jobs := make([]runner.Job, len(job.Requests))
	index := make(map[string]int, len(jobs))
	for i, req := range job.Requests {
		// The index keeps duplicate question names apart; the name makes a
		// journal of an edited sheet visibly stale rather than misapplied.
		key := fmt.Sprintf("%d:%s", i, job.Output.Questions[i].Name)
		jobs[i] = runner.Job{Key: key, Request: req}
		index[key] = i
	}
	opt := cfg.Runner
	opt.Journal = st.journal
	for _, r := range job.Requests {
		if r.Solve != nil && r.Solve.Mode == model.ModeAgent {
			// An agent question is many calls and runs of code: each call
			// has the provider's own timeout, each run the sandbox's, the
			// whole its question_timeout; no one attempt bounds it all.
			opt.Timeout = -1
			break
		}
	}
	if err := st.save(job.Output.Sheet.RunID); err != nil {
		return counts{}, err
	}
	if opt.Progress == nil && cfg.Stderr == os.Stderr {
		opt.Progress = os.Stderr
	}
	info := m.Info()
	_, priced := model.Cost(info, 0, 0, cfg.Price)
	if priced {
		opt.Cost = func(r model.Response) float64 {
			c, _ := model.Cost(info, r.InputTokens, r.OutputTokens, cfg.Price)
			return c
		}
	}
	if opt.Warn == nil {
		opt.Warn = func(msg string) { fmt.Fprintf(cfg.Stderr, "warning: %s\n", msg) }
	}
	var mu sync.Mutex
	start := time.Now()
	stats, err := runner.Run(ctx, m, jobs, opt, func(o runner.Outcome) {
		mu.Lock()
		defer mu.Unlock()
		record(&job.Output.Questions[index[o.Key]], o, info, cfg.Price)
	})
	if err != nil {
		if errors.Is(err, context.Canceled) {
			return counts{}, fmt.Errorf("%s on %s: stopped; answers so far are in %s, rerun the same command to go on", m.Name(), job.SheetPath, st.journal)
		}
		return counts{}, fmt.Errorf("%s on %s: %w", m.Name(), job.SheetPath, err)
	}
	if stats.Unfinished > 0 {
		return counts{}, fmt.Errorf("%s on %s: %d questions unfinished; answers so far are in %s, rerun the same command to go on",
			m.Name(), job.SheetPath, stats.Unfinished, st.journal)
	}
	graded, err := regrade.GradeFile(ctx, job.Output, gr)
	if err != nil {
		return counts{}, fmt.Errorf("%s on %s: grading: %w", m.Name(), job.SheetPath, err)
	}
	t := &result.Totals{Questions: len(jobs), Answered: stats.Answered, Errors: stats.Failed,
		InputTokens: stats.InputTokens, OutputTokens: stats.OutputTokens, Cost: stats.Cost,
		WallSeconds: time.Since(start).Seconds()}
	job.Output.Sheet.Totals = t
	correct := 0
	for _, q := range job.Output.Questions {
		if q.Grade != nil && *q.Grade {
			correct++
		}
	}
	ungraded := ""
	if graded.Failed > 0 {
		ungraded = fmt.Sprintf(", %d could not be graded", graded.Failed)
	}
	cost := "cost unknown (no price for this model; --price IN,OUT)"
	if priced {
		cost = fmt.Sprintf("$%.4f", stats.Cost)
	}
	fmt.Fprintf(cfg.Stderr, "%s on %s: %d/%d correct%s, %d answered, %d errors, %d unanswered, %d calls (%d cached, %d resumed), tokens %d in / %d out, %s, %.1fs\n",
		m.Name(), filepath.Base(job.SheetPath), correct, len(jobs), ungraded, stats.Answered, stats.Failed, stats.NoAnswer,
		stats.Calls, stats.Cached, stats.FromJournal, stats.InputTokens, stats.OutputTokens, cost, t.WallSeconds)
	c := counts{ungraded: graded.Failed, failed: stats.Failed, questions: len(jobs)}
	for _, q := range job.Output.Questions {
		if q.Error != nil {
			c.firstErr = *q.Error
			break
		}
	}
	return c, nil
}

// counts are what went wrong in one sheet on one model.
type counts struct {
	questions int    // questions asked
	failed    int    // questions that ended with an error
	ungraded  int    // questions whose grader failed
	firstErr  string // the first failed question's error
}

// record puts an outcome into its question.
func record(q *result.Question, o runner.Outcome, info model.Info, price *model.Price) {
	secs := o.Elapsed.Seconds()
	q.EvalTime = &secs
	switch {
	case o.Err == nil:
		text := o.Response.Text
		q.Completion = &text
		q.InputTokens, q.OutputTokens = o.Response.InputTokens, o.Response.OutputTokens
		q.FinishReason = o.Response.FinishReason
		q.SetWork(o.Response.Work)
		if c, ok := model.Cost(info, o.Response.InputTokens, o.Response.OutputTokens, price); ok {
			q.Cost = &c
		}
	case errors.Is(o.Err, model.ErrNoAnswer):
		q.Unanswered = true
	default:
		msg := o.Err.Error()
		q.Error = &msg
	}
}

// resumeState is the journal of one sheet on one model, and the run id it
// was started with, so that rerunning the same command after a crash asks
// only what is missing and writes the same file name.
type resumeState struct {
	journal string // the runner's journal
	state   string // a small JSON file holding the run id
	RunID   string `json:"run_id"`
	exists  bool
}

// loadResume finds the journal of an earlier, unfinished run of the same
// sheet and model in the same output folder. A state file whose run id is
// not one (a crafted "x/../../trav") is an error.
func loadResume(cfg Config, sheetPath, modelName string) (resumeState, error) {
	base := strings.TrimSuffix(OutputPath(cfg, sheetPath, modelName, ""), ".json")
	dir, name := filepath.Dir(base), filepath.Base(base)
	st := resumeState{
		journal: filepath.Join(dir, "."+name+".journal"),
		state:   filepath.Join(dir, "."+name+".run"),
	}
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

// remove deletes the journal once the output file holds every answer.
func (st resumeState) remove() {
	if st.journal != "" {
		os.Remove(st.journal)
		os.Remove(st.state)
	}
}
