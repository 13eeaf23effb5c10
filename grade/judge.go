package grade

import (
	"context"
	"fmt"
	"regexp"
	"strings"

	"github.com/evalmd/evalmd/model"
)

// judgeDSBenchPrompt is DSBench's judge prompt (data_analysis/
// compute_answer.py, evaluate_prediction), reproduced byte for byte with its
// typo ("Flase") and its odd spacing around the newlines, since the judge's
// verdicts depend on the exact text. {question} is the question, {answer}
// the true answer and {prediction} the model's answer.
const judgeDSBenchPrompt = "Please judge whether the generated answer is right or wrong. We require that the correct answer " +
	"to the prediction gives a clear answer, not just a calculation process or a disassembly of ideas. " +
	"The question is {question}. The true answer is \n {answer}. \n The predicted answer is \n {prediction}.\n " +
	"If the predicted answer is right, please output True. Otherwise output Flase. " +
	"Don't output any other text content. You only can output True or False."

// judgeInspectTemplate is Inspect AI's DEFAULT_MODEL_GRADED_QA_TEMPLATE
// (inspect_ai/scorer/_model.py). {question} is the question, {answer} the
// model's answer, {criterion} the ground truth, {instructions}
// judgeInspectInstructions.
const judgeInspectTemplate = `
You are assessing a submitted answer on a given task based on a criterion. Here is the data:

[BEGIN DATA]
***
[Task]: {question}
***
[Submission]: {answer}
***
[Criterion]: {criterion}
***
[END DATA]

Does the submission meet the criterion?

{instructions}
`

// judgeInspectInstructions is Inspect AI's default_instructions(partial_credit=False).
const judgeInspectInstructions = `
After assessing the submitted answer, reply with 'GRADE: $LETTER' (without quotes) where LETTER is one of CI.  Please choose ONE option for the grade: either "C" for correct answers, or "I" for incorrect answers.

For example, after reviewing a correct answer you might write 'GRADE: C' or after reviewing an incorrect answer you might write 'GRADE: I'.

First, write out in a step by step manner your reasoning about the criterion to be sure that your conclusion is correct. Avoid simply stating the correct answers at the outset. Then, end with your answer formatted as 'GRADE: $LETTER' (without quotes) where LETTER is one of CI.
`

// judgeGradeRe is Inspect's DEFAULT_GRADE_PATTERN r"(?i)GRADE\s*:\s*([CPI])(.*)$"
// as Python's re.search reads it: \s is Unicode white space, case folding
// lets 'ı' and 'İ' match I, and $ also matches before a final newline, so
// the grade must sit on the reply's last line.
var judgeGradeRe = regexp.MustCompile(`(?i)GRADE[\s\x0b\x1c-\x1f\x85\p{Z}]*:[\s\x0b\x1c-\x1f\x85\p{Z}]*([CPIİı])([^\n]*)\n?$`)

// judge asks a model whether the completion is right, with DSBench's prompt
// or Inspect AI's model_graded_qa template.
//
// DSBench: one user message, temperature 0, top_p 1, max_tokens 256; the
// verdict is DSBench's own test, `"true" in reply.lower()` (so "not true"
// counts as true, a quirk kept for parity). DSBench scores a failed judge
// call as False; here the error is returned, so a flaky judge is retried
// or reported rather than silently counted wrong.
//
// Inspect: the template formatted with the default instructions, sent as
// one user message with the model's default settings but max_tokens
// (inspectJudgeMaxTokens, or the judge's own); the grade is the
// first "GRADE: X" on the reply's last line; only "C" is correct (Inspect's
// accuracy scores "P" 0.5 and a lower-case "c" 0, as it does any value it
// does not know); no grade found is incorrect, as in Inspect.
//
// The question shown to the judge is the question's "judge_question" meta
// when set, else the question's own text (DSBench showed its judge the
// question file, not the whole prompt with workbook text), else the user
// message that was sent.
type judge struct {
	m           model.Model
	template    string
	maxTokens   int
	byBenchmark map[string]string // JudgeOptions.byBenchmark
}

// inspectJudgeMaxTokens is the judge's max_tokens with Inspect's template
// when none is given: room for the step-by-step reasoning it asks for.
const inspectJudgeMaxTokens = 1024

// dsbenchJudgeMaxTokens is DSBench's own max_tokens for its judge.
const dsbenchJudgeMaxTokens = 256

// NoJudge is the grade_detail of a question the judge grader leaves
// ungraded (null) because no judge model was given.
const NoJudge = "not graded: no judge model given (--judge MODEL)"

// Identical is the grade_detail of a completion the judge grader counts as
// right without asking the judge.
const Identical = "identical to the ground truth (white space trimmed): right, no judge call made"

