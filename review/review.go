// Package review finds the answers of output files a person reviews and
// records the person's verdicts on them (package verdict): the queue the
// review command and the served report walk, and the one way a verdict
// is made, written beside the outputs and applied to every output file
// that carries its answer, without grading anything again. Load makes
// the Queue: each Answer once however many files carry it, and each Stale
// verdict, whose answer or truth changed; Record makes a Decision the
// verdict on an answer; Accept makes the answer right and one of its
// question's accepted answers in the sheet SheetOf finds.
package review

import (
	"cmp"
	"fmt"
	"path"
	"path/filepath"
	"slices"

	"github.com/evalmd/evalmd/result"
	"github.com/evalmd/evalmd/verdict"
)

// Answer is one answer to review: the same answer (verdict.Key) in every
// output file of its folder that carries it counts once.
type Answer struct {
	Key    verdict.Key
	Dir    string   // the folder of its output files, where its verdict lives
	Files  []string // the output files that carry it, in the order found
	Sheet  result.Sheet
	Q      result.Question // as the first file holds it
	Graded *string         // the text graded
	// Grader is the grader's grade (before any verdict): of the first
	// file, and Graders those of every file, by file, when they differ.
	Grader  *bool
	Graders []*bool
	// Verdict is the person's verdict on it, if any.
	Verdict *verdict.Verdict
}

// Label names the answer for a person: sheet, question and model.
func (a *Answer) Label() string {
	name := a.Key.Question
	if a.Key.N > 1 {
		name = fmt.Sprintf("%s (#%d)", name, a.Key.N)
	}
	return fmt.Sprintf("%s / %s / %s", a.Key.Sheet, name, a.Key.Model)
}

// Grade is the answer's grade now: the verdict's, else the grader's.
func (a *Answer) Grade() *bool {
	if a.Verdict != nil {
		return &a.Verdict.Right
	}
	return a.Grader
}

// Disagree says whether graders or people differ on the answer: a
// verdict against its grader's grade, or two files' graders apart.
func (a *Answer) Disagree() bool {
	if a.Verdict != nil && (a.Grader == nil || *a.Grader != a.Verdict.Right) {
		return true
	}
	for _, g := range a.Graders {
		if verdict.GradeWord(g) != verdict.GradeWord(a.Grader) {
			return true
		}
	}
	return false
}

// Only names the subsets of answers a review may walk.
var Only = []string{"wrong", "right", "ungraded", "unreviewed", "judge", "disagree"}

// Filter chooses the answers to review.
type Filter struct {
	Questions []string // path.Match globs on a question's name or id meta; none: every question
	Models    []string // globs on the model's name; none: every model
	Only      string   // one of Only, or "" for every answer
}

// Check says why f cannot choose, or nil.
func (f Filter) Check() error {
	for _, g := range slices.Concat(f.Questions, f.Models) {
		if _, err := path.Match(g, ""); err != nil {
			return fmt.Errorf("pattern %q: %w", g, err)
		}
	}
	if f.Only != "" && !slices.Contains(Only, f.Only) {
		return fmt.Errorf("--only %q: not one of %v", f.Only, Only)
	}
	return nil
}

func anyMatch(globs []string, names ...string) bool {
	if len(globs) == 0 {
		return true
	}
	for _, g := range globs {
		for _, n := range names {
			if ok, _ := path.Match(g, n); ok && n != "" {
				return true
			}
		}
	}
	return false
}

// takes says whether f chooses a.
func (f Filter) takes(a *Answer) bool {
	if !anyMatch(f.Questions, a.Q.Name, a.Q.ID()) || !anyMatch(f.Models, a.Key.Model) {
		return false
	}
	g := a.Grade()
	switch f.Only {
	case "wrong":
		return g != nil && !*g
	case "right":
		return g != nil && *g
	case "ungraded":
		return g == nil
	case "unreviewed":
		return a.Verdict == nil
	case "judge":
		return a.Q.Grader == "judge"
	case "disagree":
		return a.Disagree()
	}
	return true
}

// sortAnswers puts answers in a stable order: by folder, then as a
// verdicts file lists them.
func sortAnswers(as []*Answer) {
	slices.SortStableFunc(as, func(a, b *Answer) int {
		return cmp.Or(cmp.Compare(a.Dir, b.Dir), cmp.Compare(a.Key.Sheet, b.Key.Sheet), cmp.Compare(a.Key.Question, b.Key.Question),
			cmp.Compare(a.Key.N, b.Key.N), cmp.Compare(a.Key.Model, b.Key.Model))
	})
}

// dirOf is the folder whose verdicts cover the output file p.
func dirOf(p string) string { return filepath.Dir(p) }

// graderGrade is q's grade as its grader gave it.
func graderGrade(q *result.Question) *bool {
	if q.Review != nil {
		return q.Review.GraderGrade
	}
	return q.Grade
}
