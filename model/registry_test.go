package model

import (
	"io"
	"net/http"
	"strings"
	"testing"
)

func TestNewParsesNames(t *testing.T) {
	env := map[string]string{
		"OPENAI_API_KEY":    "env-openai-key",
		"ANTHROPIC_API_KEY": "env-anthropic-key",
	}
	getenv := func(k string) string { return env[k] }
	for _, tc := range []struct {
		name     string
		opt      Options
		kind     string // "openai", "anthropic", "mock", "random", "oracle"
		provider string
		model    string
		base     string
		key      string
		maxCT    bool // max_completion_tokens dialect
		err      string
	}{
		{name: "openai/gpt-4o", kind: "openai", provider: "openai", model: "gpt-4o", base: "https://api.openai.com/v1", key: "env-openai-key", maxCT: true},
		{name: "gpt-4", kind: "openai", provider: "openai", model: "gpt-4", base: "https://api.openai.com/v1", key: "env-openai-key", maxCT: true},
		{name: "gpt-3.5-turbo", kind: "openai", provider: "openai", model: "gpt-3.5-turbo", base: "https://api.openai.com/v1", key: "env-openai-key", maxCT: true},
		{name: "o3-mini", kind: "openai", provider: "openai", model: "o3-mini", base: "https://api.openai.com/v1", key: "env-openai-key", maxCT: true},
		{name: "openai/gpt-4o", opt: Options{APIKey: "flag-key", BaseURL: "http://proxy/v1"}, kind: "openai", provider: "openai", model: "gpt-4o", base: "http://proxy/v1", key: "flag-key", maxCT: true},
		{name: "anthropic/claude-sonnet-4-5", kind: "anthropic", model: "claude-sonnet-4-5", key: "env-anthropic-key"},
		{name: "claude-3-opus-20240229", kind: "anthropic", model: "claude-3-opus-20240229", key: "env-anthropic-key"},
		{name: "ollama/llama3:8b", kind: "openai", provider: "ollama", model: "llama3:8b", base: OllamaURL},
		{name: "vllm/Qwen/Qwen2.5-7B", kind: "openai", provider: "vllm", model: "Qwen/Qwen2.5-7B", base: VLLMURL},
		{name: "llamacpp/any", kind: "openai", provider: "llamacpp", model: "any", base: LlamaCppURL},
		{name: "ollama/llama3", opt: Options{BaseURL: "http://gpu:11434/v1", APIKey: "k2"}, kind: "openai", provider: "ollama", model: "llama3", base: "http://gpu:11434/v1", key: "k2"},
		{name: "openai-api/together/meta-llama/Llama-3-8b", opt: Options{BaseURL: "https://api.together.xyz/v1"}, kind: "openai", provider: "together", model: "meta-llama/Llama-3-8b", base: "https://api.together.xyz/v1"},
		{name: "meta-llama/Llama-3-8b", opt: Options{BaseURL: "http://h/v1"}, kind: "openai", provider: "openai-api", model: "meta-llama/Llama-3-8b", base: "http://h/v1"},
		{name: "gpt-4", opt: Options{BaseURL: "http://h/v1"}, kind: "openai", provider: "openai-api", model: "gpt-4", base: "http://h/v1"},
		{name: "claude-3-haiku", opt: Options{BaseURL: "http://h/v1"}, kind: "openai", provider: "openai-api", model: "claude-3-haiku", base: "http://h/v1"},
		{name: "anthropic/claude-3-haiku", opt: Options{BaseURL: "http://h"}, kind: "anthropic", model: "claude-3-haiku", key: "env-anthropic-key"},
		{name: "mock", opt: Options{BaseURL: "http://h/v1"}, kind: "mock"},
		{name: "random", kind: "random"},
		{name: "oracle", kind: "oracle"},
		{name: "", err: "empty"},
		{name: "llama3", err: "unknown model"},
		{name: "foo/bar", err: "unknown model"},
		{name: "openai/", err: "no model"},
		{name: "vllm/", err: "no model"},
		{name: "openai-api/together/x", err: "base URL"},
		{name: "openai-api/x", opt: Options{BaseURL: "http://h"}, err: "openai-api/NAME/MODEL"},
		{name: "replay:", err: "replay:FILE"},
		{name: "replay:/does/not/exist.jsonl", err: "exist.jsonl"},
	} {
		opt := tc.opt
		if opt.Getenv == nil {
			opt.Getenv = getenv
		}
		m, err := New(tc.name, opt)
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
		if m.Name() != tc.name {
			t.Errorf("New(%q).Name() = %q", tc.name, m.Name())
		}
		switch m := m.(type) {
		case *openAIModel:
			c := m.cfg
			if tc.kind != "openai" || c.provider != tc.provider || c.model != tc.model || c.baseURL != tc.base || c.key != tc.key || c.maxCompletionTokens != tc.maxCT {
				t.Errorf("New(%q) = openai %+v, want %s %s %s %s key %q maxCT %v", tc.name, c, tc.kind, tc.provider, tc.model, tc.base, tc.key, tc.maxCT)
			}
		case *anthropicModel:
			if tc.kind != "anthropic" || m.cfg.model != tc.model || m.cfg.key != tc.key {
				t.Errorf("New(%q) = anthropic %+v, want %s %s", tc.name, m.cfg, tc.kind, tc.model)
			}
		case *mockModel:
			if tc.kind != "mock" {
				t.Errorf("New(%q) = mock, want %s", tc.name, tc.kind)
			}
		case *randomModel:
			if tc.kind != "random" {
				t.Errorf("New(%q) = random, want %s", tc.name, tc.kind)
			}
		case *oracleModel:
			if tc.kind != "oracle" {
				t.Errorf("New(%q) = oracle, want %s", tc.name, tc.kind)
			}
		default:
			t.Errorf("New(%q) = %T", tc.name, m)
		}
	}
}

