package agent

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/evalmd/evalmd/model"
	"github.com/evalmd/evalmd/sandbox"
)

// scripted is a model whose replies are given in order; it records the
// requests it was sent.
type scripted struct {
	mu      sync.Mutex
	replies []model.Response
	reqs    []model.Request
	block   bool // wait for ctx instead of answering
}

func (s *scripted) Name() string     { return "scripted" }
func (s *scripted) Info() model.Info { return model.Info{} }
func (s *scripted) Complete(ctx context.Context, req model.Request) (model.Response, error) {
	s.mu.Lock()
	s.reqs = append(s.reqs, req)
	n := len(s.reqs)
	s.mu.Unlock()
	if s.block {
		<-ctx.Done()
		return model.Response{}, ctx.Err()
	}
	if n > len(s.replies) {
		return s.replies[len(s.replies)-1], nil
	}
	return s.replies[n-1], nil
}

// fakeInterp answers each code with a scripted result and records it.
type fakeInterp struct {
	ran     []string
	results map[string]sandbox.Result
}

func (f *fakeInterp) Exec(ctx context.Context, code string) (sandbox.Result, error) {
	f.ran = append(f.ran, code)
	if r, ok := f.results[code]; ok {
		return r, nil
	}
	return sandbox.Result{Output: "ran: " + code}, nil
}

func call(id, code string) model.ToolCall {
	return model.ToolCall{ID: id, Name: "python", Arguments: fmt.Sprintf("{%q:%q}", "code", code)}
}

func question() model.Task {
	return model.Task{Request: model.Request{System: "sys", Messages: []model.Message{{Role: "user", Content: "How many rows?"}}}}
}

func TestRunToolLoop(t *testing.T) {
	m := &scripted{replies: []model.Response{
		{Text: "Loading.", ToolCalls: []model.ToolCall{call("a", "import pandas as pd"), call("b", "df = pd.read_csv('t.csv')")}, InputTokens: 10, OutputTokens: 5},
		{ToolCalls: []model.ToolCall{call("c", "len(df)")}, InputTokens: 20, OutputTokens: 5},
		{Text: "There are 42 rows.", InputTokens: 30, OutputTokens: 7, FinishReason: "stop"},
	}}
	interp := &fakeInterp{results: map[string]sandbox.Result{"len(df)": {Output: "42"}}}
	resp, err := Run(context.Background(), m, question(), interp, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if resp.Text != "There are 42 rows." || resp.InputTokens != 60 || resp.OutputTokens != 17 {
		t.Errorf("resp = %q, tokens %d/%d", resp.Text, resp.InputTokens, resp.OutputTokens)
	}
	w := resp.Work
	if w == nil || w.Mode != model.ModeAgent || w.Turns != 3 || w.Limit != "" {
		t.Fatalf("work = %+v", w)
	}
	if strings.Join(interp.ran, "|") != "import pandas as pd|df = pd.read_csv('t.csv')|len(df)" {
		t.Errorf("ran %q", interp.ran)
	}
	var roles []string
	for _, msg := range w.Transcript {
		roles = append(roles, msg.Role)
	}
	if strings.Join(roles, ",") != "assistant,tool,tool,assistant,tool,assistant" {
		t.Errorf("transcript roles %v", roles)
	}
	if w.Transcript[4].Content != "42" || w.Transcript[4].ToolCallID != "c" {
		t.Errorf("tool result %+v", w.Transcript[4])
	}
	// Every call offers the tool and sends the whole history so far.
	if len(m.reqs) != 3 || len(m.reqs[2].Messages) != 6 || len(m.reqs[2].Tools) != 1 || m.reqs[2].Tools[0].Name != "python" {
		t.Fatalf("third request: %d messages, tools %+v", len(m.reqs[2].Messages), m.reqs[2].Tools)
	}
	if m.reqs[0].System != "sys" {
		t.Errorf("system not sent")
	}
}

func TestRunLimits(t *testing.T) {
	loop := model.Response{ToolCalls: []model.ToolCall{call("x", "1")}, InputTokens: 60, OutputTokens: 40}
	for _, tc := range []struct {
		name      string
		model     *scripted
		opt       Options
		wantLimit string
		wantTurns int
		wantValue float64 // the limit's value, for Inspect's EvalSampleLimit
	}{
		{name: "max turns", model: &scripted{replies: []model.Response{loop}}, opt: Options{MaxTurns: 3}, wantLimit: limitMaxTurns, wantTurns: 3, wantValue: 3},
		{name: "default max turns is 10", model: &scripted{replies: []model.Response{loop}}, wantLimit: limitMaxTurns, wantTurns: 10, wantValue: 10},
		{name: "token budget", model: &scripted{replies: []model.Response{loop}}, opt: Options{TokenBudget: 250}, wantLimit: limitTokenBudget, wantTurns: 3, wantValue: 250},
		{name: "question timeout", model: &scripted{block: true}, opt: Options{QuestionTimeout: 20 * time.Millisecond}, wantLimit: limitQuestionTimeout, wantTurns: 0, wantValue: 0.02},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp, err := Run(context.Background(), tc.model, question(), &fakeInterp{}, tc.opt)
			if err != nil {
				t.Fatal(err)
			}
			if resp.Work.Limit != tc.wantLimit || resp.Work.Turns != tc.wantTurns || resp.Text != "" {
				t.Errorf("limit %q turns %d text %q, want %q %d and no answer", resp.Work.Limit, resp.Work.Turns, resp.Text, tc.wantLimit, tc.wantTurns)
			}
			if resp.Work.LimitValue != tc.wantValue {
				t.Errorf("limit value %v, want %v", resp.Work.LimitValue, tc.wantValue)
			}
		})
	}
}

