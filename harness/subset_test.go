package harness

import (
	"strings"
	"testing"
)

// Another subset is another run: its journal is its own; no subset keeps
// the journal a run without the flags always had.
func TestSubsetKeysTheJournal(t *testing.T) {
	base := Config{Sheets: []string{"s.md"}, Models: []string{"mock"}, OutDir: "out"}
	whole, _ := ResumeFiles(base)
	seen := map[string]string{whole: "no subset"}
	for _, sub := range []Subset{{Limit: 3}, {Limit: 4}, {Questions: []string{"a*"}}, {Questions: []string{"a*", "b"}}, {Limit: 3, Questions: []string{"a*"}}} {
		cfg := base
		cfg.Subset = sub
		j, _ := ResumeFiles(cfg)
		if prev, ok := seen[j]; ok {
			t.Errorf("%+v shares the journal of %s", sub, prev)
		}
		seen[j] = "the subset " + strings.Join(sub.Questions, ",")
		if again, _ := ResumeFiles(cfg); again != j {
			t.Errorf("%+v: the journal moved between two calls", sub)
		}
	}
}
