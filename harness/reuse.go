package harness

import (
	"fmt"
	"path/filepath"

	"github.com/evalmd/evalmd/harness/internal/plan"
	"github.com/evalmd/evalmd/harness/internal/reuse"
	"github.com/evalmd/evalmd/model"
	"github.com/evalmd/evalmd/result"
)

// reuseAnswers gives each output, unless the run is fresh, the answers
// earlier outputs of its sheet and model recorded to the requests it is
// about to send (harness/internal/reuse): the execute step takes each
// question's from there instead of asking it, and grades it. A resumed
// run does not reuse from the output it writes itself, whose answers its
// journal holds. Only outputs sealed under the run's key are reused from:
// the others are said in one line for the whole run.
func reuseAnswers(cfg Config, made map[string]model.Model, outs []*plan.Output, resuming bool) error {
	var strangers strangers
	for _, o := range outs {
		if made[o.Model] == nil || cfg.Fresh {
			continue
		}
		skip := ""
		if resuming {
			skip = o.OutPath
		}
		ix, err := reuse.Load(filepath.Dir(o.OutPath), o.SheetPath, o.Model, skip, cfg.Key)
		if err != nil {
			cfg.say("warning: %s on %s: %v; asking every question", o.Model, o.SheetPath, err)
			continue
		}
		for _, s := range ix.Skipped {
			cfg.say("warning: not reusing answers from %s", s)
		}
		strangers.add(ix.Strangers)
		if ix.Empty() {
			continue
		}
		o.Reuse, o.Earlier = ix, ix.Earlier
	}
	if msg := strangers.String(); msg != "" {
		cfg.say("%s", msg)
	}
	return nil
}

// strangers are the earlier outputs of a run not reused from because
// evalmd did not write them on this machine, each once.
type strangers struct {
	paths   []string
	seen    map[string]bool
	answers int
}

func (s *strangers) add(ss []reuse.Stranger) {
	for _, st := range ss {
		if s.seen[st.Path] {
			continue
		}
		if s.seen == nil {
			s.seen = map[string]bool{}
		}
		s.seen[st.Path] = true
		s.paths = append(s.paths, st.Path)
		s.answers += st.Answers
	}
}

// String is the line that says them, naming the first and the folder to
// vouch for; "" when there are none.
func (s *strangers) String() string {
	if len(s.paths) == 0 {
		return ""
	}
	dir := filepath.Dir(s.paths[0])
	if filepath.Base(dir) == result.Superseded {
		dir = filepath.Dir(dir)
	}
	outputs, it, was, more := "1 earlier output", "it", "it was", ""
	if n := len(s.paths); n > 1 {
		outputs, it, was, more = fmt.Sprintf("%d earlier outputs", n), "them", "they were", fmt.Sprintf(" and %d more", n-1)
	}
	return fmt.Sprintf("note: %s (%d answers) not reused: evalmd did not write %s on this machine, or %s changed since (%s%s); their questions are asked. If you trust that folder (a CI cache you restored, a teammate's results), evalmd trust %s vouches for it",
		outputs, s.answers, it, was, s.paths[0], more, dir)
}