// A call the model gets wrong is answered with what is wrong; a call that
// hits a sandbox limit is answered with the sandbox's note and marked.
func TestRunBadCallsAndToolLimits(t *testing.T) {
	m := &scripted{replies: []model.Response{
		{ToolCalls: []model.ToolCall{{ID: "1", Name: "shell", Arguments: `{"code":"ls"}`}, {ID: "2", Name: "python", Arguments: `not json`}, {ID: "3", Name: "python", Arguments: `{}`}}},
		{ToolCalls: []model.ToolCall{call("4", "while True: pass")}},
		{Text: "done"},
	}}
	interp := &fakeInterp{results: map[string]sandbox.Result{"while True: pass": {Output: "stopped: time limit", Limit: sandbox.LimitTimeout, Restarted: true}}}
	resp, err := Run(context.Background(), m, question(), interp, Options{})
	if err != nil {
		t.Fatal(err)
	}
	tr := resp.Work.Transcript
	for i, want := range []string{`no tool named "shell"`, "not JSON", `no "code"`} {
		if !strings.Contains(tr[1+i].Content, want) {
			t.Errorf("result %d = %q, want it to say %q", i, tr[1+i].Content, want)
		}
	}
	if len(interp.ran) != 1 {
		t.Errorf("ran %q; bad calls must not run", interp.ran)
	}
	if tr[5].ToolLimit != "tool_timeout" || resp.Text != "done" || resp.Work.Limit != "" {
		t.Errorf("limit result %+v, answer %q, question limit %q", tr[5], resp.Text, resp.Work.Limit)
	}
}

func TestRunModelError(t *testing.T) {
	m := &failing{}
	_, err := Run(context.Background(), m, question(), &fakeInterp{}, Options{})
	if err == nil || !strings.Contains(err.Error(), "agent turn 1") || !errors.Is(err, errDown) {
		t.Errorf("err = %v", err)
	}
}

var errDown = errors.New("server down")

type failing struct{}

func (failing) Name() string     { return "failing" }
func (failing) Info() model.Info { return model.Info{} }
func (failing) Complete(context.Context, model.Request) (model.Response, error) {
	return model.Response{}, errDown
}

func TestCodeArgument(t *testing.T) {
	for _, tc := range []struct {
		args, code string
		bad        bool
	}{
		{args: `{"code":"print(1)"}`, code: "print(1)"},
		{args: `"print(2)"`, code: "print(2)"},
		{args: `{"code":"  "}`, bad: true},
		{args: `{"cmd":"x"}`, bad: true},
		{args: `{`, bad: true},
	} {
		code, err := codeArgument(tc.args)
		if (err != nil) != tc.bad || code != tc.code {
			t.Errorf("CodeArgument(%s) = %q, %v", tc.args, code, err)
		}
	}
}

// A reasoning model's thinking in <think> tags is not its answer nor its
// turn's text: the loop reads, sends back and ends on the answer, keeps
// each turn's thinking as its reasoning and sums the reasoning tokens;
// think_tags keep reads the text as sent.
func TestRunThinkTags(t *testing.T) {
	replies := []model.Response{
		{Text: "<think>count them</think>", ToolCalls: []model.ToolCall{call("a", "len(df)")}, OutputTokens: 5, ReasoningTokens: 3},
		{Text: "<think>Is it 41? No.</think>\nThere are 42 rows.", OutputTokens: 9, ReasoningTokens: 5},
	}
	m := &scripted{replies: replies}
	resp, err := Run(context.Background(), m, question(), &fakeInterp{}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if resp.Text != "There are 42 rows." || resp.Reasoning != "Is it 41? No." || resp.ReasoningTokens != 8 {
		t.Errorf("answer %q, reasoning %q, reasoning tokens %d", resp.Text, resp.Reasoning, resp.ReasoningTokens)
	}
	if tr := resp.Work.Transcript; tr[0].Content != "" || tr[0].Reasoning != "count them" {
		t.Errorf("first turn %+v", tr[0])
	}
	if sent := m.reqs[1].Messages[1]; sent.Role != "assistant" || sent.Content != "" {
		t.Errorf("the first turn was sent back as %+v", sent)
	}
	m = &scripted{replies: replies}
	resp, err = Run(context.Background(), m, question(), &fakeInterp{}, Options{ThinkTags: model.ThinkKeep})
	if err != nil {
		t.Fatal(err)
	}
	if resp.Text != replies[1].Text || resp.Reasoning != "" {
		t.Errorf("keep: answer %q, reasoning %q", resp.Text, resp.Reasoning)
	}
}

// The reformat model's thinking is not its rewrite: the rewrite graded
// is what follows the <think> block.
func TestReformatThinkTags(t *testing.T) {
	m := &scripted{replies: []model.Response{{Text: "<think>@mean[2]? no</think>\n@mean[3]"}}}
	resp, err := Reformat(context.Background(), m, model.Reformat{Question: "q", Format: "@mean[x]"}, "the mean is 3")
	if err != nil {
		t.Fatal(err)
	}
	if resp.Text != "@mean[3]" || resp.Reasoning != "@mean[2]? no" {
		t.Errorf("rewrite %q, reasoning %q", resp.Text, resp.Reasoning)
	}
}
