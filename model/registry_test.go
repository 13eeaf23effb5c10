package model

import (
	"strconv"
	"strings"
	"testing"
)

// every provider name the commands register, for parsing tests.
func fullRegistry() *Registry {
	r := NewRegistry()
	for _, p := range []string{"openai", "anthropic", "ollama", "vllm", "llamacpp", "openai-api", "mock", "random", "oracle", "replay"} {
		r.Register(p, func(Ref, Options) (Model, error) { return nil, nil })
	}
	return r
}

func TestParseNames(t *testing.T) {
	r := fullRegistry()
	for _, tc := range []struct {
		name, base      string
		provider, label string
		model           string
		err             string
	}{
		{name: "openai/gpt-4o", provider: "openai", model: "gpt-4o"},
		{name: "gpt-4", provider: "openai", model: "gpt-4"},
		{name: "o3-mini", provider: "openai", model: "o3-mini"},
		{name: "chatgpt-4o-latest", provider: "openai", model: "chatgpt-4o-latest"},
		{name: "anthropic/claude-sonnet-4-5", provider: "anthropic", model: "claude-sonnet-4-5"},
		{name: "claude-3-opus-20240229", provider: "anthropic", model: "claude-3-opus-20240229"},
		{name: "ollama/llama3:8b", provider: "ollama", model: "llama3:8b"},
		{name: "vllm/Qwen/Qwen2.5-7B", provider: "vllm", model: "Qwen/Qwen2.5-7B"},
		{name: "openai-api/together/meta-llama/Llama-3-8b", provider: "openai-api", label: "together", model: "meta-llama/Llama-3-8b"},
		{name: "meta-llama/Llama-3-8b", base: "http://h/v1", provider: "openai-api", model: "meta-llama/Llama-3-8b"},
		{name: "gpt-4", base: "http://h/v1", provider: "openai-api", model: "gpt-4"},
		{name: "anthropic/claude-3-haiku", base: "http://h", provider: "anthropic", model: "claude-3-haiku"},
		{name: "mock", base: "http://h/v1", provider: "mock", model: "mock"},
		{name: "random", provider: "random", model: "random"},
		{name: "replay:r.jsonl", provider: "replay", model: "r.jsonl"},
		{name: "", err: "empty"},
		{name: "llama3", err: "unknown model"},
		{name: "foo/bar", err: "unknown model"},
		{name: "openai/", err: "no model"},
		{name: "openai-api/x", err: "openai-api/NAME/MODEL"},
		{name: "openai-api/x/", err: "openai-api/NAME/MODEL"},
		{name: "replay:", err: "replay:FILE"},
	} {
		ref, err := r.Parse(tc.name, Options{BaseURL: tc.base})
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("Parse(%q) error = %v, want one containing %q", tc.name, err, tc.err)
			}
			continue
		}
		want := Ref{Name: tc.name, Provider: tc.provider, Label: tc.label, Model: tc.model}
		if err != nil || ref != want {
			t.Errorf("Parse(%q, base %q) = %+v, %v; want %+v", tc.name, tc.base, ref, err, want)
		}
	}
}

func TestRegistryNamesMissingProvider(t *testing.T) {
	r := NewRegistry()
	r.Register("mock", func(Ref, Options) (Model, error) { return nil, nil })
	if _, err := r.New("openai/gpt-4o", Options{}); err == nil {
		t.Error("openai/gpt-4o in a registry without openai: want an error")
	}
	if _, err := r.New("claude-x", Options{}); err == nil || !strings.Contains(err.Error(), "have: mock") {
		t.Errorf("error %v, want one listing the registered providers", err)
	}
}

