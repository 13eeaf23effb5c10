package regrade

import (
	"context"
	"fmt"
	"strings"

	"github.com/evalmd/evalmd/grade"
	"github.com/evalmd/evalmd/result"
	"github.com/evalmd/evalmd/sheet"
)

// alsoGrader is one grader the also_grade meta names: a verdict recorded
// beside the grade, never in its place (DSBench's dict answers are graded
// by the judge and also by json, the judge shown what it was shown before).
type alsoGrader struct {
	name string
	gr   grade.Grader
	err  error
}

// alsoGraders are the graders of q's also_grade meta (names separated by
// commas), built once each.
func (g *Graders) alsoGraders(q *result.Question, sheetMeta map[string]string) []alsoGrader {
	var out []alsoGrader
	for _, name := range strings.Split(sheet.Steering(q.MetaData, sheetMeta)["also_grade"], ",") {
		if name = strings.TrimSpace(name); name == "" {
			continue
		}
		gr, err := g.Get(name, q.Liberal())
		if gr != nil {
			name = gr.Name()
		}
		out = append(out, alsoGrader{name: name, gr: gr, err: err})
	}
	return out
}

// checkAlso says why an also_grade grader cannot grade q, before it is
// answered, as Check says it of the grade's grader.
func checkAlso(also []alsoGrader, q *result.Question, in grade.Input) error {
	for _, a := range also {
		err := a.err
		if err == nil {
			if err = grade.Check(a.gr, q.GroundTruth, in); err == nil {
				err = checkAccepted(a.gr, q, in)
			}
		}
		if err != nil {
			return &grade.MetaError{Key: "also_grade", Err: fmt.Errorf("also_grade %s: %w", a.name, err)}
		}
	}
	return nil
}

// gradeAlso is the verdicts of the also_grade graders on q's answer, each
// taking the accepted answers as the grade's grader does; a grader that
// fails is a null grade saying why. The error is only ctx's.
func gradeAlso(ctx context.Context, f *result.File, q *result.Question, also []alsoGrader, in grade.Input) ([]result.AlsoGrade, error) {
	var out []result.AlsoGrade
	for _, a := range also {
		v, err := grade.Verdict{}, a.err
		if err == nil {
			v, err = grade.Nullable(ctx, a.gr, q.GroundTruth, graded(f, q), in)
			v, err = orAccepted(ctx, a.gr, q, graded(f, q), in, v, err)
		}
		if err != nil && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if err != nil {
			v = grade.Verdict{Detail: "grader error: " + oneLine(err).Error()}
		}
		out = append(out, result.AlsoGrade{Grader: a.name, Grade: v.Correct, Detail: v.Detail})
	}
	return out, nil
}
