package grade

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/evalmd/evalmd/model"
)

// Options configure the graders New builds. A grader ignores the options
// that do not concern it.
type Options struct {
	// Liberal turns on LIME's liberal grading (grader.py -l) for "lime":
	// a completion that starts with the ground truth's first character
	// counts as correct.
	Liberal bool
	// JudgeOptions configure the "judge" grader.
	JudgeOptions
}

// JudgeOptions configure the "judge" grader. Nothing in them comes from the
// model under test: the judge has its own server, key and settings.
type JudgeOptions struct {
	// Judge is the model the "judge" grader asks. Required for "judge".
	Judge model.Model
	// JudgeTemplate picks the judge's prompt: "dsbench" (DSBench's
	// compute_answer.py), "inspect" (Inspect AI's model_graded_qa default),
	// or a template text of one's own using Inspect's placeholders
	// {question}, {answer}, {criterion} and {instructions}. A question's
	// "judge_template" meta overrides it; when both are empty, questions of
	// a DSBench sheet (meta benchmark: dsbench) get "dsbench" and the
	// others "inspect".
	JudgeTemplate string
	// JudgeMaxTokens bounds the judge's reply; 0 means the template's
	// default (DSBench's 256; 1024 for Inspect's, which reasons first).
	JudgeMaxTokens int
}

// Names lists the grader names New accepts, sorted.
func Names() []string {
	n := []string{"lime", "choice", "exact", "numeric", "dabench", "databench", "databench-semeval", "judge"}
	sort.Strings(n)
	return n
}

// New returns the grader registered under name. The table is a switch, not
// a mutable registry, so nothing can change it behind a caller's back.
func New(name string, opt Options) (Grader, error) {
	switch strings.ToLower(strings.TrimSpace(name)) {
	case "lime":
		return newLime(opt), nil
	case "choice":
		return newChoice(opt), nil
	case "exact":
		return newExact(opt), nil
	case "numeric":
		return newNumeric(opt), nil
	case "dabench":
		return newDABench(opt), nil
	case "databench":
		return newDataBench(opt, false), nil
	case "databench-semeval":
		return newDataBench(opt, true), nil
	case "judge":
		return newJudge(opt)
	}
	return nil, fmt.Errorf("unknown grader %q (known: %s)", name, strings.Join(Names(), ", "))
}

// Select names the grader for a question: the override (a command-line
// flag) when set, else the question's "grader" meta, else "lime", LIME's
// only rule, so LIME's own files regrade as LIME grades them.
func Select(meta map[string]string, override string) string {
	if s := strings.TrimSpace(override); s != "" {
		return s
	}
	if s := strings.TrimSpace(meta["grader"]); s != "" {
		return s
	}
	return "lime"
}

// Nullable grades a question whose ground truth or completion may be
// missing (null in an output file): either missing gives a null verdict
// without asking g, which is what LIME writes for a question without an
// answer. (LIME's grader.py crashes on a null completion; a null grade is
// the honest reading of "not answered".)
func Nullable(ctx context.Context, g Grader, truth, completion *string, in Input) (Verdict, error) {
	if truth == nil {
		return Verdict{Detail: "no ground truth"}, nil
	}
	if completion == nil {
		return Verdict{Detail: "no completion"}, nil
	}
	in.Truth, in.Completion = *truth, *completion
	return g.Grade(ctx, in)
}
