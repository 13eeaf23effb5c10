package anthropic

import (
	"bytes"
	"context"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/evalmd/evalmd/internal/testkit/fakeserver"
	"github.com/evalmd/evalmd/model"
	"github.com/evalmd/evalmd/model/internal/providertest"
)

func newFakeAnthropic(t *testing.T, o fakeserver.Options) *fakeserver.Server {
	return fakeserver.NewAnthropic(t, o)
}

func TestAnthropicRequestAndUsage(t *testing.T) {
	srv := newFakeAnthropic(t, fakeserver.Options{
		Reply: func(c fakeserver.Call) fakeserver.Reply {
			return fakeserver.Reply{Text: "a cat", InputTokens: 400, OutputTokens: 9, Model: "claude-sonnet-4-5-20250929"}
		},
	})
	m, err := newModel("anthropic/claude-sonnet-4-5", model.Options{BaseURL: srv.URL, APIKey: "sk-ant-test"})
	if err != nil {
		t.Fatal(err)
	}
	resp, err := m.Complete(context.Background(), providertest.FullRequest())
	if err != nil {
		t.Fatal(err)
	}
	want := model.Response{Text: "a cat", InputTokens: 400, OutputTokens: 9, Model: "claude-sonnet-4-5-20250929", FinishReason: "end_turn"}
	if !reflect.DeepEqual(resp, want) {
		t.Errorf("response = %+v, want %+v", resp, want)
	}
	calls := srv.Calls()
	if len(calls) != 1 {
		t.Fatalf("server saw %d calls, want 1", len(calls))
	}
	c := calls[0]
	if got := c.Header.Get("X-Api-Key"); got != "sk-ant-test" {
		t.Errorf("x-api-key = %q", got)
	}
	if c.Header.Get("Anthropic-Version") == "" {
		t.Error("no anthropic-version header")
	}
	if c.Model != "claude-sonnet-4-5" || c.System != "You are terse." {
		t.Errorf("model %q system %q", c.Model, c.System)
	}
	if len(c.Messages) != 3 {
		t.Fatalf("messages = %+v, want 3 (system goes in its own field)", c.Messages)
	}
	for i, want := range []struct{ role, text string }{
		{"user", "first question"}, {"assistant", "first answer"}, {"user", "What is in the picture?"},
	} {
		if c.Messages[i].Role != want.role || c.Messages[i].Text != want.text {
			t.Errorf("message %d = %+v, want %+v", i, c.Messages[i], want)
		}
	}
	imgs := c.Messages[2].Images
	if len(imgs) != 1 || imgs[0].MediaType != "image/png" || !bytes.Equal(imgs[0].Data, providertest.PNG) {
		t.Errorf("images = %+v", imgs)
	}
	s := c.Settings
	if s.Temperature == nil || *s.Temperature != 0.25 || s.TopP == nil || *s.TopP != 0.9 {
		t.Errorf("temperature/top_p = %v/%v", s.Temperature, s.TopP)
	}
	if s.MaxTokens == nil || *s.MaxTokens != 123 {
		t.Errorf("max_tokens = %v, want 123", s.MaxTokens)
	}
	if strings.Join(s.Stop, "|") != "END|STOP" {
		t.Errorf("stop_sequences = %v", s.Stop)
	}
	if _, ok := c.Body["seed"]; ok {
		t.Error("seed sent to Anthropic, which has none")
	}
}

