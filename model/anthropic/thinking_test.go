package anthropic

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/evalmd/evalmd/internal/testkit/fakeserver"
	"github.com/evalmd/evalmd/model"
	"github.com/evalmd/evalmd/model/internal/providertest"
)

// thinkingReply answers a thinking block and a redacted one, then a tool
// call on the first turn and text on the next.
func thinkingReply(c fakeserver.Call) fakeserver.Reply {
	thoughts := []fakeserver.Thought{{Text: "Let me compute it."}, {Text: "hidden", Redacted: true}}
	if len(c.Messages) == 1 {
		return fakeserver.Reply{Thoughts: thoughts, OutputTokens: 300,
			ToolCalls: []fakeserver.ToolCall{{ID: "toolu_1", Name: "python", Arguments: `{"code":"print(2+2)"}`}}}
	}
	return fakeserver.Reply{Thoughts: thoughts[:1], Text: "4", OutputTokens: 200}
}

func TestAnthropicThinking(t *testing.T) {
	srv := newFakeAnthropic(t, fakeserver.Options{Reply: thinkingReply})
	m, err := newModel("anthropic/claude-sonnet-4-5", model.Options{BaseURL: srv.URL, APIKey: "sk-ant-test"})
	if err != nil {
		t.Fatal(err)
	}
	req := model.Request{
		Messages: []model.Message{{Role: "user", Content: "2+2?"}},
		Settings: model.Settings{Temperature: providertest.Ptr(0.5), TopP: providertest.Ptr(0.5), ReasoningTokens: 2048},
		Tools:    []model.Tool{{Name: "python", Parameters: []byte(`{"type":"object","properties":{"code":{"type":"string"}}}`)}},
	}
	first, err := m.Complete(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if len(first.ReasoningBlocks) != 2 || first.ReasoningBlocks[0].Signature == "" || first.ReasoningBlocks[1].Data == "" {
		t.Fatalf("reasoning blocks = %+v, want a signed thinking block and a redacted one", first.ReasoningBlocks)
	}
	if first.Reasoning != "Let me compute it.\n\n"+redactedNote {
		t.Errorf("reasoning = %q", first.Reasoning)
	}
	if first.OutputTokens != 300 {
		t.Errorf("output tokens = %d: the thinking counts in them", first.OutputTokens)
	}
	c := srv.Calls()[0]
	if c.ThinkingBudget != 2048 {
		t.Errorf("budget_tokens = %d, want 2048", c.ThinkingBudget)
	}
	if c.Settings.MaxTokens == nil || *c.Settings.MaxTokens != 2048+defaultMaxTokens {
		t.Errorf("max_tokens = %v, want the budget plus %d", c.Settings.MaxTokens, defaultMaxTokens)
	}
	if c.Settings.Temperature != nil || c.Settings.TopP != nil {
		t.Errorf("temperature %v, top_p %v sent with thinking", c.Settings.Temperature, c.Settings.TopP)
	}

	// The tool-result turn carries the assistant turn with its thinking, as
	// the agent keeps it; the fake checks the signatures.
	turn := model.Message{Role: "assistant", Content: first.Text, ToolCalls: first.ToolCalls, ReasoningBlocks: first.ReasoningBlocks}
	req.Messages = append(req.Messages, turn, model.Message{Role: "tool", ToolCallID: "toolu_1", Content: "4\n"})
	second, err := m.Complete(context.Background(), req)
	if err != nil {
		t.Fatalf("second turn: %v", err)
	}
	if second.Text != "4" || second.Reasoning != "Let me compute it." {
		t.Errorf("second turn = %q, reasoning %q", second.Text, second.Reasoning)
	}
	back := srv.Calls()[1].Messages[1].Thinking
	if len(back) != 2 || !back[0].Valid || !back[1].Valid || !back[1].Redacted {
		t.Errorf("thinking sent back = %+v, want both blocks, unmodified", back)
	}

	// Without its thinking, the fake refuses the turn as the API does.
	turn.ReasoningBlocks = nil
	req.Messages[1] = turn
	_, err = m.Complete(context.Background(), req)
	var ae *model.APIError
	if !errors.As(err, &ae) || ae.Status != 400 || !strings.Contains(ae.Message, "Expected `thinking` or `redacted_thinking`, but found") {
		t.Errorf("turn without thinking: err = %v, want Anthropic's 400", err)
	}
	// A thinking block changed is refused too.
	turn.ReasoningBlocks = append([]model.ReasoningBlock(nil), first.ReasoningBlocks...)
	turn.ReasoningBlocks[0].Text += " (edited)"
	req.Messages[1] = turn
	if _, err = m.Complete(context.Background(), req); !errors.As(err, &ae) || !strings.Contains(ae.Message, "Invalid `signature`") {
		t.Errorf("edited thinking: err = %v, want an invalid signature", err)
	}
}

func TestAnthropicReasoningSettings(t *testing.T) {
	f := providertest.Ptr[float64]
	for _, tc := range []struct {
		name    string
		in      model.Settings
		want    model.Settings
		dropped int
		err     string
	}{
		{name: "none", in: model.Settings{}, want: model.Settings{MaxTokens: defaultMaxTokens}},
		{name: "budget", in: model.Settings{ReasoningTokens: 2000, MaxTokens: 3000, Temperature: f(0), TopP: f(0.97)},
			want: model.Settings{ReasoningTokens: 2000, MaxTokens: 3000, TopP: f(0.97)}, dropped: 1},
		{name: "max_tokens at the budget", in: model.Settings{ReasoningTokens: 2000, MaxTokens: 2000},
			err: "max_tokens 2000 must exceed reasoning_tokens 2000"},
		{name: "budget too small", in: model.Settings{ReasoningTokens: 100}, err: "at least 1024"},
		{name: "effort minimal", in: model.Settings{ReasoningEffort: "minimal"},
			want: model.Settings{ReasoningEffort: "low", MaxTokens: defaultMaxTokens}, dropped: 1},
		{name: "seed", in: model.Settings{Seed: providertest.Ptr(int64(1))}, want: model.Settings{MaxTokens: defaultMaxTokens}, dropped: 1},
		{name: "effort none and budget", in: model.Settings{ReasoningEffort: "none", ReasoningTokens: 2000}, err: "set one"},
		{name: "temperature without thinking", in: model.Settings{Temperature: f(0.5)},
			want: model.Settings{Temperature: f(0.5), MaxTokens: defaultMaxTokens}},
		{name: "adaptive", in: model.Settings{Thinking: "adaptive", ReasoningEffort: "high", Temperature: f(0), TopP: f(0.5)},
			want: model.Settings{Thinking: "adaptive", ReasoningEffort: "high", MaxTokens: defaultMaxTokens + adaptiveRoom}, dropped: 2},
		{name: "adaptive at max", in: model.Settings{Thinking: "adaptive", ReasoningEffort: "max"},
			want: model.Settings{Thinking: "adaptive", ReasoningEffort: "max", MaxTokens: adaptiveMostTokens}},
		{name: "adaptive with max_tokens", in: model.Settings{Thinking: "adaptive", ReasoningEffort: "xhigh", MaxTokens: 1000},
			want: model.Settings{Thinking: "adaptive", ReasoningEffort: "xhigh", MaxTokens: 1000}},
		{name: "adaptive and budget", in: model.Settings{Thinking: "adaptive", ReasoningTokens: 2000}, err: "set one"},
		{name: "adaptive and effort none", in: model.Settings{Thinking: "adaptive", ReasoningEffort: "none"}, err: "set one"},
		{name: "effort xhigh without thinking", in: model.Settings{ReasoningEffort: "xhigh"},
			want: model.Settings{ReasoningEffort: "xhigh", MaxTokens: defaultMaxTokens}},
		{name: "verbosity", in: model.Settings{Verbosity: "low"}, want: model.Settings{MaxTokens: defaultMaxTokens}, dropped: 1},
		{name: "unknown effort", in: model.Settings{ReasoningEffort: "huge"}, err: "want one of none, minimal, low, medium, high, xhigh, max"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, dropped, err := sent(tc.in)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err = %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !got.Equal(tc.want) || len(dropped) != tc.dropped {
				t.Errorf("sent = %+v (dropped %q), want %+v (%d dropped)", got, dropped, tc.want, tc.dropped)
			}
		})
	}
}

