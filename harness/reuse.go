package harness

import (
	"path/filepath"

	"github.com/evalmd/evalmd/harness/internal/plan"
	"github.com/evalmd/evalmd/harness/internal/reuse"
	"github.com/evalmd/evalmd/model"
)

// reuseAnswers records each planned question's request key and, unless
// the run is fresh, gives every question whose key an earlier output of
// its sheet and model recorded with an answer that answer (harness/internal/reuse),
// marking it in Output.Reused: the execute step grades it without asking.
// A resumed run does not reuse from the output it writes itself, whose
// answers its journal holds.
func reuseAnswers(cfg Config, made map[string]model.Model, outs []*plan.Output, resuming bool) {
	for _, o := range outs {
		m := made[o.Model]
		if m == nil {
			continue
		}
		var ix *reuse.Index
		if !cfg.Fresh {
			skip := ""
			if resuming {
				skip = o.OutPath
			}
			var err error
			if ix, err = reuse.Load(filepath.Dir(o.OutPath), o.SheetPath, o.Model, skip); err != nil {
				cfg.say("warning: %s on %s: %v; asking every question", o.Model, o.SheetPath, err)
			} else {
				for _, s := range ix.Skipped {
					cfg.say("warning: not reusing answers from %s", s)
				}
			}
		}
		o.Reused = make([]bool, len(o.Tasks))
		for i := range o.Tasks {
			q := &o.File.Questions[i]
			q.RequestKey = reuse.Key(m, o.Tasks[i])
			o.Reused[i] = ix.Fill(q)
		}
	}
}
