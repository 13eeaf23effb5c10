package grade

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/evalmd/evalmd/model"
)

// fakeJudge is an in-process judge model: it records the request and
// answers with a fixed reply.
type fakeJudge struct {
	mu    sync.Mutex
	reply string
	err   error
	got   []model.Request
}

func (f *fakeJudge) Name() string     { return "fake/judge" }
func (f *fakeJudge) Info() model.Info { return model.Info{Provider: "fake"} }

func (f *fakeJudge) Complete(ctx context.Context, req model.Request) (model.Response, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.got = append(f.got, req)
	if err := ctx.Err(); err != nil {
		return model.Response{}, err
	}
	return model.Response{Text: f.reply}, f.err
}

func TestJudgeDSBenchPrompt(t *testing.T) {
	m := &fakeJudge{reply: "True"}
	g, err := newJudge(Options{JudgeOptions: JudgeOptions{Judge: m, JudgeTemplate: "dsbench"}})
	if err != nil {
		t.Fatal(err)
	}
	v, err := g.Grade(context.Background(), Input{Question: "What is the NPV?", Truth: "1661626", Completion: "The NPV is $1,661,626."})
	if err != nil {
		t.Fatal(err)
	}
	if v.Correct == nil || !*v.Correct {
		t.Errorf("got %s, want true", limeFmtBool(v.Correct))
	}
	want := "Please judge whether the generated answer is right or wrong. We require that the correct answer to the prediction gives a clear answer, not just a calculation process or a disassembly of ideas. The question is What is the NPV?. The true answer is \n 1661626. \n The predicted answer is \n The NPV is $1,661,626..\n If the predicted answer is right, please output True. Otherwise output Flase. Don't output any other text content. You only can output True or False."
	req := m.got[0]
	if len(req.Messages) != 1 || req.Messages[0].Role != "user" || req.Messages[0].Content != want {
		t.Errorf("prompt:\n%q\nwant\n%q", req.Messages[0].Content, want)
	}
	if s := req.Settings; s.Temperature == nil || *s.Temperature != 0 || s.TopP == nil || *s.TopP != 1 || s.MaxTokens != 256 {
		t.Errorf("settings %+v, want temperature 0, top_p 1, max_tokens 256", s)
	}
	if !strings.Contains(v.Detail, `"True"`) {
		t.Errorf("detail %q does not keep the reply", v.Detail)
	}
}

func TestJudgeVerdicts(t *testing.T) {
	tests := []struct {
		template, reply string
		want            bool
	}{
		{"dsbench", "True", true},
		{"dsbench", "False", false},
		{"dsbench", "TRUE.", true},
		{"dsbench", "Flase", false},
		{"dsbench", "It is not true.", true}, // DSBench's `"true" in reply.lower()`
		{"inspect", "The submission matches.\nGRADE: C", true},
		{"inspect", "Reasoning...\nGRADE: I", false},
		{"inspect", "GRADE: C\n", true},                    // $ matches before a final newline
		{"inspect", "GRADE: C\nThat is my grade.", false},  // not on the last line: not found
		{"inspect", "GRADE: I first\nthen GRADE: C", true}, // only the last line can match
		{"inspect", "grade: c", false},                     // Inspect scores lower-case "c" as 0
		{"inspect", "GRADE: P", false},                     // partial
		{"inspect", "no grade here", false},                // not found: incorrect
		{"inspect", "GRADE:\u00a0C", true},                 // Unicode white space
		{"", "GRADE: C", true},                             // default template is Inspect's
		// A reasoning judge's thinking is not its verdict.
		{"dsbench", "<think>Is it true? No.</think>\nFalse", false},
		{"inspect", "<think>GRADE: C?\n</think>\nGRADE: I", false},
	}
	for _, tt := range tests {
		m := &fakeJudge{reply: tt.reply}
		g, err := newJudge(Options{JudgeOptions: JudgeOptions{Judge: m, JudgeTemplate: tt.template}})
		if err != nil {
			t.Fatal(err)
		}
		v, err := g.Grade(context.Background(), Input{Question: "q", Truth: "t", Completion: "c"})
		if err != nil {
			t.Fatal(err)
		}
		if v.Correct == nil || *v.Correct != tt.want {
			t.Errorf("%s reply %q: got %s, want %t (%s)", tt.template, tt.reply, limeFmtBool(v.Correct), tt.want, v.Detail)
		}
	}
}

