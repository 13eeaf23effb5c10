package openai

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/evalmd/evalmd/internal/testkit/fakeserver"
	"github.com/evalmd/evalmd/model"
	"github.com/evalmd/evalmd/model/internal/providertest"
)

// OpenAI's reasoning models refuse temperature, top_p and max_tokens with
// HTTP 400 (the fake refuses them as OpenAI does): they are sent neither
// temperature nor top_p, max_tokens as max_completion_tokens even through
// another server, the effort as reasoning_effort, and the reasoning tokens
// of the usage are read.
func TestReasoningModelSampling(t *testing.T) {
	srv := fakeserver.NewOpenAI(t, fakeserver.Options{Reply: fakeserver.OpenAIReasoning(func(fakeserver.Call) fakeserver.Reply {
		return fakeserver.Reply{Text: "4", OutputTokens: 50, ReasoningTokens: 40}
	})})
	req := providertest.FullRequest()
	req.Settings.ReasoningEffort = model.ReasoningHigh
	for _, c := range []struct {
		name string
		opt  model.Options
	}{
		{"openai/o3", model.Options{APIKey: "sk-test", HTTPClient: redirect(t, srv.URL)}},
		{"openai/gpt-5-mini", model.Options{APIKey: "sk-test", BaseURL: srv.URL}}, // a proxy
	} {
		m, err := newModel(c.name, c.opt)
		if err != nil {
			t.Fatal(err)
		}
		if !m.Info().FixedSampling {
			t.Errorf("%s: Info().FixedSampling = false", c.name)
		}
		resp, err := m.Complete(context.Background(), req)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if resp.Text != "4" || resp.ReasoningTokens != 40 || resp.OutputTokens != 50 {
			t.Errorf("%s: response = %+v, want 4 with 40 of 50 output tokens reasoning", c.name, resp)
		}
		calls := srv.Calls()
		s := calls[len(calls)-1].Settings
		if s.Temperature != nil || s.TopP != nil || s.MaxTokens != nil || s.MaxCompletionTokens == nil || s.ReasoningEffort != "high" {
			t.Errorf("%s: sent temperature %v, top_p %v, max_tokens %v, max_completion_tokens %v, reasoning_effort %q",
				c.name, s.Temperature, s.TopP, s.MaxTokens, s.MaxCompletionTokens, s.ReasoningEffort)
		}
	}
	for name, want := range map[string]bool{"o1": true, "o3-mini": true, "o4-mini-2025-04-16": true, "gpt-5": true, "gpt-5.1": true,
		"codex-mini-latest": true, "gpt-5-chat-latest": false, "gpt-4o": false, "gpt-4.1": false, "o": false, "omni": false} {
		if got := reasoningModel(name); got != want {
			t.Errorf("reasoningModel(%q) = %v, want %v", name, got, want)
		}
	}
}

// The reasoning a server returns beside the answer, as reasoning_content
// (DeepSeek, vLLM, llama.cpp) or reasoning (ollama, OpenRouter), is the
// response's Reasoning, the content alone its Text.
func TestReasoningFields(t *testing.T) {
	for _, field := range []string{"reasoning_content", "reasoning"} {
		srv := fakeserver.NewOpenAI(t, fakeserver.Options{Reply: func(fakeserver.Call) fakeserver.Reply {
			return fakeserver.Reply{Text: "A) 4", Reasoning: "Could it be B) 5?", ReasoningField: field}
		}})
		m, err := newModel("vllm/deepseek-r1", model.Options{BaseURL: srv.URL})
		if err != nil {
			t.Fatal(err)
		}
		resp, err := m.Complete(context.Background(), providertest.FullRequest())
		if err != nil {
			t.Fatal(err)
		}
		if resp.Text != "A) 4" || resp.Reasoning != "Could it be B) 5?" {
			t.Errorf("%s: text %q, reasoning %q", field, resp.Text, resp.Reasoning)
		}
	}
}

// reasoning_effort goes to every OpenAI-compatible server; a thinking
// budget goes where the server takes one, as it takes it (docs/models.md's
// table), and nowhere else. OpenRouter and Gemini refuse an effort beside
// a budget: they get the budget alone.
func TestReasoningBudget(t *testing.T) {
	srv := fakeserver.NewOpenAI(t, fakeserver.Options{})
	for _, c := range []struct {
		name, base string
		budget     string // the body's member that holds it, as JSON
		effort     bool
	}{
		{"vllm/qwen3", "", `{"thinking_token_budget":300}`, true},
		{"openai-api/router/deepseek/deepseek-r1", "https://openrouter.ai/api/v1", `{"reasoning":{"max_tokens":300}}`, false},
		{"openai-api/gemini/gemini-2.5-flash", "https://generativelanguage.googleapis.com/v1beta/openai", `{"extra_body":{"google":{"thinking_config":{"thinking_budget":300}}}}`, false},
		{"openai-api/qwen/qwen-plus", "https://dashscope-intl.aliyuncs.com/compatible-mode/v1", `{"thinking_budget":300}`, true},
		{"ollama/qwen3", "", ``, true},
		{"llamacpp/qwen3", "", ``, true},
	} {
		opt := model.Options{BaseURL: c.base, HTTPClient: to(t, srv.URL)}
		if c.base == "" {
			opt.BaseURL = srv.URL
		}
		m, err := newModel(c.name, opt)
		if err != nil {
			t.Fatal(err)
		}
		req := providertest.FullRequest()
		req.Settings.ReasoningEffort, req.Settings.ReasoningTokens = model.ReasoningLow, 300
		if _, err := m.Complete(context.Background(), req); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		calls := srv.Calls()
		body := calls[len(calls)-1].Body
		got := map[string]any{}
		for _, k := range []string{"thinking_token_budget", "reasoning", "extra_body", "thinking_budget"} {
			if v, ok := body[k]; ok {
				got[k] = v
			}
		}
		gotJSON := ""
		if len(got) > 0 {
			b, _ := json.Marshal(got)
			gotJSON = string(b)
		}
		if gotJSON != c.budget {
			t.Errorf("%s: budget sent as %s, want %s", c.name, gotJSON, c.budget)
		}
		if effort := body["reasoning_effort"] == "low"; effort != c.effort {
			t.Errorf("%s: reasoning_effort %v sent, want sent %v", c.name, body["reasoning_effort"], c.effort)
		}
		// What is left out is said and recorded as not sent.
		want := ""
		switch {
		case c.budget == "":
			want = "reasoning_tokens"
		case !c.effort:
			want = "reasoning_effort"
		}
		if _, dropped := m.Info().Sendable(req.Settings); strings.Join(dropped, ",") != want {
			t.Errorf("%s: Sendable leaves out %v, want %q", c.name, dropped, want)
		}
	}
}

