package execute

import (
	"fmt"
	"path/filepath"

	"github.com/evalmd/evalmd/harness/internal/write"
)

// reusedNote says, for an output's line, how many of its questions were
// asked and how many reused, and from where; "" when none was reused.
func (sr *sheetRun) reusedNote() string {
	if sr.reused == 0 {
		return ""
	}
	note := fmt.Sprintf(", %d asked, %d reused (unchanged since %s", sr.out.Len()-sr.reused, sr.reused, sr.reusedFrom[0])
	if len(sr.reusedFrom) > 1 {
		note += fmt.Sprintf(" and %d more", len(sr.reusedFrom)-1)
	}
	return note + ")"
}

// sayReuse says how the grading of the reused answers changes.
func (sr *sheetRun) sayReuse(c write.Console) {
	what := sr.out.Model + " on " + filepath.Base(sr.out.SheetPath)
	for _, g := range sr.kept {
		verb := "keep"
		if g.n == 1 {
			verb = "keeps"
		}
		c.Say("%s: %s %s the %s grading a flag gave them (grade -l or --grading); --grading strict grades them strictly", what, answers(g.n), verb, g.mode)
	}
	for _, g := range sr.undone {
		c.Say("%s: %s graded %s by a flag before are graded %s now", what, answers(g.n), g.mode, g.now)
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
