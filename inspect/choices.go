package inspect

import (
	"regexp"
	"strings"
)

// choiceLine matches an option line of a multiple-choice question:
// "A) text", "B. text", "(C) text", "D: text", with the letter upper case.
var choiceLine = regexp.MustCompile(`^\s*\(?([A-Z])(?:\)|\.|:)\s+(\S.*?)\s*$`)

// Choices returns the options of a multiple-choice question: the texts of
// the last run of option lines lettered A, B, C, ... in order (at least
// two), without their letters, as Inspect's Sample.choices holds them. It
// returns nil when the question has no such run.
func Choices(question string) []string {
	var best, cur []string
	for _, line := range strings.Split(question, "\n") {
		m := choiceLine.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		letter := m[1][0]
		switch {
		case letter == 'A':
			cur = []string{m[2]}
		case len(cur) > 0 && letter == byte('A'+len(cur)):
			cur = append(cur, m[2])
		default:
			cur = nil
			continue
		}
		if len(cur) >= 2 {
			best = append([]string(nil), cur...)
		}
	}
	return best
}
