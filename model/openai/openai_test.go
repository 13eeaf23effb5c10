package openai

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/evalmd/evalmd/internal/testkit/fakeserver"
	"github.com/evalmd/evalmd/model"
	"github.com/evalmd/evalmd/model/internal/providertest"
	"github.com/evalmd/evalmd/runner"
)

func TestOpenAIRequestAndUsage(t *testing.T) {
	srv := fakeserver.NewOpenAI(t, fakeserver.Options{
		Reply: func(c fakeserver.Call) fakeserver.Reply {
			return fakeserver.Reply{Text: "a cat", InputTokens: 321, OutputTokens: 12, Model: "gpt-4o-2024-08-06"}
		},
	})
	// No base URL: the model is OpenAI's own, and its requests reach the
	// fake server through a client that redirects api.openai.com.
	m, err := newModel("openai/gpt-4o", model.Options{APIKey: "sk-test-key", HTTPClient: redirect(t, srv.URL)})
	if err != nil {
		t.Fatal(err)
	}
	resp, err := m.Complete(context.Background(), providertest.FullRequest())
	if err != nil {
		t.Fatal(err)
	}
	want := model.Response{Text: "a cat", InputTokens: 321, OutputTokens: 12, Model: "gpt-4o-2024-08-06", FinishReason: "stop"}
	if !reflect.DeepEqual(resp, want) {
		t.Errorf("response = %+v, want %+v", resp, want)
	}
	calls := srv.Calls()
	if len(calls) != 1 {
		t.Fatalf("server saw %d calls, want 1", len(calls))
	}
	c := calls[0]
	if got := c.Header.Get("Authorization"); got != "Bearer sk-test-key" {
		t.Errorf("Authorization = %q", got)
	}
	if c.Model != "gpt-4o" {
		t.Errorf("model = %q, want gpt-4o", c.Model)
	}
	roles := []string{}
	for _, msg := range c.Messages {
		roles = append(roles, msg.Role)
	}
	if strings.Join(roles, ",") != "system,user,assistant,user" {
		t.Errorf("roles = %v", roles)
	}
	if c.System != "You are terse." {
		t.Errorf("system = %q", c.System)
	}
	if c.Messages[1].Text != "first question" || c.Messages[2].Text != "first answer" || c.Messages[3].Text != "What is in the picture?" {
		t.Errorf("message texts = %+v", c.Messages)
	}
	imgs := c.Messages[3].Images
	if len(imgs) != 1 || imgs[0].MediaType != "image/png" || !bytes.Equal(imgs[0].Data, providertest.PNG) {
		t.Errorf("images = %+v", imgs)
	}
	s := c.Settings
	if s.Temperature == nil || *s.Temperature != 0.25 || s.TopP == nil || *s.TopP != 0.9 {
		t.Errorf("temperature/top_p = %v/%v", s.Temperature, s.TopP)
	}
	// OpenAI itself gets max_completion_tokens, never the deprecated max_tokens.
	if s.MaxCompletionTokens == nil || *s.MaxCompletionTokens != 123 || s.MaxTokens != nil {
		t.Errorf("max_completion_tokens = %v, max_tokens = %v", s.MaxCompletionTokens, s.MaxTokens)
	}
	if s.Seed == nil || *s.Seed != 42 {
		t.Errorf("seed = %v", s.Seed)
	}
	if strings.Join(s.Stop, "|") != "END|STOP" {
		t.Errorf("stop = %v", s.Stop)
	}
}

