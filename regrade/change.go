package regrade

import (
	"fmt"
	"strings"

	"github.com/evalmd/evalmd/verdict"
)

const verdictFileName = verdict.FileName

// Change is one question whose grade changed, with what changed it.
type Change struct {
	Name     string
	Question int  // its position in the file, from 1
	Repeated bool // another question of the file has the same name
	Old, New *bool
	Grader   string
	Detail   string
	// Liberal: the new grade is right only by liberal mode; strict
	// grading would say wrong.
	Liberal bool
	// Truth: the sheet (-i) replaced the ground truth, OldTruth by
	// NewTruth, before the question was graded.
	Truth              bool
	OldTruth, NewTruth *string
	// By names the person whose verdict on the answer is the new grade;
	// "" when it is the grader's.
	By string
}

// Label names the question unambiguously in its file: its name, and its
// position when another question has the same name ("Reason-Win-3
// (question 4)").
func (c Change) Label() string {
	if c.Repeated {
		return fmt.Sprintf("%s (question %d)", c.Name, c.Question)
	}
	return c.Name
}

// Cause says in a word what changed the grade: "verdict" (a person's
// verdict on the answer, which outranks the rest), "liberal" (liberal mode:
// strict grading would leave it wrong), "truth" (the sheet's ground truth
// replaced the recorded one), "truth+liberal" (both), or "grader" (neither:
// with the same ground truth and mode, the grader gives another grade than
// the one recorded: a grade LIME stored from an older grader, another
// grader, a hand edit).
func (c Change) Cause() string {
	switch {
	case c.By != "":
		return "verdict"
	case c.Truth && c.Liberal:
		return "truth+liberal"
	case c.Truth:
		return "truth"
	case c.Liberal:
		return "liberal"
	}
	return "grader"
}

// explain is the change's line in the report: the question, the grades,
// and the cause with what it changed; sheet names the sheet of -i.
func (c Change) explain(sheet string) string {
	var why []string
	if c.By != "" {
		why = append(why, fmt.Sprintf("verdict (%s's, in %s)", c.By, verdictFileName))
	}
	if c.Truth {
		why = append(why, fmt.Sprintf("truth (ground truth %s -> %s, from %s)", quoteTruth(c.OldTruth), quoteTruth(c.NewTruth), sheet))
	}
	if c.Liberal {
		why = append(why, fmt.Sprintf("liberal (strict grade would be false, liberal %s)", fmtGrade(c.New)))
	}
	if len(why) == 0 {
		why = append(why, fmt.Sprintf("grader (%s, same ground truth: the recorded grade is not what %[1]s gives now)", c.Grader))
	}
	return fmt.Sprintf("%s: %s -> %s  %s", c.Label(), fmtGrade(c.Old), fmtGrade(c.New), strings.Join(why, " and "))
}

// quoteTruth quotes a ground truth for a report line, cut to 40
// characters; null is None, as in the .md.
func quoteTruth(s *string) string {
	if s == nil {
		return "None"
	}
	r := []rune(*s)
	if len(r) > 40 {
		return fmt.Sprintf("%q…", string(r[:40]))
	}
	return fmt.Sprintf("%q", *s)
}

// causeCounts says how many changes each cause made, in a fixed order,
// leaving out the causes that made none: "liberal 15, grader 5".
func causeCounts(changes []Change) string {
	n := map[string]int{}
	for _, c := range changes {
		n[c.Cause()]++
	}
	var parts []string
	for _, cause := range []string{"verdict", "truth", "liberal", "truth+liberal", "grader"} {
		if n[cause] > 0 {
			parts = append(parts, fmt.Sprintf("%s %d", cause, n[cause]))
		}
	}
	return strings.Join(parts, ", ")
}
