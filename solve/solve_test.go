package solve

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/evalmd/evalmd/internal/testkit/fakeserver"
	"github.com/evalmd/evalmd/internal/testkit/shared"
	"github.com/evalmd/evalmd/model"
	"github.com/evalmd/evalmd/model/anthropic"
	"github.com/evalmd/evalmd/model/openai"
	"github.com/evalmd/evalmd/sandbox"
)

// pool starts a real sandbox, or skips (fails under CI) naming what is missing.
func pool(t *testing.T, cfg sandbox.Config) *sandbox.Pool {
	t.Helper()
	cfg.Warm = -1
	p, err := sandbox.NewPool(context.Background(), cfg)
	if err != nil {
		shared.Missing(t, "sandbox: "+err.Error())
	}
	t.Cleanup(func() { p.Close() })
	return p
}

// csvFile writes a small table for the question.
func csvFile(t *testing.T) string {
	p := filepath.Join(t.TempDir(), "sales.csv")
	if err := os.WriteFile(p, []byte("region,amount\nnorth,10\nsouth,32\neast,7\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// analyst is a scripted model that reads the table, keeps it in a
// variable, and answers with what the second call printed: it can only
// answer right if the file is there and state persists between calls.
func analyst(c fakeserver.Call) fakeserver.Reply {
	var results []string
	for _, m := range c.Messages {
		if m.Role == "tool" {
			results = append(results, m.Text)
		}
	}
	switch len(results) {
	case 0:
		return fakeserver.Reply{Text: "Loading.", ToolCalls: []fakeserver.ToolCall{{ID: "t1", Name: "python",
			Arguments: `{"code":"import pandas as pd\ndf = pd.read_csv('sales.csv')"}`}}}
	case 1:
		return fakeserver.Reply{ToolCalls: []fakeserver.ToolCall{{ID: "t2", Name: "python", Arguments: `{"code":"print(df['amount'].sum())"}`}}}
	default:
		return fakeserver.Reply{Text: "total=" + strings.TrimSpace(results[1])}
	}
}

func TestAgentModeOverBothWireFormats(t *testing.T) {
	p := pool(t, sandbox.Config{})
	file := csvFile(t)
	for _, tc := range []struct {
		name  string
		start func(*testing.T, fakeserver.Options) *fakeserver.Server
		model string
		reg   func(*model.Registry)
	}{
		{"openai", func(t *testing.T, o fakeserver.Options) *fakeserver.Server { return fakeserver.NewOpenAI(t, o) }, "openai/gpt-4o", openai.Register},
		{"anthropic", func(t *testing.T, o fakeserver.Options) *fakeserver.Server { return fakeserver.NewAnthropic(t, o) }, "anthropic/claude-sonnet-4-5", anthropic.Register},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := tc.start(t, fakeserver.Options{Reply: analyst, MaxRequests: 10})
			r := model.NewRegistry()
			tc.reg(r)
			inner, err := r.New(tc.model, model.Options{BaseURL: srv.URL, APIKey: "k"})
			if err != nil {
				t.Fatal(err)
			}
			m := &Model{Inner: inner, Sandbox: p}
			req := model.Task{
				Request: model.Request{
					Messages: []model.Message{{Role: "user", Content: "What is the total amount?"}},
					Settings: model.Settings{MaxTokens: 100},
				},
				Solve: &model.Solve{Mode: model.ModeAgent, Files: []string{file}},
			}
			resp, err := m.Answer(context.Background(), req)
			if err != nil {
				t.Fatal(err)
			}
			if resp.Text != "total=49" {
				t.Errorf("answer %q, want total=49; transcript %+v", resp.Text, resp.Work.Transcript)
			}
			w := resp.Work
			if w.Turns != 3 || len(w.Transcript) != 5 || w.Env["pandas"] == "" || w.Env["python"] == "" {
				t.Errorf("work: %d turns, %d transcript entries, env %v", w.Turns, len(w.Transcript), w.Env)
			}
			if srv.Count() != 3 {
				t.Errorf("%d model calls, want 3", srv.Count())
			}
		})
	}
}

// A python call over the question's tool_timeout or tool_memory is
// stopped, the model is told which limit and that the interpreter restarted
// with its state lost, and the question goes on. The pool keeps its
// defaults (180 s, 2 GiB): the limits are the question's own.
func TestAgentToolLimitsRestart(t *testing.T) {
	p := pool(t, sandbox.Config{})
	codes := []string{"x = 41", "while True: pass", "print(x)", "y = 42", "big = bytearray(3 << 30)", "print(y)"}
	srv := fakeserver.NewOpenAI(t, fakeserver.Options{MaxRequests: 10, Reply: func(c fakeserver.Call) fakeserver.Reply {
		var results []string
		for _, m := range c.Messages {
			if m.Role == "tool" {
				results = append(results, m.Text)
			}
		}
		if len(results) < len(codes) {
			return fakeserver.Reply{ToolCalls: []fakeserver.ToolCall{{ID: fmt.Sprint(len(results)), Name: "python",
				Arguments: fmt.Sprintf(`{"code":%q}`, codes[len(results)])}}}
		}
		return fakeserver.Reply{Text: "saw: " + results[2] + results[5]}
	}})
	r := model.NewRegistry()
	openai.Register(r)
	inner, err := r.New("openai/gpt-4o", model.Options{BaseURL: srv.URL, APIKey: "k"})
	if err != nil {
		t.Fatal(err)
	}
	solve := &model.Solve{Mode: model.ModeAgent, Style: "tools", ToolTimeout: 2 * time.Second, ToolMemory: 1 << 30, MaxTurns: 10}
	resp, err := (&Model{Inner: inner, Sandbox: p}).Answer(context.Background(), model.Task{
		Request: model.Request{Messages: []model.Message{{Role: "user", Content: "q"}}},
		Solve:   solve,
	})
	if err != nil {
		t.Fatal(err)
	}
	tr := resp.Work.Transcript
	if len(tr) != 13 {
		t.Fatalf("transcript of %d turns, want 13: %+v", len(tr), tr)
	}
	for _, c := range []struct {
		turn  int
		limit sandbox.Limit
		says  string
	}{{3, sandbox.LimitTimeout, "time limit (tool_timeout 2s)"}, {9, sandbox.LimitMemory, "out of memory (tool_memory 1 GiB)"}} {
		got := tr[c.turn]
		if got.ToolLimit != string(c.limit) || !strings.Contains(got.Content, c.says) ||
			!strings.Contains(got.Content, "the Python interpreter was restarted and its state (variables, imports, files written) is lost") {
			t.Errorf("turn %d: %+v; want limit %q saying %q and the restart", c.turn, got, c.limit, c.says)
		}
	}
	if strings.Count(resp.Text, "NameError") != 2 {
		t.Errorf("after each restart the old variable should be gone: %q", resp.Text)
	}
	if resp.Work.Limit != "" {
		t.Errorf("a tool limit must not end the question: limit %q", resp.Work.Limit)
	}
}

func TestChatPassesThroughAndModesNeedASandbox(t *testing.T) {
	srv := fakeserver.NewOpenAI(t, fakeserver.Options{MaxRequests: 5, Reply: fakeserver.Fixed("plain")})
	r := model.NewRegistry()
	openai.Register(r)
	inner, _ := r.New("openai/gpt-4o", model.Options{BaseURL: srv.URL, APIKey: "k"})
	m := &Model{Inner: inner}
	resp, err := m.Complete(context.Background(), model.Request{Messages: []model.Message{{Role: "user", Content: "q"}}})
	if err != nil || resp.Text != "plain" || resp.Work != nil {
		t.Errorf("chat: %q %+v %v", resp.Text, resp.Work, err)
	}
	_, err = m.Answer(context.Background(), model.Task{Request: model.Request{Messages: []model.Message{{Role: "user", Content: "q"}}},
		Solve: &model.Solve{Mode: model.ModeAgent}})
	if err == nil || !strings.Contains(err.Error(), "needs a sandbox") {
		t.Errorf("agent without a sandbox: %v", err)
	}
}

// TestAnsweredRunsTheCodeOfACompletionMadeElsewhere: a batch's completion
// of a code-mode question is run as Complete runs a live one.
func TestAnsweredRunsTheCodeOfACompletionMadeElsewhere(t *testing.T) {
	m := &Model{Inner: nil, Sandbox: pool(t, sandbox.Config{})}
	defer m.Close()
	req := model.Task{Request: model.Request{Messages: []model.Message{{Role: "user", Content: "total amount?"}}},
		Solve: &model.Solve{Mode: model.ModeCode, Extract: "lenient", Files: []string{csvFile(t)}}}
	done := model.Response{Text: "```python\ndef answer(df):\n    return df['amount'].sum()\n```", InputTokens: 9}
	resp, err := m.Answered(context.Background(), req, done)
	if err != nil {
		t.Fatal(err)
	}
	if resp.Text != done.Text || resp.InputTokens != 9 || resp.Work == nil || resp.Work.Answer == nil || *resp.Work.Answer != "49" || resp.Work.Env == nil {
		t.Errorf("response %+v, work %+v: want the completion kept and the code's answer 49", resp, resp.Work)
	}
	chat, err := m.Answered(context.Background(), model.Task{Request: req.Request}, done)
	if err != nil || chat.Text != done.Text || chat.Work != nil {
		t.Errorf("chat: %+v, %v; want the completion as is", chat, err)
	}
	req.Solve = &model.Solve{Mode: model.ModeAgent}
	if _, err := m.Answered(context.Background(), req, done); err == nil || !strings.Contains(err.Error(), "agent mode") {
		t.Errorf("agent: %v, want refused", err)
	}
}

// Code mode takes the code from the answer, never from the thinking
// before it: a <think> block holding a wrong program is moved to the
// reasoning, and the program after it runs (think_tags keep would run
// the first block, the thinking's).
func TestCodeModeReadsTheAnswerAfterThinking(t *testing.T) {
	m := &Model{Inner: nil, Sandbox: pool(t, sandbox.Config{})}
	defer m.Close()
	req := model.Task{Request: model.Request{Messages: []model.Message{{Role: "user", Content: "total amount?"}}},
		Solve: &model.Solve{Mode: model.ModeCode, Extract: "lenient", Files: []string{csvFile(t)}}}
	done := model.Response{Text: "<think>Maybe\n```python\ndef answer(df):\n    return len(df)\n```\nNo, the sum.</think>\n" +
		"```python\ndef answer(df):\n    return df['amount'].sum()\n```"}
	resp, err := m.Answered(context.Background(), req, done)
	if err != nil {
		t.Fatal(err)
	}
	if resp.Work == nil || resp.Work.Answer == nil || *resp.Work.Answer != "49" || !strings.HasPrefix(resp.Reasoning, "Maybe") || strings.Contains(resp.Text, "think") {
		t.Errorf("work %+v, reasoning %q, text %q: want the answer's code run (49) and the thinking kept apart", resp.Work, resp.Reasoning, resp.Text)
	}
}
