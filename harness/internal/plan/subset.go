package plan

import (
	"fmt"
	"path"

	"github.com/evalmd/evalmd/result"
)

// Subset chooses the questions a run asks of each sheet (run --questions,
// --limit): those whose name or id meta matches one of Questions (path.Match
// globs; all when empty), then the first Limit of them in sheet order (all
// when 0).
type Subset struct {
	Limit     int
	Questions []string
}

// IsZero says the subset is every question.
func (s Subset) IsZero() bool { return s.Limit == 0 && len(s.Questions) == 0 }

// Check refuses a negative limit and a malformed glob.
func (s Subset) Check() error {
	if s.Limit < 0 {
		return fmt.Errorf("--limit %d: give a number of questions per sheet, at least 1", s.Limit)
	}
	for _, g := range s.Questions {
		if _, err := path.Match(g, ""); err != nil {
			return fmt.Errorf("--questions %q: %w", g, err)
		}
	}
	return nil
}

// choose is the indices of the questions of one sheet the subset asks;
// matched[i] is set when Questions[i] matched one of them.
func (s Subset) choose(qs []Question, matched []bool) []int {
	var out []int
	for i := range qs {
		// Every question is matched, also past the limit: a glob that
		// names a question the limit leaves out is not a mistake.
		if s.matches(qs[i], matched) && (s.Limit == 0 || len(out) < s.Limit) {
			out = append(out, i)
		}
	}
	return out
}

// matches says whether q is asked, marking each glob that matches it.
func (s Subset) matches(q Question, matched []bool) bool {
	if len(s.Questions) == 0 {
		return true
	}
	hit := false
	for i, g := range s.Questions {
		byName, _ := path.Match(g, q.Name)
		byID, _ := path.Match(g, q.ID)
		if byName || (q.ID != "" && byID) {
			matched[i] = true
			hit = true
		}
	}
	return hit
}

// Record is the subset as an output records it, for a sheet of n
// questions; nil when the subset is every question.
func (s Subset) Record(n int) *result.Subset {
	if s.IsZero() {
		return nil
	}
	return &result.Subset{Limit: s.Limit, Questions: s.Questions, Of: n}
}

// unmatched is the error naming the first glob that matched no question of
// the run.
func (s Subset) unmatched(matched []bool) error {
	for i, ok := range matched {
		if !ok {
			return fmt.Errorf("--questions %q: no question of the run's sheets has that name or id", s.Questions[i])
		}
	}
	return nil
}
