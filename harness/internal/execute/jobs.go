package execute

import (
	"cmp"
	"context"
	"path/filepath"
	"slices"
	"sort"

	"github.com/evalmd/evalmd/harness/internal/plan"
	"github.com/evalmd/evalmd/harness/internal/reuse"
	"github.com/evalmd/evalmd/harness/internal/write"
	"github.com/evalmd/evalmd/model"
	"github.com/evalmd/evalmd/result"
	"github.com/evalmd/evalmd/runner"
	"github.com/evalmd/evalmd/verdict"
)

// stepsBuffer is how many settled questions may wait for grading before
// the runner's emit waits.
const stepsBuffer = 1024

// jobs are the runner's jobs (runner.Jobs): every question of every
// output that was not answered from an earlier output (those are reused),
// output after output, each built when the runner takes it, keyed as the
// plan keyed it. A question's record is held from then until its outcome
// is settled (take).
type jobs struct {
	ctx  context.Context
	runs []*sheetRun
	// starts[k] is the place of runs[k]'s first job among the run's.
	starts []int
	n      int
}

// newJobs lays out the jobs of outs, each output's questions put in a
// spill of scratch. A question an earlier output answered (plan.Output's
// Reuse) is no job: it goes to settle, before any question is asked.
func newJobs(ctx context.Context, outs []*plan.Output, models map[string]model.Model, infos map[string]model.Info, opt Options,
	scratch *write.Scratch, settle func(slot)) (*jobs, error) {
	js := &jobs{ctx: ctx, runs: make([]*sheetRun, len(outs)), starts: make([]int, len(outs))}
	folders := map[string]*verdict.Set{}
	for k, o := range outs {
		sr := &sheetRun{out: o, model: models[o.Model], left: o.Len(), spill: scratch.Spill(o.Len()), errAt: -1, held: map[int]*result.Question{}}
		sr.useVerdicts(folders, opt.Console)
		_, sr.priced = model.Cost(infos[o.Model], model.Usage{}, opt.Prices.For(o.Model))
		js.runs[k], js.starts[k] = sr, js.n
		if len(o.Earlier) > 0 {
			o.Outline = reuse.NewOutline(o.OutPath, &o.File.Sheet, o.Len())
		}
		asked := o.Len()
		if o.Reuse != nil {
			if err := sr.reuse(ctx, settle); err != nil {
				return nil, err
			}
			sr.sayReuse(opt.Console)
			asked = len(sr.asked)
		}
		if a, ok := opt.Writer.(write.Asker); ok {
			if err := a.Asking(o, asked); err != nil {
				return nil, err
			}
		}
		js.n += asked
	}
	return js, nil
}

// useVerdicts takes the people's verdicts of the output's folder, read
// once a run (folders), each line that is no verdict said once.
func (sr *sheetRun) useVerdicts(folders map[string]*verdict.Set, console write.Console) {
	dir := filepath.Dir(sr.out.OutPath)
	set, ok := folders[dir]
	if !ok {
		var bad []error
		var err error
		if set, bad, err = verdict.Read(dir); err != nil {
			bad = append(bad, err)
		}
		for _, err := range bad {
			console.Say("warning: %s (not applied)", OneLine(err.Error()))
		}
		folders[dir] = set
	}
	if set.Len() == 0 {
		return
	}
	sr.verdicts, sr.occ = set, make([]int, sr.out.Len())
	seen := map[string]int{}
	for i := range sr.occ {
		name := sr.out.Item(i).Name
		seen[name]++
		sr.occ[i] = seen[name]
	}
}

// reuse takes from the output's Reuse the answer of each question an
// earlier output holds (reuse.Index.Take), each handed to settle as it
// is taken, and lays out the others to be asked (asked). The index is
// closed and let go after.
func (sr *sheetRun) reuse(ctx context.Context, settle func(slot)) error {
	o := sr.out
	defer func() {
		o.Reuse.Close()
		o.Reuse = nil
	}()
	sr.asked = []int{}
	for i := range o.Len() {
		_, rec, err := o.Question(ctx, i)
		if err != nil {
			return err
		}
		// An answer a flag graded in a mode of its own keeps it unless a
		// source sets a mode now: either is said.
		planned, by := cmp.Or(rec.Grading, result.GradingStrict), rec.GradingFrom
		was, ok := o.Reuse.Take(rec)
		if !ok {
			sr.asked = append(sr.asked, i)
			continue
		}
		if !slices.Contains(sr.reusedFrom, rec.ReusedFrom) {
			sr.reusedFrom = append(sr.reusedFrom, rec.ReusedFrom)
		}
		switch {
		case was.From != result.GradingFromFlag || was.Mode == planned:
		case by == "":
			sr.kept.add(was.Mode, "")
		default:
			sr.undone.add(was.Mode, planned+" by the "+by)
		}
		settle(slot{sr, i, rec})
	}
	return nil
}

func (js *jobs) Len() int { return js.n }

// locate is job i's output and question.
func (js *jobs) locate(i int) (*sheetRun, int) {
	k := sort.Search(len(js.starts), func(k int) bool { return js.starts[k] > i }) - 1
	sr, q := js.runs[k], i-js.starts[k]
	if sr.asked != nil {
		q = sr.asked[q]
	}
	return sr, q
}

func (js *jobs) Model(i int) model.Model {
	sr, _ := js.locate(i)
	return sr.model
}

func (js *jobs) Key(i int) string {
	sr, q := js.locate(i)
	return sr.out.Key(q)
}

// Job builds job i and holds its question's record until it is settled.
func (js *jobs) Job(i int) (runner.Job, error) {
	sr, q := js.locate(i)
	t, rec, err := sr.out.Question(js.ctx, q)
	if err != nil {
		return runner.Job{}, err
	}
	sr.mu.Lock()
	sr.held[q] = rec
	sr.mu.Unlock()
	j := runner.Job{Key: sr.out.Key(q), Task: t, Model: sr.model}
	if !sr.out.Prefix.IsZero() {
		// The first question asked writes the prefix to the prompt
		// cache; the output's others read it (runner.Job.Group).
		j.Group = sr.out.OutPath
	}
	if t.Solve != nil && t.Solve.Mode == model.ModeAgent {
		// An agent question is many calls and runs of code: each call has
		// the provider's own timeout, each run the sandbox's, the whole
		// its question_timeout; no one attempt bounds it all.
		j.Timeout = -1
	}
	return j, nil
}

// take is question q's record, held since its job was built, no longer
// held.
func (sr *sheetRun) take(q int) *result.Question {
	sr.mu.Lock()
	defer sr.mu.Unlock()
	rec := sr.held[q]
	delete(sr.held, q)
	return rec
}
