package harness

import (
	"cmp"
	"context"
	"fmt"
	"path/filepath"

	"github.com/evalmd/evalmd/harness/internal/plan"
	"github.com/evalmd/evalmd/harness/internal/reuse"
	"github.com/evalmd/evalmd/model"
	"github.com/evalmd/evalmd/result"
)

// reuseAnswers gives, unless the run is fresh, every question whose
// request key (recorded as its request is built) an earlier output of its
// sheet and model recorded with an answer that answer
// (harness/internal/reuse), marking it in Output.Reused: the execute step
// grades it without asking. An output with earlier outputs beside it has
// its questions built and kept (plan.Output.Materialize) to be compared
// with them; one without (a first run) builds each as it asks it. A
// resumed run does not reuse from the output it writes itself, whose
// answers its journal holds.
func reuseAnswers(ctx context.Context, cfg Config, made map[string]model.Model, outs []*plan.Output, resuming bool) error {
	for _, o := range outs {
		if made[o.Model] == nil || cfg.Fresh {
			continue
		}
		skip := ""
		if resuming {
			skip = o.OutPath
		}
		ix, err := reuse.Load(filepath.Dir(o.OutPath), o.SheetPath, o.Model, skip)
		if err != nil {
			cfg.say("warning: %s on %s: %v; asking every question", o.Model, o.SheetPath, err)
			continue
		}
		for _, s := range ix.Skipped {
			cfg.say("warning: not reusing answers from %s", s)
		}
		if ix.Empty() {
			continue
		}
		o.Earlier = ix.Earlier
		if err := o.Materialize(ctx); err != nil {
			return err
		}
		reuseFrom(cfg, ix, o)
	}
	return nil
}

// reuseFrom fills the questions of o, built and kept, that ix holds an
// answer to, and says how their grading changes.
func reuseFrom(cfg Config, ix *reuse.Index, o *plan.Output) {
	o.Reused = make([]bool, o.Len())
	var kept, undone gradingChanges
	for i := range o.File.Questions {
		q := &o.File.Questions[i]
		// An answer a flag graded in a mode of its own keeps it
		// unless a source sets a mode now: either is said.
		mode, from := ix.Grading(q.RequestKey)
		planned, by := cmp.Or(q.Grading, result.GradingStrict), q.GradingFrom
		if o.Reused[i] = ix.Fill(q); !o.Reused[i] || from != result.GradingFromFlag || mode == planned {
			continue
		}
		if by == "" {
			kept.add(mode, "")
		} else {
			undone.add(mode, planned+" by the "+by)
		}
	}
	what := o.Model + " on " + filepath.Base(o.SheetPath)
	for _, c := range kept {
		cfg.say("%s: %s keep the %s grading a flag gave them (grade -l or --grading); --grading strict grades them strictly", what, answers(c.n), c.mode)
	}
	for _, c := range undone {
		cfg.say("%s: %s graded %s by a flag before are graded %s now", what, answers(c.n), c.mode, c.now)
	}
}

// gradingChanges count reused answers by the grading mode a flag gave
// them before and how they are graded now.
type gradingChanges []struct {
	mode, now string
	n         int
}

func (g *gradingChanges) add(mode, now string) {
	for i := range *g {
		if (*g)[i].mode == mode && (*g)[i].now == now {
			(*g)[i].n++
			return
		}
	}
	*g = append(*g, struct {
		mode, now string
		n         int
	}{mode, now, 1})
}

// answers is "1 reused answer" or "N reused answers".
func answers(n int) string {
	if n == 1 {
		return "1 reused answer"
	}
	return fmt.Sprintf("%d reused answers", n)
}
