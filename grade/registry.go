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
	// Scripts runs the "script" grader's programs (the run's sandbox:
	// sandbox.Config.RunScript); nil: that grader refuses every question.
	Scripts ScriptRunner
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
	// "judge_template" meta overrides it; when both are empty, a question
	// gets its benchmark's template (the Registry's, by its "benchmark"
	// meta: SetJudgeTemplate), else "inspect".
	JudgeTemplate string
	// JudgeMaxTokens bounds the judge's reply; 0 means the template's
	// default (DSBench's 256; 1024 for Inspect's, which reasons first).
	JudgeMaxTokens int

	// byBenchmark are the benchmarks' own templates, by lower-case
	// benchmark name, set by the Registry that builds the grader.
	byBenchmark map[string]string
}

// A Factory builds a grader from the options; it returns an error when the
// options lack what the grader needs (a judge model).
type Factory func(Options) (Grader, error)

// Registry names the graders a command knows. It is a value the command
// builds (NewRegistry, then Add for each benchmark's graders), not a global
// table, so two commands or two tests never see each other's graders.
type Registry struct {
	factories map[string]Factory
	// judgeTemplates are the judge's templates of the benchmarks that
	// have one (SetJudgeTemplate), by lower-case benchmark name.
	judgeTemplates map[string]string
}

// SetJudgeTemplate makes template the judge's prompt for the questions of
// a benchmark (their "benchmark" meta) that name none themselves and get
// none from JudgeOptions.JudgeTemplate: a benchmark's own judge prompt
// (DSBench's) is its choice, not the grader's.
func (r *Registry) SetJudgeTemplate(benchmark, template string) {
	if r.judgeTemplates == nil {
		r.judgeTemplates = map[string]string{}
	}
	r.judgeTemplates[strings.ToLower(strings.TrimSpace(benchmark))] = template
}

// NewRegistry returns a registry of this package's generic graders.
// Benchmark packages add their own with Add; Names lists what a registry
// holds.
func NewRegistry() *Registry {
	r := &Registry{factories: map[string]Factory{}}
	for name, f := range map[string]Factory{
		"lime":    func(o Options) (Grader, error) { return newLime(o), nil },
		"choice":  func(o Options) (Grader, error) { return newChoice(o), nil },
		"exact":   func(o Options) (Grader, error) { return newExact(o), nil },
		"numeric": func(o Options) (Grader, error) { return newNumeric(o), nil },
		"json":    func(o Options) (Grader, error) { return newJSON(o), nil },
		"regex":   func(o Options) (Grader, error) { return newRegex(o), nil },
		"script":  func(o Options) (Grader, error) { return newScript(o), nil },
		"judge":   newJudge,
	} {
		r.factories[name] = f
	}
	return r
}

// Add registers a grader under name (matched without regard to case or
// surrounding space). A name already taken is an error, so one benchmark
// cannot silently replace another's grader.
func (r *Registry) Add(name string, f Factory) error {
	key := strings.ToLower(strings.TrimSpace(name))
	switch {
	case key == "" || f == nil:
		return fmt.Errorf("grader %q: no name or no factory", name)
	case r.factories[key] != nil:
		return fmt.Errorf("grader %q registered twice", key)
	}
	r.factories[key] = f
	return nil
}

// Names lists the registered grader names, sorted.
func (r *Registry) Names() []string {
	n := make([]string, 0, len(r.factories))
	for k := range r.factories {
		n = append(n, k)
	}
	sort.Strings(n)
	return n
}

// Known says whether a grader is registered under name (matched as Add
// matches it), or why not: an error listing the names there are.
func (r *Registry) Known(name string) error {
	if r.factories[strings.ToLower(strings.TrimSpace(name))] != nil {
		return nil
	}
	return fmt.Errorf("unknown grader (known: %s)", strings.Join(r.Names(), ", "))
}

// New returns the grader registered under name.
func (r *Registry) New(name string, opt Options) (Grader, error) {
	if f := r.factories[strings.ToLower(strings.TrimSpace(name))]; f != nil {
		opt.byBenchmark = r.judgeTemplates
		return f(opt)
	}
	return nil, fmt.Errorf("unknown grader %q (known: %s)", name, strings.Join(r.Names(), ", "))
}

// GraderName names the grader for a question: the override (a command-line
// flag) when set, else the question's "grader" meta, else "lime", LIME's
// only rule, so LIME's own files regrade as LIME grades them.
func GraderName(meta map[string]string, override string) string {
	if s := strings.TrimSpace(override); s != "" {
		return s
	}
	if s := strings.TrimSpace(meta["grader"]); s != "" {
		return s
	}
	return "lime"
}

// Check says why g cannot grade a question whose ground truth is truth
// (nil: none) and whose meta is in's, before it is answered, or nil: it
// has no ground truth, or g, a Checker, cannot read the truth or meta.
func Check(g Grader, truth *string, in Input) error {
	if truth == nil {
		return errNoTruth
	}
	if c, ok := g.(Checker); ok {
		in.Truth = *truth
		return c.Check(in)
	}
	return nil
}

// Nullable grades a question whose ground truth or completion may be
// missing (null in an output file): either missing gives a null verdict
// without asking g, which is what LIME writes for a question without an
// answer. (LIME's grader.py crashes on a null completion; a null grade is
// the honest reading of "not answered".)
func Nullable(ctx context.Context, g Grader, truth, completion *string, in Input) (Verdict, error) {
	if truth == nil {
		return Verdict{Detail: errNoTruth.Error()}, nil
	}
	if completion == nil {
		return Verdict{Detail: "no completion"}, nil
	}
	in.Truth, in.Completion = *truth, *completion
	return g.Grade(ctx, in)
}
