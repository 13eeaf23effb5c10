package harness

import (
	"path/filepath"

	"github.com/evalmd/evalmd/harness/internal/plan"
	"github.com/evalmd/evalmd/harness/internal/reuse"
	"github.com/evalmd/evalmd/model"
)

// reuseAnswers gives each output, unless the run is fresh, the answers
// earlier outputs of its sheet and model recorded to the requests it is
// about to send (harness/internal/reuse): the execute step takes each
// question's from there instead of asking it, and grades it. A resumed
// run does not reuse from the output it writes itself, whose answers its
// journal holds.
func reuseAnswers(cfg Config, made map[string]model.Model, outs []*plan.Output, resuming bool) error {
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
		o.Reuse, o.Earlier = ix, ix.Earlier
	}
	return nil
}
