package review

import (
	"errors"
	"fmt"
	"os"

	"github.com/evalmd/evalmd/regrade"
	"github.com/evalmd/evalmd/result"
	"github.com/evalmd/evalmd/verdict"
)

// Queue is what Load found: the answers the filter chose, in a stable
// order, and what a person must know besides.
type Queue struct {
	Answers []*Answer
	// Total counts every answer found, chosen or not.
	Total int
	// Stale are the verdicts whose answer no output file holds now.
	Stale []Stale
	// Bad names each file that could not be read and each line of a
	// verdicts file that is no verdict; the rest was loaded.
	Bad []error
}

// Stale is a verdict no answer matches now, and why.
type Stale struct {
	verdict.Verdict
	Path string // its verdicts file
	Why  string // "the answer changed", "the truth changed", "no output holds its question"
}

func (s Stale) String() string {
	return fmt.Sprintf("%s:%d: stale verdict (%s) on %s / %s / %s: %s", s.Path, s.Line, verdict.GradeWord(&s.Right), s.Sheet, s.Question, s.Model, s.Why)
}

// folder is the answers of one folder of outputs, and its verdicts.
type folder struct {
	dir      string
	verdicts *verdict.Set
	answers  map[verdict.Key]*Answer
	order    []*Answer
}

// Load reads the output files at paths (files, or folders searched at
// any depth but for their superseded folders) and the verdicts beside
// them. Dry runs hold no answers and are left out.
func Load(paths []string, flt Filter) (*Queue, error) {
	if err := flt.Check(); err != nil {
		return nil, err
	}
	q := &Queue{}
	folders := map[string]*folder{}
	var dirs []string
	files, err := outputFiles(paths, q)
	if err != nil {
		return nil, err
	}
	for _, p := range files {
		f, err := result.Read(p)
		if err != nil {
			q.Bad = append(q.Bad, err)
			continue
		}
		if f.Sheet.DryRun {
			continue
		}
		dir := dirOf(p)
		fd := folders[dir]
		if fd == nil {
			fd = q.readFolder(dir)
			folders[dir] = fd
			dirs = append(dirs, dir)
		}
		fd.add(p, f)
	}
	if len(folders) == 0 && len(q.Bad) == 0 {
		return nil, errors.New("no output files found")
	}
	for _, dir := range dirs {
		fd := folders[dir]
		q.Total += len(fd.order)
		for _, a := range fd.order {
			if flt.takes(a) {
				q.Answers = append(q.Answers, a)
			}
		}
		q.Stale = append(q.Stale, fd.stale()...)
	}
	sortAnswers(q.Answers)
	return q, nil
}

// outputFiles lists the output files at paths; a path that is not there
// is the error, a file below one that cannot be read is said in q.Bad.
func outputFiles(paths []string, q *Queue) ([]string, error) {
	var files []string
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil {
			return nil, err
		}
		if !st.IsDir() {
			files = append(files, p)
			continue
		}
		found, err := result.Find(p, func(err error) { q.Bad = append(q.Bad, err) })
		if err != nil {
			q.Bad = append(q.Bad, err)
		}
		files = append(files, found...)
	}
	return files, nil
}

func (q *Queue) readFolder(dir string) *folder {
	set, bad, err := verdict.Read(dir)
	if err != nil {
		q.Bad = append(q.Bad, err)
		set = verdict.NewSet(verdict.PathIn(dir), nil)
	}
	q.Bad = append(q.Bad, bad...)
	return &folder{dir: dir, verdicts: set, answers: map[verdict.Key]*Answer{}}
}

// add takes the answers of f, read from p.
func (fd *folder) add(p string, f *result.File) {
	occ := verdict.Occurrences(f)
	for i := range f.Questions {
		qq := &f.Questions[i]
		graded := regrade.GradedText(f, qq)
		if graded == nil || qq.Error != nil {
			continue
		}
		k := verdict.KeyOf(f, qq, occ[i], graded)
		if a, ok := fd.answers[k]; ok {
			a.Files = append(a.Files, p)
			a.Graders = append(a.Graders, graderGrade(qq))
			continue
		}
		a := &Answer{Key: k, Dir: fd.dir, Files: []string{p}, Sheet: f.Sheet, Q: *qq, Graded: graded, Grader: graderGrade(qq)}
		a.Sheet.Totals, a.Sheet.ConnectionLimits = nil, nil
		if v, ok := fd.verdicts.Find(k); ok {
			a.Verdict = &v
		}
		fd.answers[k] = a
		fd.order = append(fd.order, a)
	}
}

// stale lists the folder's verdicts no answer matches, and why.
func (fd *folder) stale() []Stale {
	type question struct {
		sheet, name, model string
		n                  int
	}
	held := map[question][]verdict.Key{}
	for k := range fd.answers {
		qk := question{k.Sheet, k.Question, k.Model, k.N}
		held[qk] = append(held[qk], k)
	}
	var out []Stale
	for _, v := range fd.verdicts.All() {
		if _, ok := fd.answers[v.Key]; ok {
			continue
		}
		why := "no output file here holds its question and model"
		for _, k := range held[question{v.Sheet, v.Question, v.Model, v.N}] {
			why = "the answer changed"
			if k.Truth != v.Truth {
				why = "the truth changed"
				break
			}
		}
		out = append(out, Stale{Verdict: v, Path: fd.verdicts.Path, Why: why})
	}
	return out
}
