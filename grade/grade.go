// Package grade decides whether a completion answers a question. It holds
// the generic rules, each a Grader in a file of its own, and the Registry
// that names them (NewRegistry's); a benchmark's own rules live in its
// package under benchmark/ and are added to the registry the command
// builds (benchmark/benchmarks), whose Names are every grader. A grader that can tell, before any
// answer, that it cannot grade a question (its truth or meta are not what
// it reads) is a Checker: Check asks it, and run asks it of every
// question before it asks a model anything; a MetaError names the meta
// key at fault, so run can point at its line.
//
// Besides LIME's rule, choice, exact and numeric, the graders read
// structured answers (json: the first JSON value or Python literal of a
// reply against the truth, recursively), regular expressions (regex: the
// "pattern" meta, found or matching the whole answer) and a sheet's own
// program (script), which runs confined by the ScriptRunner the command
// passes in Options.Scripts (sandbox.Config's RunScript): this package
// links no sandbox, since agg links it.
package grade

import (
	"context"
	"errors"
)

// Input is what a grader sees of one answered question.
type Input struct {
	Completion string
	Truth      string            // the ground truth text
	Meta       map[string]string // the question's meta (after the sheet cascade); may be nil
	Question   string            // the user message that was sent
	// QuestionText is the question's own text (LIME's question_usr), which
	// a judge is shown instead of a long templated message; "" if unknown.
	QuestionText string
	// SheetDir is the folder of the sheet the question is from, which the
	// script grader's "script" meta is relative to; "" if unknown.
	SheetDir string
}

// Verdict is a grader's decision on one question.
type Verdict struct {
	// Correct is nil when the question cannot be graded (no ground truth,
	// no completion); LIME writes null for those.
	Correct *bool
	// Detail says why, in a line a person reads (extracted answer, rule used).
	Detail string `json:",omitempty"`
	// Liberal says the completion is right only by liberal mode (LIME's
	// -l): strict grading calls it wrong. grade -l names such changes.
	Liberal bool `json:",omitempty"`
	// Parts holds sub-answer results for graders with several answers per
	// question (DABench's @name[value] pairs).
	Parts []SubAnswer `json:",omitempty"`
}

// SubAnswer is the result of one sub-answer.
type SubAnswer struct {
	Name    string `json:"name"`
	Want    string `json:"want"`
	Got     string `json:"got"`
	Found   bool   `json:"found"`
	Correct bool   `json:"correct"`
}

// Grader grades one question.
type Grader interface {
	// Name is the grader's registry name ("lime", "choice", ...).
	Name() string
	Grade(ctx context.Context, in Input) (Verdict, error)
}

// Checker is a Grader that can tell, before any answer is given, that it
// cannot grade a question: its ground truth or meta are not what the
// grader reads (no truth, a truth naming no option, a tolerance that is no
// number). Check's error says why, as the grade_detail of the null grade
// Grade would give. run checks every question so before asking anything.
type Checker interface {
	Check(in Input) error
}

// errNoTruth is the reason a question with an empty ground truth cannot
// be graded.
var errNoTruth = errors.New("no ground truth")

// Bool returns a pointer to b, for Verdict.Correct.
func Bool(b bool) *bool { return &b }

// MetaError is a Checker's error about one meta key (a pattern that does
// not compile, a tolerance that is no number), so that run can name the
// line the key is set on.
type MetaError struct {
	Key string // the meta key, as the sheet's meta lowercases it
	Err error
}

func (e *MetaError) Error() string { return e.Err.Error() }

func (e *MetaError) Unwrap() error { return e.Err }

// metaErr is err about meta key, or nil.
func metaErr(key string, err error) error {
	if err == nil {
		return nil
	}
	return &MetaError{Key: key, Err: err}
}