// A batch line carries the thinking settings the live request sends.
func TestAnthropicThinkingBatchLine(t *testing.T) {
	live := newFakeAnthropic(t, fakeserver.Options{})
	m, err := newModel("anthropic/claude-sonnet-4-5", model.Options{BaseURL: live.URL, APIKey: "sk-ant-test"})
	if err != nil {
		t.Fatal(err)
	}
	req := model.Request{Messages: []model.Message{{Role: "user", Content: "q"}},
		Settings: model.Settings{ReasoningTokens: 2048, ReasoningEffort: "high", MaxTokens: 5000}}
	if _, err := m.Complete(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	line, err := providertest.BatchOf(t, m).BatchLine("q-1", req)
	if err != nil {
		t.Fatal(err)
	}
	body := live.Calls()[0].Body
	if th, _ := body["thinking"].(map[string]any); th["type"] != "enabled" {
		t.Fatalf("thinking = %v", body["thinking"])
	}
	if oc, _ := body["output_config"].(map[string]any); oc["effort"] != "high" {
		t.Errorf("output_config = %v", body["output_config"])
	}
	providertest.BatchLineIsLive(t, line, "q-1", body, "params")
}

// Adaptive thinking reaches the request as thinking {type: adaptive}
// with the effort in output_config and no budget; the thinking answered
// is the reply's reasoning; the fake refuses a temperature beside it, as
// the API does, so none is sent.
func TestAnthropicAdaptiveThinking(t *testing.T) {
	srv := newFakeAnthropic(t, fakeserver.Options{MaxRequests: 2, Reply: func(fakeserver.Call) fakeserver.Reply {
		return fakeserver.Reply{Thoughts: []fakeserver.Thought{{Text: "Two and two."}}, Text: "4"}
	}})
	m, err := newModel("anthropic/claude-opus-4-7", model.Options{BaseURL: srv.URL, APIKey: "sk-ant-test"})
	if err != nil {
		t.Fatal(err)
	}
	req := model.Request{Messages: []model.Message{{Role: "user", Content: "2+2?"}},
		Settings: model.Settings{Thinking: "adaptive", ReasoningEffort: "xhigh", Temperature: providertest.Ptr(0.0), Verbosity: "low"}}
	resp, err := m.Complete(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if resp.Text != "4" || resp.Reasoning != "Two and two." {
		t.Errorf("response %q, reasoning %q", resp.Text, resp.Reasoning)
	}
	c := srv.Calls()[0]
	th, _ := c.Body["thinking"].(map[string]any)
	oc, _ := c.Body["output_config"].(map[string]any)
	if len(th) != 1 || th["type"] != "adaptive" || oc["effort"] != "xhigh" || c.ThinkingBudget != 0 {
		t.Errorf("thinking %v, output_config %v, budget %d", c.Body["thinking"], c.Body["output_config"], c.ThinkingBudget)
	}
	if _, ok := c.Body["verbosity"]; ok || c.Settings.Temperature != nil || c.Settings.MaxTokens == nil || *c.Settings.MaxTokens != adaptiveMostTokens {
		t.Errorf("verbosity %v, temperature %v, max_tokens %v sent", c.Body["verbosity"], c.Settings.Temperature, c.Settings.MaxTokens)
	}
	// The batch line carries what the live request sends.
	line, err := providertest.BatchOf(t, m).BatchLine("q-1", req)
	if err != nil {
		t.Fatal(err)
	}
	providertest.BatchLineIsLive(t, line, "q-1", c.Body, "params")
}