func TestOpenAICompatibleSendsMaxTokensAndNoForeignKey(t *testing.T) {
	srv := fakeserver.NewOpenAI(t, fakeserver.Options{})
	env := map[string]string{"OPENAI_API_KEY": "sk-real-openai-key"}
	// openai/ at another server too: llama.cpp ignores max_completion_tokens.
	for _, name := range []string{"vllm/qwen", "ollama/llama3", "llamacpp/x", "openai-api/together/meta/llama", "some-model", "openai/gpt-4o"} {
		m, err := newModel(name, model.Options{BaseURL: srv.URL, Getenv: func(k string) string { return env[k] }})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		req := model.Request{Messages: []model.Message{{Role: "user", Content: "hi"}}, Settings: model.Settings{MaxTokens: 7}}
		if _, err := m.Complete(context.Background(), req); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
	}
	wantModels := []string{"qwen", "llama3", "x", "meta/llama", "some-model", "gpt-4o"}
	calls := srv.Calls()
	if len(calls) != len(wantModels) {
		t.Fatalf("got %d calls, want %d", len(calls), len(wantModels))
	}
	for i, c := range calls {
		if c.Model != wantModels[i] {
			t.Errorf("call %d: model %q, want %q", i, c.Model, wantModels[i])
		}
		if c.Settings.MaxTokens == nil || *c.Settings.MaxTokens != 7 || c.Settings.MaxCompletionTokens != nil {
			t.Errorf("call %d: max_tokens = %v, max_completion_tokens = %v", i, c.Settings.MaxTokens, c.Settings.MaxCompletionTokens)
		}
		wantAuth := ""
		if wantModels[i] == "gpt-4o" {
			wantAuth = "Bearer sk-real-openai-key" // the name says openai/: its key goes where the user pointed it
		}
		if got := c.Header.Get("Authorization"); got != wantAuth {
			t.Errorf("call %d: Authorization %q, want %q (OPENAI_API_KEY only with openai/ names)", i, got, wantAuth)
		}
		// llama-server serves a connection per HTTP thread, of which it
		// has few: kept alive, ours held them (newClient says more).
		if got, want := c.Header.Get("Connection") == "close", wantModels[i] == "x"; got != want {
			t.Errorf("call %d: Connection: close sent %v, want %v (llama.cpp only)", i, got, want)
		}
		if c.System != "" || len(c.Messages) != 1 {
			t.Errorf("call %d: want one user message and no system, got %+v", i, c.Messages)
		}
		if s := c.Settings; s.Temperature != nil || s.TopP != nil || s.Seed != nil || s.Stop != nil {
			t.Errorf("call %d: unset settings were sent: %+v", i, s)
		}
	}
}

func TestOpenAIErrorClassification(t *testing.T) {
	providertest.CheckErrorCases(t,
		func(t *testing.T, o fakeserver.Options) *fakeserver.Server { return fakeserver.NewOpenAI(t, o) },
		func(url string, timeout time.Duration) (model.Model, error) {
			return newModel("openai/gpt-4o", model.Options{BaseURL: url, APIKey: "test-key-1", Timeout: timeout})
		})
}

func TestOpenAIKeyNeverInError(t *testing.T) {
	providertest.CheckKeyNeverInError(t, func(t *testing.T, o fakeserver.Options) *fakeserver.Server { return fakeserver.NewOpenAI(t, o) },
		func(url, key string) (model.Model, error) {
			return newModel("openai/gpt-4o", model.Options{BaseURL: url, APIKey: key})
		})
}

func TestOpenAICallerCancelIsNotAPIError(t *testing.T) {
	srv := fakeserver.NewOpenAI(t, fakeserver.Options{Latency: 5 * time.Second})
	m, err := newModel("openai/gpt-4o", model.Options{BaseURL: srv.URL, APIKey: "test-key-1"})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	_, err = m.Complete(ctx, model.Request{Messages: []model.Message{{Role: "user", Content: "hi"}}})
	var apiErr *model.APIError
	if !errors.Is(err, context.DeadlineExceeded) || errors.As(err, &apiErr) {
		t.Errorf("want the caller's context error, not an APIError; got %v", err)
	}
}

func TestOpenAIBadRequestsFailBeforeSending(t *testing.T) {
	srv := fakeserver.NewOpenAI(t, fakeserver.Options{})
	m, err := newModel("openai/gpt-4o", model.Options{BaseURL: srv.URL, APIKey: "test-key-1"})
	if err != nil {
		t.Fatal(err)
	}
	for _, req := range []model.Request{
		{},
		{Messages: []model.Message{{Role: "tool", Content: "x"}}},
		{Messages: []model.Message{{Role: "user", Content: "x", Images: []model.Image{{MediaType: "image/png"}}}}},
	} {
		if _, err := m.Complete(context.Background(), req); err == nil {
			t.Errorf("request %+v: want an error", req)
		}
	}
	if n := srv.Count(); n != 0 {
		t.Errorf("server saw %d requests, want 0", n)
	}
}