func TestJudgeInspectPrompt(t *testing.T) {
	m := &fakeJudge{reply: "GRADE: C"}
	g, _ := newJudge(Options{JudgeOptions: JudgeOptions{Judge: m}})
	_, err := g.Grade(context.Background(), Input{Question: "2+2?", Truth: "4", Completion: "four {criterion}"})
	if err != nil {
		t.Fatal(err)
	}
	p := m.got[0].Messages[0].Content
	for _, s := range []string{
		"\nYou are assessing a submitted answer on a given task based on a criterion. Here is the data:\n\n[BEGIN DATA]\n***\n[Task]: 2+2?\n***\n[Submission]: four {criterion}\n***\n[Criterion]: 4\n***\n[END DATA]\n\nDoes the submission meet the criterion?\n\n\nAfter assessing",
		"where LETTER is one of CI.  Please choose ONE option for the grade: either \"C\" for correct answers, or \"I\" for incorrect answers.",
		"LETTER is one of CI.\n\n",
	} {
		if !strings.Contains(p, s) {
			t.Errorf("prompt lacks %q:\n%s", s, p)
		}
	}
	if !strings.HasSuffix(p, "one of CI.\n\n") {
		t.Errorf("prompt end %q", p[len(p)-20:])
	}
	if m.got[0].Settings.Temperature != nil {
		t.Errorf("inspect template should use the model's default settings")
	}
	// But a bounded reply: a local server would otherwise generate to its
	// context's end.
	if got := m.got[0].Settings.MaxTokens; got != inspectJudgeMaxTokens {
		t.Errorf("judge max_tokens = %d, want %d", got, inspectJudgeMaxTokens)
	}
}

// A benchmark's questions are judged with its template (DSBench's, set on
// the registry by the benchmark, not known to the grader) unless told
// otherwise; --judge-max-tokens bounds every judge request.
func TestJudgeTemplateAndMaxTokensDefaults(t *testing.T) {
	for _, tc := range []struct {
		opt       JudgeOptions
		meta      map[string]string
		wantDS    bool
		maxTokens int
	}{
		{meta: map[string]string{"benchmark": "dsbench"}, wantDS: true, maxTokens: dsbenchJudgeMaxTokens},
		{meta: nil, wantDS: false, maxTokens: inspectJudgeMaxTokens},
		{meta: map[string]string{"benchmark": "toy"}, wantDS: true, maxTokens: dsbenchJudgeMaxTokens},
		{meta: map[string]string{"benchmark": "other"}, wantDS: false, maxTokens: inspectJudgeMaxTokens},
		{opt: JudgeOptions{JudgeTemplate: "inspect"}, meta: map[string]string{"benchmark": "dsbench"}, maxTokens: inspectJudgeMaxTokens},
		{opt: JudgeOptions{JudgeMaxTokens: 77}, meta: map[string]string{"benchmark": "dsbench"}, wantDS: true, maxTokens: 77},
		{opt: JudgeOptions{JudgeMaxTokens: 99}, maxTokens: 99},
	} {
		m := &fakeJudge{reply: "True"}
		opt := tc.opt
		opt.Judge = m
		r := NewRegistry()
		r.SetJudgeTemplate("DSBench", "dsbench")
		r.SetJudgeTemplate("toy", "dsbench") // a benchmark the grader has never heard of
		g, err := r.New("judge", Options{JudgeOptions: opt})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := g.Grade(context.Background(), Input{Question: "q", Truth: "4", Completion: "four", Meta: tc.meta}); err != nil {
			t.Fatal(err)
		}
		req := m.got[0]
		isDS := strings.HasPrefix(req.Messages[0].Content, "Please judge whether")
		if isDS != tc.wantDS || req.Settings.MaxTokens != tc.maxTokens {
			t.Errorf("%+v meta %v: dsbench %v max_tokens %d, want %v %d", tc.opt, tc.meta, isDS, req.Settings.MaxTokens, tc.wantDS, tc.maxTokens)
		}
	}
}

// A completion identical to the truth, white space trimmed, is right
// without a call, as DSBench's judge would say, and the grade says no call
// was made; without a judge model any other completion is left null,
// saying why, and the grader builds.
func TestJudgeIdenticalAndNoModel(t *testing.T) {
	m := &fakeJudge{reply: "False"}
	with, _ := newJudge(Options{JudgeOptions: JudgeOptions{Judge: m}})
	without, err := newJudge(Options{})
	if err != nil {
		t.Fatalf("judge without a model: %v", err)
	}
	for _, g := range []Grader{with, without} {
		v, err := g.Grade(context.Background(), Input{Truth: "1661626\n", Completion: "  1661626 "})
		if err != nil || v.Correct == nil || !*v.Correct || v.Detail != Identical {
			t.Errorf("identical: %s %q %v", limeFmtBool(v.Correct), v.Detail, err)
		}
	}
	if len(m.got) != 0 {
		t.Errorf("judge asked %d times for an identical completion", len(m.got))
	}
	v, err := without.Grade(context.Background(), Input{Truth: "1661626", Completion: "The NPV is 1,661,626"})
	if err != nil || v.Correct != nil || v.Detail != NoJudge {
		t.Errorf("no judge: %s %q %v", limeFmtBool(v.Correct), v.Detail, err)
	}
	if v, err := with.Grade(context.Background(), Input{Truth: "1661626", Completion: "1661626.0"}); err != nil || v.Correct == nil || *v.Correct || len(m.got) != 1 {
		t.Errorf("a different completion: %s %v, %d calls", limeFmtBool(v.Correct), err, len(m.got))
	}
}

