package regrade

import (
	"context"
	"fmt"

	"github.com/evalmd/evalmd/grade"
	"github.com/evalmd/evalmd/result"
)

// orAccepted is the verdict on an answer given v, its grader's verdict
// against the ground truth (gerr, the grader's error), once the answers
// the sheet also accepts (q.Accepted) are taken: an answer wrong against
// the truth is graded against each in turn, as if it were the truth, and
// is right by the first it matches, the detail naming it. Every grader
// that compares with a truth takes them, benchmarks' too; the judge does
// not (one call a question, not one per accepted answer).
func orAccepted(ctx context.Context, gr grade.Grader, q *result.Question, answer *string, in grade.Input, v grade.Verdict, gerr error) (grade.Verdict, error) {
	if gerr != nil || len(q.Accepted) == 0 || v.Correct == nil || *v.Correct || answer == nil || gr.Name() == "judge" {
		return v, gerr
	}
	for i, alt := range q.Accepted {
		if err := grade.Check(gr, &alt, in); err != nil {
			return grade.Verdict{Detail: fmt.Sprintf("accepted answer %d %q cannot be graded: %v", i+1, alt, err)}, nil
		}
		av, err := grade.Nullable(ctx, gr, &alt, answer, in)
		if err != nil {
			return av, fmt.Errorf("accepted answer %d: %w", i+1, err)
		}
		if av.Correct != nil && *av.Correct {
			av.Detail = fmt.Sprintf("accepted answer %d %q: %s", i+1, alt, av.Detail)
			return av, nil
		}
	}
	return v, nil
}

// checkAccepted says why a question's grader cannot grade against one of
// its accepted answers, before it is answered (see Graders.Check), or nil.
func checkAccepted(gr grade.Grader, q *result.Question, in grade.Input) error {
	if gr.Name() == "judge" {
		return nil
	}
	for i, alt := range q.Accepted {
		if err := grade.Check(gr, &alt, in); err != nil {
			return fmt.Errorf("accepted answer %d %q: %w", i+1, alt, err)
		}
	}
	return nil
}

// refreshAccepted is grade -i for accepted answers: the first output
// question of each name the sheet has takes the sheet's accepted answers
// (none when the sheet has none), as it takes its ground truth.
func refreshAccepted(f *result.File, s *SheetTruths) {
	done := map[string]bool{}
	for i := range f.Questions {
		q := &f.Questions[i]
		if _, ok := s.Truths[q.Name]; !ok || done[q.Name] {
			continue
		}
		done[q.Name] = true
		q.Accepted = s.Accepted[q.Name]
	}
}