// to is a client that sends every request to target's host and its
// chat-completions path, whatever server it was for.
func to(t *testing.T, target string) *http.Client {
	u, err := url.Parse(target)
	if err != nil {
		t.Fatal(err)
	}
	return &http.Client{Transport: roundTripFunc(func(r *http.Request) (*http.Response, error) {
		r = r.Clone(r.Context())
		r.URL.Scheme, r.URL.Host, r.URL.Path = u.Scheme, u.Host, "/v1/chat/completions"
		return http.DefaultTransport.RoundTrip(r)
	})}
}

// The newest knobs reach the request body as each API takes them:
// verbosity as chat's verbosity and the Responses API's text.verbosity,
// reasoning_effort xhigh as given, max (Claude's most) to an OpenAI model
// as xhigh (OpenAI's most), said as sent so, and to another server as
// given; a thinking type (Anthropic's) is sent to none of them, said.
func TestNewestKnobs(t *testing.T) {
	chat := fakeserver.NewOpenAI(t, fakeserver.Options{Reply: fakeserver.OpenAIReasoning(func(fakeserver.Call) fakeserver.Reply { return fakeserver.Reply{Text: "4"} })})
	responses := newResponsesFake(t, fakeserver.Options{})
	for _, c := range []struct {
		name, url string
		in        model.Settings
		body      string // the members sent, as JSON
		notes     string // the settings said not sent as asked, name=as
		recorded  model.Settings
	}{
		{"openai/gpt-5.2", chat.URL, model.Settings{ReasoningEffort: "xhigh", Verbosity: "low"},
			`{"reasoning_effort":"xhigh","verbosity":"low"}`, "", model.Settings{ReasoningEffort: "xhigh", Verbosity: "low"}},
		{"openai/gpt-5.2", chat.URL, model.Settings{ReasoningEffort: "max", Thinking: "adaptive"},
			`{"reasoning_effort":"xhigh"}`, "thinking=,reasoning_effort=xhigh", model.Settings{ReasoningEffort: "xhigh"}},
		{"openai-api/router/anthropic/claude-opus-4.7", chat.URL, model.Settings{ReasoningEffort: "max", Verbosity: "high"},
			`{"reasoning_effort":"max","verbosity":"high"}`, "", model.Settings{ReasoningEffort: "max", Verbosity: "high"}},
		{"openai-responses/gpt-5.2", responses.URL, model.Settings{ReasoningEffort: "max", Verbosity: "medium", Thinking: "adaptive"},
			`{"reasoning":{"effort":"xhigh","summary":"auto"},"text":{"verbosity":"medium"}}`, "thinking=,reasoning_effort=xhigh",
			model.Settings{ReasoningEffort: "xhigh", Verbosity: "medium"}},
	} {
		m, err := newModel(c.name, model.Options{BaseURL: c.url, APIKey: "sk-test"})
		if err != nil {
			t.Fatal(err)
		}
		req := providertest.FullRequest()
		req.Settings = c.in
		if _, err := m.Complete(context.Background(), req); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		srv := chat
		if strings.HasPrefix(c.name, "openai-responses/") {
			srv = responses
		}
		calls := srv.Calls()
		body := calls[len(calls)-1].Body
		got := map[string]any{}
		for _, k := range []string{"reasoning_effort", "verbosity", "reasoning", "text", "thinking"} {
			if v, ok := body[k]; ok {
				got[k] = v
			}
		}
		if b, _ := json.Marshal(got); string(b) != c.body {
			t.Errorf("%s %+v: sent %s, want %s", c.name, c.in, b, c.body)
		}
		sent, notes, err := model.SendSettings(m, m.Info(), c.in)
		if err != nil {
			t.Fatal(err)
		}
		var said []string
		for _, n := range notes {
			said = append(said, n.Name+"="+n.As)
		}
		if strings.Join(said, ",") != c.notes {
			t.Errorf("%s %+v: said %q, want %q", c.name, c.in, said, c.notes)
		}
		// What is recorded as sent is what was sent.
		if !sent.Equal(c.recorded) {
			t.Errorf("%s %+v: recorded as sent %+v, want %+v", c.name, c.in, sent, c.recorded)
		}
	}
}
