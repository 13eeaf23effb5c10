package regrade

import (
	"path/filepath"
	"sync"

	"github.com/evalmd/evalmd/result"
	"github.com/evalmd/evalmd/verdict"
)

// Verdicts are the people's verdicts that may cover one question's
// answer: its folder's set, and which question of its name it is in its
// output file (verdict.Occurrences). The zero value covers nothing.
type Verdicts struct {
	Set *verdict.Set
	N   int
}

// applyVerdict makes a person's verdict on q's answer its grade, the
// grader's own (just given, or kept from before when only verdicts are
// applied) recorded beside it; without one, q's grade is the grader's.
// It says whether a verdict applies. The graded text is split again
// only where the folder has verdicts: every question of a run is graded
// here.
func applyVerdict(f *result.File, q *result.Question, vs Verdicts) bool {
	q.Review = nil
	if vs.Set.Len() == 0 {
		return false
	}
	graded := GradedText(f, q)
	if graded == nil {
		return false
	}
	v, ok := vs.Set.Find(verdict.KeyOf(f, q, vs.N, graded))
	if !ok {
		return false
	}
	q.Review = v.Review()
	q.Review.GraderGrade = q.Grade
	right := v.Right
	q.Grade = &right
	return true
}

// graderGrade is q's grade as its grader gave it: the one a verdict
// replaced, else its grade.
func graderGrade(q *result.Question) *bool {
	if q.Review != nil {
		return q.Review.GraderGrade
	}
	return q.Grade
}

// folderVerdicts reads each folder's verdicts once for a regrade, and
// keeps the lines that are no verdict to be said once.
type folderVerdicts struct {
	mu    sync.Mutex
	byDir map[string]*verdict.Set
	bad   []error
}

// of returns the verdicts of the folder of the output file path; a file
// that cannot be read is said once and covers nothing.
func (fv *folderVerdicts) of(path string) *verdict.Set {
	dir := filepath.Dir(path)
	fv.mu.Lock()
	defer fv.mu.Unlock()
	if s, ok := fv.byDir[dir]; ok {
		return s
	}
	if fv.byDir == nil {
		fv.byDir = map[string]*verdict.Set{}
	}
	s, bad, err := verdict.Read(dir)
	if err != nil {
		bad = append(bad, err)
	}
	fv.bad = append(fv.bad, bad...)
	fv.byDir[dir] = s
	return s
}