func TestAnthropicDefaults(t *testing.T) {
	srv := newFakeAnthropic(t, fakeserver.Options{})
	m, err := newModel("anthropic/claude-3-5-haiku-latest", model.Options{BaseURL: srv.URL, APIKey: "sk-ant-test"})
	if err != nil {
		t.Fatal(err)
	}
	resp, err := m.Complete(context.Background(), model.Request{Messages: []model.Message{
		{Role: "user", Images: []model.Image{{MediaType: "image/jpeg", Data: []byte("jpeg")}}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	if resp.Text != "fake reply" || resp.InputTokens != 10 || resp.OutputTokens != 5 {
		t.Errorf("response = %+v", resp)
	}
	c := srv.Calls()[0]
	if c.Settings.MaxTokens == nil || *c.Settings.MaxTokens != defaultMaxTokens {
		t.Errorf("max_tokens = %v, want the default %d", c.Settings.MaxTokens, defaultMaxTokens)
	}
	if _, ok := c.Body["system"]; ok {
		t.Error("system sent though the request has none")
	}
	for _, k := range []string{"temperature", "top_p", "stop_sequences"} {
		if _, ok := c.Body[k]; ok {
			t.Errorf("%s sent though unset", k)
		}
	}
	// An image-only turn carries no empty text block (Anthropic rejects those).
	if msg := c.Messages[0]; len(msg.Images) != 1 || msg.Text != "" {
		t.Errorf("message = %+v", msg)
	}
	if blocks := c.Body["messages"].([]any)[0].(map[string]any)["content"].([]any); len(blocks) != 1 {
		t.Errorf("content blocks = %v, want the image alone", blocks)
	}
}

func TestAnthropicErrorClassification(t *testing.T) {
	providertest.CheckErrorCases(t, newFakeAnthropic, func(url string, timeout time.Duration) (model.Model, error) {
		return newModel("anthropic/claude-sonnet-4-5", model.Options{BaseURL: url, APIKey: "test-key-1", Timeout: timeout})
	})
}

func TestAnthropicKeyNeverInError(t *testing.T) {
	providertest.CheckKeyNeverInError(t, newFakeAnthropic, func(url, key string) (model.Model, error) {
		return newModel("anthropic/claude-sonnet-4-5", model.Options{BaseURL: url, APIKey: key})
	})
}

func newModel(name string, opt model.Options) (model.Model, error) {
	r := model.NewRegistry()
	Register(r)
	return r.New(name, opt)
}

func TestNewKeysAndInfo(t *testing.T) {
	env := map[string]string{"ANTHROPIC_API_KEY": "env-anthropic-key", "OTHER": "env-other"}
	getenv := func(k string) string { return env[k] }
	sonnet, _ := model.LookupPrice("claude-sonnet-4-5")
	for _, tc := range []struct {
		name  string
		opt   model.Options
		model string
		key   string
		base  string
		price *model.Price
	}{
		{name: "anthropic/claude-sonnet-4-5", model: "claude-sonnet-4-5", key: "env-anthropic-key", base: anthropicURL, price: &sonnet},
		{name: "claude-sonnet-4-5-20250929", model: "claude-sonnet-4-5-20250929", key: "env-anthropic-key", base: anthropicURL, price: &sonnet},
		{name: "anthropic/claude-3-haiku", opt: model.Options{APIKeyEnv: "OTHER"}, model: "claude-3-haiku", key: "env-other", base: anthropicURL, price: &model.Price{In: 0.25, Out: 1.25, CachedIn: 0.025, CacheWrite: 0.3125}},
		// Another server: not priced as Anthropic's.
		{name: "anthropic/claude-3-haiku", opt: model.Options{BaseURL: "http://h"}, model: "claude-3-haiku", key: "env-anthropic-key", base: "http://h"},
	} {
		opt := tc.opt
		opt.Getenv = getenv
		m, err := newModel(tc.name, opt)
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		info := m.Info()
		if c := m.(*messagesModel).cfg; c.key != tc.key || info.Model != tc.model || info.BaseURL != tc.base || !info.Vision || info.ContextLimit != 200000 || fmt.Sprint(info.Price) != fmt.Sprint(tc.price) {
			t.Errorf("%s: key %q info %+v price %v; want key %q model %s base %s price %v", tc.name, c.key, info, info.Price, tc.key, tc.model, tc.base, tc.price)
		}
	}
	// No Getenv: the process environment is never read.
	t.Setenv("ANTHROPIC_API_KEY", "from-process-env")
	if _, err := newModel("anthropic/claude-3-haiku", model.Options{}); err == nil || !strings.Contains(err.Error(), "ANTHROPIC_API_KEY") {
		t.Errorf("without a key: %v, want an error naming ANTHROPIC_API_KEY", err)
	}
}

func TestAnthropicToolCalls(t *testing.T) {
	providertest.CheckToolCalls(t, newFakeAnthropic, func(url string) (model.Model, error) {
		return newModel("anthropic/claude-sonnet-4-5", model.Options{BaseURL: url, APIKey: "test-key-1"})
	})
}

func TestAnthropicReplyCap(t *testing.T) {
	providertest.CheckReplyCap(t, newFakeAnthropic, func(url string, limit int64) (model.Model, error) {
		return newModel("anthropic/claude-sonnet-4-5", model.Options{BaseURL: url, APIKey: "test-key-1", MaxReply: limit})
	})
}

// A request no provider can send is refused before any call
// (model.Request.Check).
func TestRefusesBadRequest(t *testing.T) {
	m, err := newModel("anthropic/claude-sonnet-4-5", model.Options{BaseURL: "http://127.0.0.1:1", APIKey: "k"})
	if err != nil {
		t.Fatal(err)
	}
	providertest.RefusesBadRequest(t, m)
}
