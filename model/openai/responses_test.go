package openai

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/evalmd/evalmd/internal/testkit/fakeserver"
	"github.com/evalmd/evalmd/model"
	"github.com/evalmd/evalmd/model/internal/providertest"
)

func newResponsesFake(t *testing.T, o fakeserver.Options) *fakeserver.Server {
	return fakeserver.NewOpenAIResponses(t, o)
}

func TestResponsesRequest(t *testing.T) {
	srv := newResponsesFake(t, fakeserver.Options{Reply: func(fakeserver.Call) fakeserver.Reply {
		return fakeserver.Reply{Text: "a cat", InputTokens: 400, OutputTokens: 9}
	}})
	m, err := newModel("openai-responses/gpt-4.1", model.Options{BaseURL: srv.URL, APIKey: "sk-test"})
	if err != nil {
		t.Fatal(err)
	}
	req := providertest.FullRequest()
	resp, err := m.Complete(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if resp.Text != "a cat" || resp.InputTokens != 400 || resp.OutputTokens != 9 || resp.FinishReason != "stop" || resp.Model != "gpt-4.1" {
		t.Errorf("response = %+v", resp)
	}
	c := srv.Calls()[0]
	if c.Path != "/v1/responses" || c.Header.Get("Authorization") != "Bearer sk-test" {
		t.Errorf("path %s, authorization %q", c.Path, c.Header.Get("Authorization"))
	}
	if c.System != "You are terse." || len(c.Messages) != 3 || c.Messages[1].Role != "assistant" || c.Messages[1].Text != "first answer" {
		t.Errorf("system %q, messages %+v", c.System, c.Messages)
	}
	if imgs := c.Messages[2].Images; len(imgs) != 1 || !bytes.Equal(imgs[0].Data, providertest.PNG) {
		t.Errorf("images = %+v", imgs)
	}
	s := c.Settings
	if s.Temperature == nil || *s.Temperature != 0.25 || s.TopP == nil || *s.TopP != 0.9 || s.MaxTokens == nil || *s.MaxTokens != 123 {
		t.Errorf("settings = %+v", s)
	}
	if store, ok := c.Body["store"]; !ok || store != false {
		t.Errorf("store = %v, want false", store)
	}
	for _, k := range []string{"reasoning", "include", "seed", "stop"} {
		if _, ok := c.Body[k]; ok {
			t.Errorf("%s sent to a model that is not a reasoning model, or that the API does not take", k)
		}
	}
	// The batch line carries the live body.
	line, err := providertest.BatchOf(t, m).BatchLine("q-1", req)
	if err != nil {
		t.Fatal(err)
	}
	providertest.BatchLineIsLive(t, line, "q-1", c.Body, "body")
	if !bytes.Contains(line, []byte(`"url":"/v1/responses"`)) {
		t.Errorf("batch line %s does not name /v1/responses", line)
	}
}

// An agent's turns on a reasoning model: the reasoning items come back
// encrypted with summaries, go back whole with the function calls, and
// the server refuses one sent back without its encrypted content.
func TestResponsesReasoningTurns(t *testing.T) {
	srv := newResponsesFake(t, fakeserver.Options{Reply: func(c fakeserver.Call) fakeserver.Reply {
		if len(c.Messages) == 1 {
			return fakeserver.Reply{Thoughts: []fakeserver.Thought{{Text: "I should run code."}}, ReasoningTokens: 40, OutputTokens: 60,
				ToolCalls: []fakeserver.ToolCall{{ID: "call_1", Name: "python", Arguments: `{"code":"print(2+2)"}`}}}
		}
		return fakeserver.Reply{Thoughts: []fakeserver.Thought{{Text: "secret", Redacted: true}}, Text: "4", ReasoningTokens: 10, OutputTokens: 12}
	}})
	m, err := newModel("openai-responses/o3", model.Options{BaseURL: srv.URL, APIKey: "sk-test"})
	if err != nil {
		t.Fatal(err)
	}
	req := model.Request{
		Messages: []model.Message{{Role: "user", Content: "2+2?"}},
		Settings: model.Settings{Temperature: providertest.Ptr(0.5), MaxTokens: 10, ReasoningEffort: "high", Seed: providertest.Ptr(int64(1))},
		Tools:    []model.Tool{{Name: "python", Description: "run", Parameters: json.RawMessage(`{"type":"object","properties":{"code":{"type":"string"}}}`)}},
	}
	first, err := m.Complete(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if first.Reasoning != "I should run code." || first.ReasoningTokens != 40 || first.OutputTokens != 60 || first.FinishReason != "tool_calls" {
		t.Errorf("first turn = %+v", first)
	}
	if len(first.ToolCalls) != 1 || first.ToolCalls[0].ID != "call_1" || len(first.ReasoningBlocks) != 1 {
		t.Fatalf("tool calls %+v, reasoning blocks %+v", first.ToolCalls, first.ReasoningBlocks)
	}
	c := srv.Calls()[0]
	if r, _ := c.Body["reasoning"].(map[string]any); r["effort"] != "high" || r["summary"] != "auto" {
		t.Errorf("reasoning = %v", c.Body["reasoning"])
	}
	if inc, _ := c.Body["include"].([]any); len(inc) != 1 || inc[0] != "reasoning.encrypted_content" {
		t.Errorf("include = %v", c.Body["include"])
	}
	if c.Settings.MaxTokens == nil || *c.Settings.MaxTokens != minOutputTokens {
		t.Errorf("max_output_tokens = %v, want the API's least, %d", c.Settings.MaxTokens, minOutputTokens)
	}
	if tools, _ := c.Body["tools"].([]any); len(tools) != 1 || tools[0].(map[string]any)["strict"] != false {
		t.Errorf("tools = %v, want python, not strict", c.Body["tools"])
	}

	turn := model.Message{Role: "assistant", Content: first.Text, ToolCalls: first.ToolCalls, ReasoningBlocks: first.ReasoningBlocks}
	req.Messages = append(req.Messages, turn, model.Message{Role: "tool", ToolCallID: "call_1", Content: "4\n"})
	second, err := m.Complete(context.Background(), req)
	if err != nil {
		t.Fatalf("second turn: %v", err)
	}
	if second.Text != "4" || second.Reasoning != encryptedNote || second.FinishReason != "stop" {
		t.Errorf("second turn = %+v", second)
	}
	got := srv.Calls()[1].Messages
	if len(got) != 3 || len(got[1].Thinking) != 1 || !got[1].Thinking[0].Valid || got[1].Thinking[0].Text != "I should run code." ||
		len(got[1].ToolCalls) != 1 || got[2].Role != "tool" || got[2].ToolCallID != "call_1" {
		t.Errorf("second request's turns = %+v", got)
	}

	// A reasoning item without its encrypted content names nothing the
	// server kept ("store": false).
	var item map[string]any
	if err := json.Unmarshal(first.ReasoningBlocks[0].Raw, &item); err != nil {
		t.Fatal(err)
	}
	delete(item, "encrypted_content")
	raw, _ := json.Marshal(item)
	req.Messages[1].ReasoningBlocks = []model.ReasoningBlock{{Type: model.ReasoningItem, Raw: raw}}
	_, err = m.Complete(context.Background(), req)
	var ae *model.APIError
	if !errors.As(err, &ae) || ae.Status != 404 || !strings.Contains(ae.Message, "Items are not persisted when `store` is set to false") {
		t.Errorf("reasoning item without encrypted content: err = %v", err)
	}
}

// A reply cut by max_output_tokens reads as one cut by max_tokens.
func TestResponsesIncomplete(t *testing.T) {
	srv := newResponsesFake(t, fakeserver.Options{Reply: func(fakeserver.Call) fakeserver.Reply {
		return fakeserver.Reply{Thoughts: []fakeserver.Thought{{Text: "hmm"}}, NoContent: true, FinishReason: "length", ReasoningTokens: 16, OutputTokens: 16}
	}})
	m, err := newModel("openai-responses/o4-mini", model.Options{BaseURL: srv.URL, APIKey: "sk-test"})
	if err != nil {
		t.Fatal(err)
	}
	resp, err := m.Complete(context.Background(), model.Request{Messages: []model.Message{{Role: "user", Content: "q"}}})
	if err != nil {
		t.Fatal(err)
	}
	if resp.Text != "" || resp.FinishReason != "length" || resp.Reasoning != "hmm" || resp.ReasoningTokens != 16 {
		t.Errorf("response = %+v", resp)
	}
}

func TestResponsesSent(t *testing.T) {
	m := &responsesModel{cfg: config{info: model.Info{Model: "o3", FixedSampling: true}}}
	s, dropped := m.sent(model.Settings{Temperature: providertest.Ptr(0.5), TopP: providertest.Ptr(0.9), MaxTokens: 10,
		Seed: providertest.Ptr(int64(3)), Stop: []string{"x"}, ReasoningTokens: 2000, ReasoningEffort: "low"})
	if want := (model.Settings{MaxTokens: minOutputTokens, ReasoningEffort: "low"}); !s.Equal(want) || len(dropped) != 6 {
		t.Errorf("sent %+v, dropped %q", s, dropped)
	}
	m.cfg.info = model.Info{Model: "gpt-4.1"}
	if s, dropped := m.sent(model.Settings{Temperature: providertest.Ptr(0.5), MaxTokens: 100}); s.Temperature == nil || len(dropped) != 0 {
		t.Errorf("gpt-4.1: sent %+v, dropped %q", s, dropped)
	}
}

func TestResponsesErrorClassification(t *testing.T) {
	providertest.CheckErrorCases(t, newResponsesFake,
		func(url string, timeout time.Duration) (model.Model, error) {
			return newModel("openai-responses/gpt-4.1", model.Options{BaseURL: url, APIKey: "test-key-1", Timeout: timeout})
		})
}

func TestResponsesKeyNeverInError(t *testing.T) {
	providertest.CheckKeyNeverInError(t, newResponsesFake, func(url, key string) (model.Model, error) {
		return newModel("openai-responses/gpt-4.1", model.Options{BaseURL: url, APIKey: key})
	})
}

func TestResponsesToolCalls(t *testing.T) {
	providertest.CheckToolCalls(t, newResponsesFake, func(url string) (model.Model, error) {
		return newModel("openai-responses/gpt-4.1", model.Options{BaseURL: url, APIKey: "test-key-1"})
	})
}

func TestResponsesReplyCap(t *testing.T) {
	providertest.CheckReplyCap(t, newResponsesFake, func(url string, limit int64) (model.Model, error) {
		return newModel("openai-responses/gpt-4.1", model.Options{BaseURL: url, APIKey: "test-key-1", MaxReply: limit})
	})
}

func TestResponsesBatchLifecycle(t *testing.T) {
	srv := fakeserver.NewOpenAIBatch(t, fakeserver.BatchOptions{Reply: providertest.BatchReply, Expire: providertest.BatchExpire, Polls: 2})
	m, err := newModel("openai-responses/gpt-4.1", model.Options{APIKey: "sk-test-key", BaseURL: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	providertest.BatchLifecycle(t, providertest.BatchOf(t, m), srv, true)
	for _, c := range srv.Calls() {
		if c.Path != responsesEndpoint {
			t.Errorf("a batch request of %s, want %s", c.Path, responsesEndpoint)
		}
	}
}

// A batch line carries the reasoning settings the live request sends.
func TestResponsesReasoningBatchLine(t *testing.T) {
	live := newResponsesFake(t, fakeserver.Options{})
	m, err := newModel("openai-responses/o3", model.Options{BaseURL: live.URL, APIKey: "sk-test"})
	if err != nil {
		t.Fatal(err)
	}
	req := model.Request{Messages: []model.Message{{Role: "user", Content: "q"}}, Settings: model.Settings{ReasoningEffort: "low", MaxTokens: 500}}
	if _, err := m.Complete(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	line, err := providertest.BatchOf(t, m).BatchLine("q-1", req)
	if err != nil {
		t.Fatal(err)
	}
	providertest.BatchLineIsLive(t, line, "q-1", live.Calls()[0].Body, "body")
}
