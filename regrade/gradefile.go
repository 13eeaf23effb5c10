package regrade

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"sync"

	"github.com/evalmd/evalmd/grade"
	"github.com/evalmd/evalmd/model"
	"github.com/evalmd/evalmd/result"
	"github.com/evalmd/evalmd/sheet"
	"github.com/evalmd/evalmd/verdict"
)

// Graders builds each grader once, by name, for every file and question
// that names it. It is safe for concurrent use.
type Graders struct {
	reg      *grade.Registry
	opt      grade.Options
	override string

	mu     sync.Mutex
	byName map[string]built
}

type built struct {
	g   grade.Grader
	err error
}

// NewGraders returns the graders of one run or regrade: reg names them
// (nil: grade.NewRegistry(), the generic ones), opt configures them (the
// judge; each question's grading mode sets Liberal), override (--grader),
// when set, grades every question.
func NewGraders(reg *grade.Registry, opt grade.Options, override string) *Graders {
	if reg == nil {
		reg = grade.NewRegistry()
	}
	return &Graders{reg: reg, opt: opt, override: strings.TrimSpace(override), byName: map[string]built{}}
}

// Get returns the grader named name, liberal or not, building it on
// first use.
func (g *Graders) Get(name string, liberal bool) (grade.Grader, error) {
	key := strings.ToLower(strings.TrimSpace(name))
	if liberal {
		key += "\x00liberal"
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if b, ok := g.byName[key]; ok {
		return b.g, b.err
	}
	opt := g.opt
	opt.Liberal = liberal
	gr, err := g.reg.New(name, opt)
	g.byName[key] = built{gr, err}
	return gr, err
}

// Name names the grader of a question: the override, else the grader a
// run recorded for the question (run --grader X records X), else the
// "grader" meta of the question, else of the sheet, else "lime" (LIME's
// only rule, so LIME's own files regrade as LIME grades them).
func (g *Graders) Name(q *result.Question, sheetMeta map[string]string) string {
	if g.override != "" {
		return g.override
	}
	if s := strings.TrimSpace(q.Grader); s != "" {
		return s
	}
	return grade.GraderName(sheet.Steering(q.MetaData, sheetMeta), "")
}

// Check says why question q (of a file whose sheet meta is sheetMeta)
// cannot be graded, before it is answered, or nil: its grader cannot be
// built, it has no ground truth, or its grader cannot read its truth or
// meta (grade.Check). run refuses a sheet with such a question before it
// asks anything.
func (g *Graders) Check(q *result.Question, sheetMeta map[string]string) error {
	return g.CheckIn(q, &result.Sheet{MetaData: sheetMeta})
}

// CheckIn is Check of question q of a file whose sheet record is sh: its
// meta, and the sheet's file, whose folder a script grader's script is in.
func (g *Graders) CheckIn(q *result.Question, sh *result.Sheet) error {
	p := g.plan(q, sh.MetaData)
	if p.err != nil {
		return p.err
	}
	in := inputOf(q, sh)
	if err := grade.Check(p.gr, q.GroundTruth, in); err != nil {
		return err
	}
	if err := checkAccepted(p.gr, q, in); err != nil {
		return err
	}
	return checkAlso(p.also, q, in)
}

// inputOf is what a grader sees of q, a question of the file whose sheet
// record is sh, before its answer and truth are added.
func inputOf(q *result.Question, sh *result.Sheet) grade.Input {
	in := grade.Input{Meta: sheet.Steering(q.MetaData, sh.MetaData), Question: q.Question, QuestionText: q.QuestionUsr}
	if sh.SheetFile != "" {
		in.SheetDir = filepath.Dir(sh.SheetFile)
	}
	return in
}

// fileGrades is what grading did to one file.
type fileGrades struct {
	Old, New []*bool  // grades before and after, one per question
	Changes  []Change // the questions whose grade changed
	// Ungraded are the questions, by index, that could not be graded
	// (cannotGrade): their grade_detail says why.
	Ungraded []int
	// Reviewed counts the questions whose grade is a person's verdict.
	Reviewed int
}

// gradeFile grades every question of f in place, for grade. Every
// question's grader is resolved before any is asked (a judge's calls cost
// money). A question whose grader cannot be built or fails gets a null
// grade, its grader's name and "grader error: ..." in grade_detail; the
// others are graded. A question that ran and gave no answer (a limit
// stopped it: noAnswer) is wrong. The questions in bad cannot be graded for
// a reason of their own (a grading mode that is none), by index: each is
// graded null with that reason. The error is only ctx's.
func gradeFile(ctx context.Context, f *result.File, g *Graders, bad map[int]error, set *verdict.Set, only bool) (fileGrades, error) {
	var res fileGrades
	plans := make([]gradePlan, len(f.Questions))
	var occ []int
	if set.Len() > 0 {
		occ = verdict.Occurrences(f)
	}
	for i := range f.Questions {
		plans[i] = g.plan(&f.Questions[i], f.Sheet.MetaData)
		if err := bad[i]; err != nil {
			plans[i].why = err.Error()
		}
		if occ != nil {
			plans[i].verdicts = Verdicts{Set: set, N: occ[i]}
		}
		plans[i].verdictsOnly = only
	}
	seen := map[string]int{}
	for _, q := range f.Questions {
		seen[q.Name]++
	}
	for i := range f.Questions {
		q := &f.Questions[i]
		old := q.Grade
		v, ok, err := gradeOne(ctx, f, q, plans[i])
		if err != nil {
			return res, err
		}
		if !ok {
			res.Ungraded = append(res.Ungraded, i)
		}
		res.Old = append(res.Old, old)
		res.New = append(res.New, q.Grade)
		if q.Review != nil {
			res.Reviewed++
		}
		if fmtGrade(old) != fmtGrade(q.Grade) {
			c := Change{Name: q.Name, Question: i + 1, Repeated: seen[q.Name] > 1,
				Old: old, New: q.Grade, Grader: plans[i].name, Detail: v.Detail, Liberal: v.Liberal && q.Review == nil}
			if q.Review != nil {
				c.By = q.Review.By
			}
			res.Changes = append(res.Changes, c)
		}
	}
	return res, nil
}

// GradeQuestion grades q, a question of f (held in f.Questions or
// apart: only f's sheet record is read), in place, as gradeFile grades
// each of its questions; run grades each question as its answer comes in.
// A verdict of vs on its answer outranks the grader.
// ok is false when its grader could not be built or failed (a null grade,
// the reason in grade_detail). The error is only ctx's.
func GradeQuestion(ctx context.Context, f *result.File, q *result.Question, g *Graders, vs Verdicts) (ok bool, err error) {
	p := g.plan(q, f.Sheet.MetaData)
	p.verdicts = vs
	_, ok, err = gradeOne(ctx, f, q, p)
	return ok, err
}

// gradePlan is a question's grader, resolved before any question is
// graded; why, when set, says why the question cannot be graded at all.
type gradePlan struct {
	name string
	gr   grade.Grader
	err  error
	why  string
	// verdicts may cover the answer; verdictsOnly keeps the grader's
	// recorded grade instead of grading again (ApplyVerdicts).
	verdicts     Verdicts
	verdictsOnly bool
	// also are the graders whose verdicts are recorded beside the grade
	// (the also_grade meta).
	also []alsoGrader
}

func (g *Graders) plan(q *result.Question, sheetMeta map[string]string) gradePlan {
	name := g.Name(q, sheetMeta)
	gr, err := g.Get(name, q.Liberal())
	if gr != nil {
		name = gr.Name()
	}
	return gradePlan{name: name, gr: gr, err: err, also: g.alsoGraders(q, sheetMeta)}
}

// gradeOne grades q, a question of f, by p and records the verdict in it.
func gradeOne(ctx context.Context, f *result.File, q *result.Question, p gradePlan) (v grade.Verdict, ok bool, err error) {
	if err := ctx.Err(); err != nil {
		return v, false, err
	}
	if p.verdictsOnly {
		q.Grade = graderGrade(q)
		v.Correct = q.Grade
		applyVerdict(f, q, p.verdicts)
		return v, !cannotGrade(q), nil
	}
	gerr := p.err
	var also []result.AlsoGrade
	switch why := noAnswer(q); {
	case gerr != nil:
	case p.why != "":
		v = grade.Verdict{Detail: p.why}
	case why != "" && q.GroundTruth != nil:
		v = grade.Verdict{Correct: grade.Bool(false), Detail: why}
	default:
		in := inputOf(q, &f.Sheet)
		if cerr := grade.Check(p.gr, q.GroundTruth, in); cerr != nil {
			// Said as run says it before asking: the same reason.
			v = grade.Verdict{Detail: cerr.Error()}
			break
		}
		v, gerr = grade.Nullable(ctx, p.gr, q.GroundTruth, graded(f, q), in)
		v, gerr = orAccepted(ctx, p.gr, q, graded(f, q), in, v, gerr)
		if gerr != nil && ctx.Err() != nil {
			return v, false, ctx.Err()
		}
		if also, err = gradeAlso(ctx, f, q, p.also, in); err != nil {
			return v, false, err
		}
	}
	q.Grader, q.AlsoGraded = p.name, also
	q.SubAnswers = nil
	if gerr != nil {
		v = grade.Verdict{Detail: "grader error: " + oneLine(gerr).Error()}
	}
	q.Grade, q.GradeDetail = v.Correct, v.Detail
	for _, part := range v.Parts {
		q.SubAnswers = append(q.SubAnswers, result.SubAnswer(part))
	}
	applyVerdict(f, q, p.verdicts)
	return v, gerr == nil && !cannotGrade(q), nil
}

// cannotGrade says whether q, graded, could not be graded: it was answered
// (or has a ground truth to be answered against) and its grade is null,
// whatever the reason its grade_detail gives: no ground truth (a missing
// or misspelt answer section), a grader that failed or could not read its
// meta (a tolerance that is no number), a grading mode that is none. One
// rule for all: each is counted and named alike (UngradedError). A
// question that failed or had no answer is counted as such instead, and
// one never asked (a dry run's) asks for no grade.
func cannotGrade(q *result.Question) bool {
	return q.Grade == nil && q.Error == nil && !q.Unanswered && (q.GroundTruth != nil || q.Graded() != nil)
}

// graded is the text of q that is graded: q.Graded(), but of a chat
// answer only what follows its leading <think> blocks, by the think_tags
// rule the question ran with, as run grades a reply. A file written
// before evalmd kept reasoning apart holds the blocks in its completion;
// in one written since, the run split them off already, and splitting
// again leaves the recorded answer as it is, so the grade is the
// recorded answer's.
func graded(f *result.File, q *result.Question) *string { return GradedText(f, q) }

// GradedText is the text of q, a question of f, that its grader reads
// (graded's rule): what a verdict on its answer is keyed to.
func GradedText(f *result.File, q *result.Question) *string {
	text := q.Graded()
	if text == nil || q.Mode != "" || q.ReformatModel != "" {
		return text
	}
	answer := model.SplitThink(model.Response{Text: *text}, f.SolveSetting(q, "think_tags")).Text
	return &answer
}

// noAnswer says why a question that ran has no answer to grade, or "": its
// code (code mode) or its agent was stopped by a limit before it gave one.
// Such a question is wrong, in both modes, rather than left out of the
// accuracy: running out of memory or time is the answer's failing. Only
// the output file's fields are read, so a regrade runs no code.
func noAnswer(q *result.Question) string {
	if q.Limit == "" || q.Error != nil {
		return ""
	}
	if g := q.Graded(); g != nil && *g != "" {
		return ""
	}
	return "no answer: stopped by the " + q.Limit + " limit"
}

// GradeErrors is the error of the questions that could not be graded,
// or nil when there is none; where names the command.
func GradeErrors(where string, questions []Ungradable) error {
	if len(questions) == 0 {
		return nil
	}
	return &UngradedError{Where: where, Questions: questions}
}

// Ungradable is a question that cannot be graded: At is its place (its
// sheet's file and line, or its output file), Why the reason (its
// grade_detail, once graded).
type Ungradable struct {
	At, Name, Why string
}

// UngradedAt is question q, graded null at at, as an Ungradable.
func UngradedAt(at string, q *result.Question) Ungradable {
	return Ungradable{At: at, Name: q.Name, Why: q.GradeDetail}
}

func (u Ungradable) String() string { return fmt.Sprintf("%s: question %q: %s", u.At, u.Name, u.Why) }

// UngradedError is a run or regrade with questions that cannot be graded
// (see cannotGrade), each named with its place and reason, the first few
// of them. Found by grading, it is a partial failure: the work finished,
// those questions graded null. Found before anything was asked (Before:
// run's check of every question, Graders.Check), nothing was run.
type UngradedError struct {
	Where     string
	Questions []Ungradable
	Before    bool
}

// maxUngradedSaid bounds the questions an UngradedError names.
const maxUngradedSaid = 5

func (e *UngradedError) Error() string {
	n := len(e.Questions)
	if e.Before && n == 1 {
		// As a sheet is refused at a line (sheet.Doc.CheckComplete).
		u := e.Questions[0]
		return fmt.Sprintf("not run: %s: question %q cannot be graded: %s", u.At, u.Name, u.Why)
	}
	said := make([]string, min(n, maxUngradedSaid))
	for i := range said {
		said[i] = e.Questions[i].String()
	}
	more := ""
	if n > len(said) {
		more = fmt.Sprintf("; and %d more", n-len(said))
	}
	s := "s"
	if n == 1 {
		s = ""
	}
	if e.Before {
		return fmt.Sprintf("not run: %d questions cannot be graded: %s%s", n, strings.Join(said, "; "), more)
	}
	return fmt.Sprintf("%s: %d question%s could not be graded (grade null, the reason in grade_detail): %s%s", e.Where, n, s, strings.Join(said, "; "), more)
}

// Partial says the work finished with some questions left ungraded
// (not when nothing was run).
func (e *UngradedError) Partial() bool { return !e.Before }
