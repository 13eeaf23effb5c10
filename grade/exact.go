package grade

import (
	"context"
	"fmt"
	"strings"
)

// exact grades by normalised string equality: both texts are trimmed, every
// run of white space becomes one space, and the comparison ignores case
// (Unicode simple case folding, strings.EqualFold). Nothing else is
// forgiven: punctuation, a trailing period and extra words all make a
// completion wrong, which is what a typed answer ("Paris", "2019-03") asks
// for.
type exact struct{}

func newExact(Options) Grader { return exact{} }

// Name is "exact".
func (exact) Name() string { return "exact" }

// Check refuses a ground truth of white space alone.
func (exact) Check(in Input) error {
	if exactNorm(in.Truth) == "" {
		return errNoTruth
	}
	return nil
}

// Grade compares the normalised completion with the normalised truth.
func (exact) Grade(_ context.Context, in Input) (Verdict, error) {
	got, want := exactNorm(in.Completion), exactNorm(in.Truth)
	if want == "" {
		return Verdict{Detail: errNoTruth.Error()}, nil
	}
	ok := strings.EqualFold(got, want)
	return Verdict{Correct: Bool(ok), Detail: fmt.Sprintf("exact: %q vs %q", choiceClip(got), choiceClip(want))}, nil
}

// exactNorm trims s and collapses each run of white space to one space.
func exactNorm(s string) string { return strings.Join(strings.Fields(s), " ") }