// newJudge builds the judge grader. Without a judge model it still grades
// what needs no call (Identical) and leaves the rest null (NoJudge): a
// run of DSBench's sheets with an offline model, or without a judge at
// hand, is graded later with grade --judge.
func newJudge(opt Options) (Grader, error) {
	return judge{m: opt.Judge, template: opt.JudgeTemplate, maxTokens: opt.JudgeMaxTokens, byBenchmark: opt.byBenchmark}, nil
}

// Name is "judge".
func (judge) Name() string { return "judge" }

// Grade asks the judge model. A completion identical to the truth, white
// space trimmed, is right without a call: DSBench's judge, shown the same
// text as answer and prediction, says True.
func (j judge) Grade(ctx context.Context, in Input) (Verdict, error) {
	if strings.TrimSpace(in.Completion) == strings.TrimSpace(in.Truth) {
		return Verdict{Correct: Bool(true), Detail: Identical}, nil
	}
	if j.m == nil {
		return Verdict{Detail: NoJudge}, nil
	}
	question := in.Question
	if in.QuestionText != "" {
		question = in.QuestionText
	}
	if q, ok := in.Meta["judge_question"]; ok {
		question = q
	}
	tmpl := j.template
	if t := strings.TrimSpace(in.Meta["judge_template"]); t != "" {
		tmpl = t
	}
	if strings.TrimSpace(tmpl) == "" {
		tmpl = j.byBenchmark[strings.ToLower(strings.TrimSpace(in.Meta["benchmark"]))]
	}
	var req model.Request
	kind := strings.ToLower(strings.TrimSpace(tmpl))
	switch kind {
	case "dsbench":
		zero, one := 0.0, 1.0
		req.Settings = model.Settings{Temperature: &zero, TopP: &one, MaxTokens: dsbenchJudgeMaxTokens}
		req.Messages = []model.Message{{Role: "user", Content: judgeFormat(judgeDSBenchPrompt, map[string]string{
			"question": question, "answer": in.Truth, "prediction": in.Completion})}}
	case "", "inspect":
		kind = "inspect"
		tmpl = judgeInspectTemplate
		fallthrough
	default:
		if kind != "inspect" {
			kind = "custom"
		}
		req.Messages = []model.Message{{Role: "user", Content: judgeFormat(tmpl, map[string]string{
			"question": question, "answer": in.Completion, "criterion": in.Truth,
			"instructions": judgeInspectInstructions})}}
		req.Settings.MaxTokens = inspectJudgeMaxTokens
	}
	if j.maxTokens > 0 {
		req.Settings.MaxTokens = j.maxTokens
	}
	resp, err := j.m.Complete(ctx, req)
	if err != nil {
		return Verdict{}, fmt.Errorf("judge %s: %w", j.m.Name(), err)
	}
	// A reasoning judge's <think> block is not its verdict ("true" in
	// DSBench's thinking would count).
	resp = model.SplitThink(resp, model.ThinkAuto)
	var ok bool
	var verdict string
	if kind == "dsbench" {
		ok = strings.Contains(strings.ToLower(resp.Text), "true")
		verdict = fmt.Sprintf("%t (reply contains \"true\": %t)", ok, ok)
	} else {
		m := judgeGradeRe.FindStringSubmatch(resp.Text)
		switch {
		case m == nil:
			verdict = "incorrect (grade not found in judge reply)"
		case m[1] == "C":
			ok, verdict = true, "GRADE: C"
		case m[1] == "P":
			verdict = "GRADE: P (partial; Inspect scores 0.5, counted incorrect here)"
		default:
			verdict = "GRADE: " + m[1]
		}
	}
	return Verdict{Correct: Bool(ok), Detail: fmt.Sprintf("judge %s (%s): %s; reply: %q", j.m.Name(), kind, verdict, resp.Text)}, nil
}

// judgeFormat fills a template's {name} placeholders from vars, in one pass
// the way Python's str.format does: "{{" and "}}" stand for braces, a
// placeholder not in vars stays as written, and text substituted in is never
// scanned again (a completion containing "{criterion}" cannot leak the
// truth).
func judgeFormat(tmpl string, vars map[string]string) string {
	var b strings.Builder
	b.Grow(len(tmpl))
	for i := 0; i < len(tmpl); {
		c := tmpl[i]
		switch {
		case c == '{' && i+1 < len(tmpl) && tmpl[i+1] == '{':
			b.WriteByte('{')
			i += 2
		case c == '}' && i+1 < len(tmpl) && tmpl[i+1] == '}':
			b.WriteByte('}')
			i += 2
		case c == '{':
			end := strings.IndexByte(tmpl[i:], '}')
			if end > 0 {
				if v, ok := vars[tmpl[i+1:i+end]]; ok {
					b.WriteString(v)
					i += end + 1
					continue
				}
			}
			b.WriteByte(c)
			i++
		default:
			b.WriteByte(c)
			i++
		}
	}
	return b.String()
}