func TestOpenAIConcurrentUse(t *testing.T) {
	srv := fakeserver.NewOpenAI(t, fakeserver.Options{
		Latency: 50 * time.Millisecond,
		Reply: func(c fakeserver.Call) fakeserver.Reply {
			return fakeserver.Reply{Text: "re: " + c.LastUserText()}
		},
	})
	m, err := newModel("vllm/x", model.Options{BaseURL: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	const n = 16
	errs := make(chan error, n)
	for i := range n {
		go func() {
			q := fmt.Sprintf("question %d", i)
			resp, err := m.Complete(context.Background(), model.Request{Messages: []model.Message{{Role: "user", Content: q}}})
			if err == nil && resp.Text != "re: "+q {
				err = fmt.Errorf("%s: got %q", q, resp.Text)
			}
			errs <- err
		}()
	}
	for range n {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
	if got := srv.MaxInFlight(); got < 2 {
		t.Errorf("MaxInFlight = %d: requests were serialised", got)
	}
}

// newModel builds a model the way the commands do, with this package's
// providers in a registry of their own.
func newModel(name string, opt model.Options) (model.Model, error) {
	r := model.NewRegistry()
	Register(r)
	return r.New(name, opt)
}

// redirect returns a client that sends every request to target's host
// instead of the one asked for, so a test can talk to "api.openai.com".
func redirect(t *testing.T, target string) *http.Client {
	u, err := url.Parse(target)
	if err != nil {
		t.Fatal(err)
	}
	return &http.Client{Transport: roundTripFunc(func(r *http.Request) (*http.Response, error) {
		if r.URL.Host != "api.openai.com" {
			return nil, fmt.Errorf("request to %s, want api.openai.com", r.URL.Host)
		}
		r = r.Clone(r.Context())
		r.URL.Scheme, r.URL.Host = u.Scheme, u.Host
		return http.DefaultTransport.RoundTrip(r)
	})}
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

func TestNewResolvesServersKeysAndInfo(t *testing.T) {
	env := map[string]string{
		"OPENAI_API_KEY":   "env-openai-key",
		"TOGETHER_API_KEY": "env-together-key",
		"MY_BOX_API_KEY":   "env-box-key",
		"MY_BOX_BASE_URL":  "http://box:9000/v1",
		"VLLM_API_KEY":     "env-vllm-key",
		"LLAMACPP_API_KEY": "env-llamacpp-key",
		"CUSTOM_KEY":       "env-custom-key",
	}
	getenv := func(k string) string { return env[k] }
	gpt4o, _ := model.LookupPrice("gpt-4o")
	for _, tc := range []struct {
		name     string
		opt      model.Options
		provider string
		model    string
		base     string
		key      string
		maxCT    bool // max_completion_tokens dialect
		vision   bool
		price    *model.Price
		limit    int
		err      string
	}{
		{name: "openai/gpt-4o", provider: "openai", model: "gpt-4o", base: openAIURL, key: "env-openai-key", maxCT: true, vision: true, price: &gpt4o, limit: 128000},
		{name: "gpt-4", provider: "openai", model: "gpt-4", base: openAIURL, key: "env-openai-key", maxCT: true, vision: true, price: &model.Price{In: 30, Out: 60}, limit: 8192},
		{name: "gpt-3.5-turbo", provider: "openai", model: "gpt-3.5-turbo", base: openAIURL, key: "env-openai-key", maxCT: true, price: &model.Price{In: 0.5, Out: 1.5}, limit: 16385},
		{name: "o3-mini", provider: "openai", model: "o3-mini", base: openAIURL, key: "env-openai-key", maxCT: true, vision: true, price: &model.Price{In: 1.1, Out: 4.4, CachedIn: 0.55}, limit: 200000},
		// openai/ elsewhere: OpenAI's key (the name asks for it), max_tokens, no price.
		{name: "openai/gpt-4o", opt: model.Options{APIKey: "flag-key", BaseURL: "http://proxy/v1"}, provider: "openai", model: "gpt-4o", base: "http://proxy/v1", key: "flag-key", vision: true, limit: 128000},
		{name: "ollama/llama3:8b", provider: "ollama", model: "llama3:8b", base: ollamaURL, price: &model.Price{}},
		{name: "vllm/Qwen/Qwen2.5-7B", provider: "vllm", model: "Qwen/Qwen2.5-7B", base: vllmURL, key: "env-vllm-key", price: &model.Price{}},
		{name: "llamacpp/any", provider: "llamacpp", model: "any", base: llamaCppURL, key: "env-llamacpp-key", price: &model.Price{}},
		{name: "llamacpp/any", opt: model.Options{APIKeyEnv: "CUSTOM_KEY"}, provider: "llamacpp", model: "any", base: llamaCppURL, key: "env-custom-key", price: &model.Price{}},
		{name: "ollama/llama3", opt: model.Options{BaseURL: "http://gpu:11434/v1", APIKey: "k2"}, provider: "ollama", model: "llama3", base: "http://gpu:11434/v1", key: "k2", price: &model.Price{}},
		{name: "openai-api/together/meta-llama/Llama-3-8b", opt: model.Options{BaseURL: "https://api.together.xyz/v1"}, provider: "openai-api", model: "meta-llama/Llama-3-8b", base: "https://api.together.xyz/v1", key: "env-together-key"},
		{name: "openai-api/my-box/m", provider: "openai-api", model: "m", base: "http://box:9000/v1", key: "env-box-key"},
		{name: "meta-llama/Llama-3-8b", opt: model.Options{BaseURL: "http://h/v1"}, provider: "openai-api", model: "meta-llama/Llama-3-8b", base: "http://h/v1"},
		// A local server named gpt-4 is neither priced nor keyed as OpenAI.
		{name: "gpt-4", opt: model.Options{BaseURL: "http://h/v1"}, provider: "openai-api", model: "gpt-4", base: "http://h/v1"},
		{name: "gpt-4", opt: model.Options{BaseURL: "http://h/v1", APIKeyEnv: "CUSTOM_KEY"}, provider: "openai-api", model: "gpt-4", base: "http://h/v1", key: "env-custom-key"},
		{name: "claude-3-haiku", opt: model.Options{BaseURL: "http://h/v1"}, provider: "openai-api", model: "claude-3-haiku", base: "http://h/v1"},
		{name: "openai/", err: "no model"},
		{name: "vllm/", err: "no model"},
		{name: "openai-api/together/x", err: "TOGETHER_BASE_URL"},
		{name: "openai-api/x", opt: model.Options{BaseURL: "http://h"}, err: "openai-api/NAME/MODEL"},
		{name: "gpt-4", opt: model.Options{APIKeyEnv: "UNSET_VAR"}, err: "UNSET_VAR"},
	} {
		opt := tc.opt
		opt.Getenv = getenv
		m, err := newModel(tc.name, opt)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("New(%q) error = %v, want one containing %q", tc.name, err, tc.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("New(%q): %v", tc.name, err)
			continue
		}
		c := m.(*chatModel).cfg
		info := m.Info()
		if m.Name() != tc.name || info.Provider != tc.provider || info.Model != tc.model || info.BaseURL != tc.base || c.key != tc.key || c.maxCompletionTokens != tc.maxCT {
			t.Errorf("New(%q) = %s %+v key %q maxCT %v; want %s %s %s key %q maxCT %v", tc.name, m.Name(), info, c.key, c.maxCompletionTokens, tc.provider, tc.model, tc.base, tc.key, tc.maxCT)
		}
		if info.Vision != tc.vision || info.ContextLimit != tc.limit || fmt.Sprint(info.Price) != fmt.Sprint(tc.price) || info.Offline {
			t.Errorf("New(%q).Info() = %+v (price %v), want vision %v limit %d price %v", tc.name, info, info.Price, tc.vision, tc.limit, tc.price)
		}
	}
}

func TestNewReadsOnlyGetenv(t *testing.T) {
	// No Getenv: the process environment is never read, so OpenAI without
	// a key fails at New, naming the variable.
	t.Setenv("OPENAI_API_KEY", "from-process-env")
	for _, name := range []string{"openai/gpt-4o", "gpt-4"} {
		if _, err := newModel(name, model.Options{}); err == nil || !strings.Contains(err.Error(), "OPENAI_API_KEY") {
			t.Errorf("New(%q) without a key: error %v, want one naming OPENAI_API_KEY", name, err)
		}
	}
	// OPENAI_BASE_URL moves OpenAI, both its APIs (the Responses API is
	// at openai's server, not at an OPENAI_RESPONSES one), and then a key
	// is optional.
	env := map[string]string{"OPENAI_BASE_URL": "http://local/v1", "OPENAI_RESPONSES_BASE_URL": "http://elsewhere/v1"}
	for _, name := range []string{"openai/gpt-4o", "openai-responses/gpt-4o"} {
		m, err := newModel(name, model.Options{Getenv: func(k string) string { return env[k] }})
		if err != nil {
			t.Fatal(err)
		}
		if info := m.Info(); info.BaseURL != "http://local/v1" {
			t.Errorf("%s: base URL %q, want OPENAI_BASE_URL's", name, info.BaseURL)
		}
		if c, ok := m.(*chatModel); ok && (c.cfg.key != "" || c.cfg.maxCompletionTokens) {
			t.Errorf("cfg = %+v", c.cfg)
		}
	}
}

// A key from NAME_API_KEY reaches the server named NAME, and only it.
func TestOpenAIAPIKeyFromNameVariable(t *testing.T) {
	srv := fakeserver.NewOpenAI(t, fakeserver.Options{})
	env := map[string]string{"LOCAL_API_KEY": "sk-local", "OPENAI_API_KEY": "sk-openai"}
	m, err := newModel("openai-api/local/tiny", model.Options{BaseURL: srv.URL, Getenv: func(k string) string { return env[k] }})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.Complete(context.Background(), model.Request{Messages: []model.Message{{Role: "user", Content: "hi"}}}); err != nil {
		t.Fatal(err)
	}
	if got := srv.Calls()[0].Header.Get("Authorization"); got != "Bearer sk-local" {
		t.Errorf("Authorization = %q, want the LOCAL_API_KEY", got)
	}
}

func TestOpenAIToolCalls(t *testing.T) {
	providertest.CheckToolCalls(t,
		func(t *testing.T, o fakeserver.Options) *fakeserver.Server { return fakeserver.NewOpenAI(t, o) },
		func(url string) (model.Model, error) {
			return newModel("openai/gpt-4o", model.Options{BaseURL: url, APIKey: "test-key-1"})
		})
}

// --completion-api: the request goes to /v1/completions as one raw prompt
// (system, then user text, a blank line between), with the settings.
func TestCompletionAPI(t *testing.T) {
	srv := fakeserver.NewOpenAICompletions(t, fakeserver.Options{MaxRequests: 5, Reply: func(c fakeserver.Call) fakeserver.Reply {
		return fakeserver.Reply{Text: " df.shape[0]\n[end of text]", InputTokens: 30, OutputTokens: 4}
	}})
	r := model.NewRegistry()
	Register(r)
	m, err := r.New("llamacpp/stable-code-3b", model.Options{BaseURL: srv.URL, Provider: []any{Options{CompletionAPI: true}}})
	if err != nil {
		t.Fatal(err)
	}
	req := model.Request{System: "sys", Messages: []model.Message{{Role: "user", Content: "def answer(df):\n    return"}},
		Settings: model.Settings{MaxTokens: 64, Stop: []string{"\n\n"}}}
	// The same task sent as a text completion is another request than
	// chat's: its key is another, so a chat answer is never reused for it.
	chat, err := r.New("llamacpp/stable-code-3b", model.Options{BaseURL: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	task := model.Task{Request: req}
	if m.Info().Endpoint != "completions" || runner.RequestKey(m.Name(), m.Info(), task) == runner.RequestKey(chat.Name(), chat.Info(), task) {
		t.Errorf("endpoint %q: the completion's request key is the chat request's", m.Info().Endpoint)
	}
	resp, err := m.Complete(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if resp.Text != " df.shape[0]\n[end of text]" || resp.InputTokens != 30 || resp.FinishReason != "stop" {
		t.Errorf("resp %+v", resp)
	}
	c := srv.Calls()[0]
	if c.LastUserText() != "sys\n\ndef answer(df):\n    return" || c.Model != "stable-code-3b" {
		t.Errorf("prompt %q model %q", c.LastUserText(), c.Model)
	}
	if c.Settings.MaxTokens == nil || *c.Settings.MaxTokens != 64 || len(c.Settings.Stop) != 1 {
		t.Errorf("settings %+v", c.Settings)
	}
	req.Tools = []model.Tool{{Name: "python"}}
	if _, err := m.Complete(context.Background(), req); err == nil || !strings.Contains(err.Error(), "tools") {
		t.Errorf("tools over the completions API: %v", err)
	}
	// The completions API has no member for the reasoning settings or the
	// verbosity: none is sent, and what is recorded as sent says so.
	sent, notes, err := model.SendSettings(m, m.Info(), model.Settings{MaxTokens: 64, ReasoningEffort: "high", ReasoningTokens: 500, Verbosity: "low"})
	if err != nil || !sent.Equal(model.Settings{MaxTokens: 64}) || len(notes) != 3 {
		t.Errorf("sent %+v, notes %+v, %v", sent, notes, err)
	}
	req.Tools, req.Settings = nil, model.Settings{ReasoningEffort: "high", ReasoningTokens: 500, Verbosity: "low"}
	if _, err := m.Complete(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"reasoning_effort", "verbosity", "thinking_token_budget"} {
		if _, ok := srv.Calls()[1].Body[k]; ok {
			t.Errorf("%s sent to the completions API", k)
		}
	}
}

func TestOpenAIReplyCap(t *testing.T) {
	providertest.CheckReplyCap(t, func(t *testing.T, o fakeserver.Options) *fakeserver.Server { return fakeserver.NewOpenAI(t, o) },
		func(url string, limit int64) (model.Model, error) {
			return newModel("openai/gpt-4o", model.Options{BaseURL: url, APIKey: "test-key-1", MaxReply: limit})
		})
}

// A 200 without choices says what the server put in their place (an
// error, as gateways relay an upstream failure), retryable unless it
// refuses the account; without one it is a malformed reply. Before, both
// were "malformed reply: no choices".
func TestNoChoices(t *testing.T) {
	for _, tc := range []struct {
		body      string
		want      string
		retryable bool
	}{
		{`{"error":{"message":"Upstream timed out, sk-no-key","code":502},"choices":[]}`, "the server answered with an error: Upstream timed out, [redacted]", true},
		{`{"error":{"type":"insufficient_quota","message":"out of credit"}}`, "the server answered with an error: insufficient_quota: out of credit", false},
		{`{"error":null,"choices":[]}`, "malformed reply: no choices", true},
		{`{"id":"x"}`, "malformed reply: no choices", true},
	} {
		for _, completion := range []bool{false, true} {
			srv := fakeserver.NewOpenAI(t, fakeserver.Options{MaxRequests: 1, Reply: func(fakeserver.Call) fakeserver.Reply {
				return fakeserver.Reply{Status: 200, RawBody: tc.body}
			}})
			if completion {
				srv = fakeserver.NewOpenAICompletions(t, fakeserver.Options{MaxRequests: 1, Reply: func(fakeserver.Call) fakeserver.Reply {
					return fakeserver.Reply{Status: 200, RawBody: tc.body}
				}})
			}
			m, err := newModel("openai-api/gw/m", model.Options{BaseURL: srv.URL, APIKey: "sk-no-key", Provider: []any{Options{CompletionAPI: completion}}})
			if err != nil {
				t.Fatal(err)
			}
			_, err = m.Complete(context.Background(), model.Request{Messages: []model.Message{{Role: "user", Content: "hi"}}})
			var ae *model.APIError
			if !errors.As(err, &ae) || !strings.Contains(err.Error(), tc.want) || ae.Retryable != tc.retryable || strings.Contains(err.Error(), "sk-no-key") {
				t.Errorf("%s (completion API %v): %v, retryable %v; want %q, retryable %v", tc.body, completion, err, ae != nil && ae.Retryable, tc.want, tc.retryable)
			}
		}
	}
}

// Chat and the Responses API refuse a request no provider can send
// before any call (model.Request.Check).
func TestRefusesBadRequest(t *testing.T) {
	for _, name := range []string{"openai-api/x/m", "openai-responses/o3"} {
		m, err := newModel(name, model.Options{BaseURL: "http://127.0.0.1:1/v1", APIKey: "k"})
		if err != nil {
			t.Fatal(err)
		}
		providertest.RefusesBadRequest(t, m)
	}
}
