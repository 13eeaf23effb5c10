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

	"github.com/evalmd/evalmd/grade"
	"github.com/evalmd/evalmd/internal/outfile"
	"github.com/evalmd/evalmd/model"
	"github.com/evalmd/evalmd/result"
	"github.com/evalmd/evalmd/runner"
)

// ask sends a job's requests through the runner, records every outcome in
// the output file and grades it.
func ask(ctx context.Context, cfg Config, m model.Model, job *Job, st resumeState, gr *graders) error {
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
	if err := st.save(job.Output.Sheet.RunID); err != nil {
		return err
	}
	if opt.Progress == nil && cfg.Stderr == os.Stderr {
		opt.Progress = os.Stderr
	}
	info := m.Info()
	opt.Cost = func(r model.Response) float64 {
		c, _ := model.Cost(info, r.InputTokens, r.OutputTokens, cfg.Price)
		return c
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
			return fmt.Errorf("%s on %s: stopped; answers so far are in %s, rerun the same command to go on", m.Name(), job.SheetPath, st.journal)
		}
		return fmt.Errorf("%s on %s: %w", m.Name(), job.SheetPath, err)
	}
	if stats.Unfinished > 0 {
		return fmt.Errorf("%s on %s: %d questions unfinished; answers so far are in %s, rerun the same command to go on",
			m.Name(), job.SheetPath, stats.Unfinished, st.journal)
	}
	if err := gr.gradeAll(ctx, job.Output); err != nil {
		return err
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
	fmt.Fprintf(cfg.Stderr, "%s on %s: %d/%d correct, %d answered, %d errors, %d unanswered, %d calls (%d cached, %d resumed), tokens %d in / %d out, $%.4f, %.1fs\n",
		m.Name(), filepath.Base(job.SheetPath), correct, len(jobs), stats.Answered, stats.Failed, stats.NoAnswer,
		stats.Calls, stats.Cached, stats.FromJournal, stats.InputTokens, stats.OutputTokens, stats.Cost, t.WallSeconds)
	return nil
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

// graders grades output files with one grader per name.
type graders struct {
	cfg  Config
	opt  grade.Options
	mu   sync.Mutex
	byID map[string]grade.Grader
}

func newGraders(cfg Config) (*graders, error) {
	g := &graders{cfg: cfg, byID: map[string]grade.Grader{}}
	if cfg.Judge != "" && !cfg.DryRun {
		j, err := cfg.NewModel(cfg.Judge, cfg.Model)
		if err != nil {
			return nil, fmt.Errorf("judge model %s: %w", cfg.Judge, err)
		}
		g.opt.Judge = j
	}
	return g, nil
}

func (g *graders) get(name string) (grade.Grader, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if gr, ok := g.byID[name]; ok {
		return gr, nil
	}
	gr, err := grade.New(name, g.opt)
	if err != nil {
		return nil, err
	}
	g.byID[name] = gr
	return gr, nil
}

// gradeAll grades every question of an output file with its grader.
func (g *graders) gradeAll(ctx context.Context, f *result.File) error {
	for i := range f.Questions {
		q := &f.Questions[i]
		name := grade.Select(q.MetaData, g.cfg.Grader)
		gr, err := g.get(name)
		if err != nil {
			return fmt.Errorf("%s: question %q: %w", f.Sheet.SheetFile, q.Name, err)
		}
		v, err := grade.Nullable(ctx, gr, q.GroundTruth, q.Completion, grade.Input{Meta: q.MetaData, Question: q.Question, QuestionText: q.QuestionUsr})
		q.Grader = name
		if err != nil {
			// A grader that cannot decide (an unsupported DataBench
			// semantic) leaves the grade null and says why.
			q.Grade, q.GradeDetail = nil, "grader error: "+err.Error()
			continue
		}
		q.Grade, q.GradeDetail = v.Correct, v.Detail
		q.SubAnswers = nil
		for _, p := range v.Parts {
			q.SubAnswers = append(q.SubAnswers, result.SubAnswer(p))
		}
	}
	return nil
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
// sheet and model in the same output folder.
func loadResume(cfg Config, sheetPath, modelName string) resumeState {
	base := strings.TrimSuffix(OutputPath(cfg, sheetPath, modelName, ""), ".json")
	dir, name := filepath.Dir(base), filepath.Base(base)
	st := resumeState{
		journal: filepath.Join(dir, "."+name+".journal"),
		state:   filepath.Join(dir, "."+name+".run"),
	}
	data, err := os.ReadFile(st.state)
	if err != nil {
		return st
	}
	if json.Unmarshal(data, &st) == nil {
		st.exists = true
	}
	return st
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