func TestJudgeMetaAndErrors(t *testing.T) {
	m := &fakeJudge{reply: "True"}
	g, _ := newJudge(Options{JudgeOptions: JudgeOptions{Judge: m}})
	v, err := g.Grade(context.Background(), Input{Question: "long prompt with workbook", Truth: "1", Completion: "one",
		Meta: map[string]string{"judge_template": "dsbench", "judge_question": "short question"}})
	if err != nil || v.Correct == nil || !*v.Correct {
		t.Fatalf("meta dsbench: %s, %v", limeFmtBool(v.Correct), err)
	}
	if !strings.Contains(m.got[0].Messages[0].Content, "The question is short question.") {
		t.Errorf("judge_question not used: %q", m.got[0].Messages[0].Content)
	}
	m = &fakeJudge{err: errors.New("boom")}
	g, _ = newJudge(Options{JudgeOptions: JudgeOptions{Judge: m}})
	if _, err := g.Grade(context.Background(), Input{Truth: "1", Completion: "one"}); err == nil || !strings.Contains(err.Error(), "boom") {
		t.Errorf("judge error not returned: %v", err)
	}
	custom := &fakeJudge{reply: "GRADE: C"}
	g, _ = newJudge(Options{JudgeOptions: JudgeOptions{Judge: custom, JudgeTemplate: "Q={question} A={answer} T={criterion} {{x}} {other}"}})
	if _, err := g.Grade(context.Background(), Input{Question: "q", Truth: "t", Completion: "a"}); err != nil {
		t.Fatal(err)
	}
	if got := custom.got[0].Messages[0].Content; got != "Q=q A=a T=t {x} {other}" {
		t.Errorf("custom template gave %q", got)
	}
}

func TestJudgeFormat(t *testing.T) {
	tests := []struct{ tmpl, want string }{
		{"{a}-{b}", "1-{a}"},
		{"{{a}}", "{a}"},
		{"{", "{"},
		{"}", "}"},
		{"{c}", "{c}"},
	}
	for _, tt := range tests {
		if got := judgeFormat(tt.tmpl, map[string]string{"a": "1", "b": "{a}"}); got != tt.want {
			t.Errorf("judgeFormat(%q) = %q, want %q", tt.tmpl, got, tt.want)
		}
	}
}

func FuzzJudgeGrade(f *testing.F) {
	for _, s := range []string{"GRADE: C", "grade : i\n", "GRADE: ı", "True", "\xff"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, reply string) {
		for _, tmpl := range []string{"dsbench", "inspect"} {
			g, _ := newJudge(Options{JudgeOptions: JudgeOptions{Judge: &fakeJudge{reply: reply}, JudgeTemplate: tmpl}})
			v, err := g.Grade(context.Background(), Input{Truth: "1", Completion: "one"})
			if err != nil || v.Correct == nil {
				t.Fatalf("%s %q: %v %v", tmpl, reply, v.Correct, err)
			}
			if tmpl == "inspect" && *v.Correct && !strings.Contains(reply, "C") {
				t.Fatalf("correct without a C in %q", reply)
			}
		}
	})
}

// The judge is shown the question's own text rather than a long templated
// message, and judge_question meta overrides both.
func TestJudgeQuestionText(t *testing.T) {
	for _, tc := range []struct {
		in   Input
		want string
	}{
		{Input{Question: "INTRO + WORKBOOK + Q?", QuestionText: "Q?"}, "The question is Q?."},
		{Input{Question: "whole message"}, "The question is whole message."},
		{Input{Question: "x", QuestionText: "Q?", Meta: map[string]string{"judge_question": "Meta Q"}}, "The question is Meta Q."},
	} {
		m := &fakeJudge{reply: "True"}
		g, _ := newJudge(Options{JudgeOptions: JudgeOptions{Judge: m, JudgeTemplate: "dsbench"}})
		tc.in.Truth, tc.in.Completion = "1", "one"
		if _, err := g.Grade(context.Background(), tc.in); err != nil {
			t.Fatal(err)
		}
		if got := m.got[0].Messages[0].Content; !strings.Contains(got, tc.want) || strings.Contains(got, "WORKBOOK") {
			t.Errorf("%+v: judge saw %q", tc.in, got)
		}
	}
}