func TestDescribe(t *testing.T) {
	gpt4, _ := LookupPrice("gpt-4")
	for _, tc := range []struct {
		name    string
		want    Info
		noPrice bool
	}{
		{name: "gpt-4", want: Info{Provider: "openai", Model: "gpt-4", BaseURL: OpenAIURL, Vision: true, Price: &gpt4}},
		{name: "openai-responses/gpt-4", want: Info{Provider: "openai-responses", Model: "gpt-4", BaseURL: OpenAIURL, Vision: true, Price: &gpt4}},
		{name: "openai/gpt-3.5-turbo", want: Info{Provider: "openai", Model: "gpt-3.5-turbo", BaseURL: OpenAIURL, Price: &Price{0.5, 1.5}}},
		{name: "claude-3-haiku", want: Info{Provider: "anthropic", Model: "claude-3-haiku", BaseURL: AnthropicURL, Vision: true, Price: &Price{0.25, 1.25}}},
		{name: "ollama/gpt-4", want: Info{Provider: "ollama", Model: "gpt-4", BaseURL: OllamaURL, Price: &Price{}}},
		{name: "mock", want: Info{Provider: "mock", Model: "mock", Offline: true, Price: &Price{}}},
		{name: "replay:x.jsonl", want: Info{Provider: "replay", Model: "x.jsonl", Offline: true, Price: &Price{}}},
		{name: "openai-api/local/gpt-4", want: Info{Provider: "openai-api", Label: "local", Model: "gpt-4"}},
		{name: "some-local-model", want: Info{Model: "some-local-model"}},
	} {
		got := Describe(tc.name)
		if got.Provider != tc.want.Provider || got.Label != tc.want.Label || got.Model != tc.want.Model || got.BaseURL != tc.want.BaseURL ||
			got.Vision != tc.want.Vision || got.Offline != tc.want.Offline || fmtPrice(got.Price) != fmtPrice(tc.want.Price) {
			t.Errorf("Describe(%q) = %+v (price %s), want %+v (price %s)", tc.name, got, fmtPrice(got.Price), tc.want, fmtPrice(tc.want.Price))
		}
	}
}

func fmtPrice(p *Price) string {
	if p == nil {
		return "unknown"
	}
	return strings.TrimSpace(strings.Join(strings.Fields(fmtFloat(p.In)+" "+fmtFloat(p.Out)), " "))
}

func TestIsOpenAI(t *testing.T) {
	for url, want := range map[string]bool{
		OpenAIURL: true, "https://API.openai.com/v1/": true, "http://localhost:8080/v1": false,
		"https://api.openai.com.evil.example/v1": false, "": false, "::bad": false,
	} {
		if got := IsOpenAI(url); got != want {
			t.Errorf("IsOpenAI(%q) = %v, want %v", url, got, want)
		}
	}
}

func fmtFloat(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }

// DSBench's rule: images for every model but gpt-3.5; local servers and
// built-ins get none.
func TestDescribeVision(t *testing.T) {
	for name, want := range map[string]bool{
		"openai/gpt-4o": true, "gpt-4": true, "gpt-3.5-turbo": false, "openai/gpt-3.5-turbo-0125": false,
		"anthropic/claude-3-5-sonnet": true, "ollama/llama3": false, "oracle": false, "replay:x.jsonl": false,
	} {
		if got := Describe(name).Vision; got != want {
			t.Errorf("Describe(%q).Vision = %v", name, got)
		}
	}
}

// A provider's own options travel in Options.Provider as values of its
// own type: each provider finds its own, and the zero value (its
// defaults) when the program gave none.
func TestProviderOption(t *testing.T) {
	type mine struct{ Reply string }
	type theirs struct{ Reply string }
	opt := Options{Provider: []any{theirs{"no"}, mine{"yes"}, mine{"second"}}}
	if got := ProviderOption[mine](opt); got.Reply != "yes" {
		t.Errorf("ProviderOption[mine] = %+v, want the first of its type", got)
	}
	if got := ProviderOption[mine](Options{}); got != (mine{}) {
		t.Errorf("without one: %+v, want the zero value", got)
	}
}