func TestNewEnvironment(t *testing.T) {
	// No Getenv: the process environment is never read, so hosted
	// providers without a key fail at New, naming the variable.
	t.Setenv("OPENAI_API_KEY", "from-process-env")
	t.Setenv("ANTHROPIC_API_KEY", "from-process-env")
	for name, want := range map[string]string{"openai/gpt-4o": "OPENAI_API_KEY", "gpt-4": "OPENAI_API_KEY", "anthropic/claude-3-haiku": "ANTHROPIC_API_KEY"} {
		if _, err := New(name, Options{}); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("New(%q) without a key: error %v, want one naming %s", name, err, want)
		}
	}
	// OPENAI_BASE_URL moves OpenAI, and then a key is optional.
	m, err := New("openai/gpt-4o", Options{Getenv: func(k string) string {
		return map[string]string{"OPENAI_BASE_URL": "http://local/v1"}[k]
	}})
	if err != nil {
		t.Fatal(err)
	}
	if c := m.(*openAIModel).cfg; c.baseURL != "http://local/v1" || c.key != "" {
		t.Errorf("cfg = %+v", c)
	}
}

func TestBodyMessage(t *testing.T) {
	for _, tc := range []struct {
		status int
		body   string
		want   string
	}{
		{400, `{"error": {"message": "bad model", "type": "invalid_request_error"}}`, "invalid_request_error: bad model"},
		{400, `{"error": {"message": "no type"}}`, "no type"},
		{404, `{"error": "model \"x\" not found"}`, `model "x" not found`},  // Ollama
		{400, `{"detail": "max_tokens too large"}`, "max_tokens too large"}, // FastAPI (vLLM)
		{400, `{"message": "plain"}`, "plain"},
		{502, `<html>Bad gateway, Authorization: Bearer sk-x</html>`, "Bad Gateway"},
		{500, `{"error": {}}`, "Internal Server Error"},
		{599, ``, "error"},
	} {
		res := &http.Response{StatusCode: tc.status, Body: io.NopCloser(strings.NewReader(tc.body))}
		if got := bodyMessage(res); got != tc.want {
			t.Errorf("bodyMessage(%d %s) = %q, want %q", tc.status, tc.body, got, tc.want)
		}
	}
}

func TestScrubBeforeTruncate(t *testing.T) {
	key := "sk-test-SECRET123"
	msg := strings.Repeat("x", 495) + key + " tail"
	got := truncate(scrub(msg, key), 500)
	if strings.Contains(got, "sk-test") || strings.Contains(got, "SECRET") {
		t.Errorf("part of the key survived: %q", got[480:])
	}
	if got := truncate("héllo", 2); got != "h..." {
		t.Errorf("truncate split a character: %q", got)
	}
}
