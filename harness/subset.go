package harness

import (
	"fmt"
	"path"
	"strings"

	"github.com/evalmd/evalmd/result"
	"github.com/evalmd/evalmd/sheet"
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

// choose keeps the items of one sheet the subset asks; matched[i] is set
// when Questions[i] matched one of them.
func (s Subset) choose(items []sheet.Item, matched []bool) []sheet.Item {
	if s.IsZero() {
		return items
	}
	var out []sheet.Item
	for i := range items {
		// Every question is matched, also past the limit: a glob that
		// names a question the limit leaves out is not a mistake.
		if s.matches(&items[i], matched) && (s.Limit == 0 || len(out) < s.Limit) {
			out = append(out, items[i])
		}
	}
	return out
}

// matches says whether it is asked, marking each glob that matches it.
func (s Subset) matches(it *sheet.Item, matched []bool) bool {
	if len(s.Questions) == 0 {
		return true
	}
	id := strings.TrimSpace(it.Meta["id"])
	hit := false
	for i, g := range s.Questions {
		byName, _ := path.Match(g, it.Name)
		byID, _ := path.Match(g, id)
		if byName || (id != "" && byID) {
			matched[i] = true
			hit = true
		}
	}
	return hit
}

// record is the subset as an output records it, for a sheet of n questions;
// nil when the subset is every question.
func (s Subset) record(n int) *result.Subset {
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
