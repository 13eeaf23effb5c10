package result

// The grading modes (the grading setting's values): strict is LIME's rule,
// liberal its -l, which the lime grader reads.
const (
	GradingStrict  = "strict"
	GradingLiberal = "liberal"
)

// GradingFromFlag is the GradingFrom of a mode given by a command's flag
// (run --grading, grade -l or --grading).
const GradingFromFlag = "flag"

// Liberal says the question is graded liberally.
func (q *Question) Liberal() bool { return q.Grading == GradingLiberal }

// SetGrading gives q the grading mode resolved for it now: mode set by
// from (a source's name, "" when no source set it, the mode then being
// the default, strict). One rule keeps what a person said: when no
// source sets a mode now and q was graded in a mode a flag gave it (run
// --grading, grade -l -w), q keeps that mode, which no later file or
// meta said; a source that sets one now wins. It reports whether q keeps
// its own.
func (q *Question) SetGrading(mode, from string) (kept bool) {
	if from == "" && q.GradingFrom == GradingFromFlag {
		return true
	}
	q.Grading, q.GradingFrom = mode, from
	if from == "" {
		q.Grading = ""
	}
	return false
}
