package model

import (
	"net/url"
	"strings"
)

// Info is what a model is and can do. Providers fill it in when they build
// a model; for a model known only by a recorded name (an output file, LIME's
// files) Describe answers from the name, and an Info recorded in the file
// wins over that guess.
type Info struct {
	// Provider is the registry name of the provider ("openai",
	// "openai-responses", "anthropic",
	// "ollama", "vllm", "llamacpp", "openai-api", "mock", "random",
	// "oracle", "replay").
	Provider string `json:"provider"`
	// Label names an openai-api server (openai-api/NAME/MODEL); else "".
	Label string `json:"label,omitempty"`
	// Model is the provider's own name for the model (sent as the
	// request's model), or the replay file.
	Model string `json:"model"`
	// BaseURL is the server the requests go to; "" for offline models.
	BaseURL string `json:"base_url,omitempty"`
	// Offline models answer without a server, so no cache may answer
	// for them.
	Offline bool `json:"offline,omitempty"`
	// FromQuestion says the model answers from the question beside the
	// request (Task.Question: its name, id or ground truth), as replay and
	// oracle do, so the request key covers the question. Not recorded in
	// files: it is what the running model does.
	FromQuestion bool `json:"-"`
	// Vision says whether the model is sent images.
	Vision bool `json:"vision"`
	// Price is what a token costs; nil when unknown (a hosted server this
	// package has no price for). Offline and local models cost zero.
	Price *Price `json:"price,omitempty"`
	// ContextLimit is the context window in tokens (input plus output);
	// 0 when unknown.
	ContextLimit int `json:"context_limit,omitempty"`
	// FixedSampling says the model refuses temperature and top_p other
	// than their defaults (OpenAI's reasoning models answer HTTP 400):
	// they are not sent (Sendable).
	FixedSampling bool `json:"fixed_sampling,omitempty"`
	// ReasoningBudget is the request member a thinking budget
	// (Settings.ReasoningTokens) is sent as, e.g. "thinking_token_budget";
	// "" when the server takes none, and the budget is not sent.
	ReasoningBudget string `json:"reasoning_budget,omitempty"`
	// BudgetAlone says the server refuses an effort beside a budget
	// (OpenRouter, Gemini): given both, the budget is sent alone.
	BudgetAlone bool `json:"budget_alone,omitempty"`
}

// Sendable is s without the settings the model does not take (Info's
// FixedSampling, ReasoningBudget and BudgetAlone), and the names of those left out, so
// that what is recorded is what was sent. An offline model keeps every
// setting: it sends nothing.
func (i Info) Sendable(s Settings) (Settings, []string) {
	var dropped []string
	if i.FixedSampling {
		if s.Temperature != nil {
			s.Temperature, dropped = nil, append(dropped, "temperature")
		}
		if s.TopP != nil {
			s.TopP, dropped = nil, append(dropped, "top_p")
		}
	}
	if !i.Offline && i.ReasoningBudget == "" && s.ReasoningTokens > 0 {
		s.ReasoningTokens, dropped = 0, append(dropped, "reasoning_tokens")
	}
	if i.BudgetAlone && s.ReasoningTokens > 0 && s.ReasoningEffort != "" {
		s.ReasoningEffort, dropped = "", append(dropped, "reasoning_effort")
	}
	return s, dropped
}

// openAIHost is OpenAI's own API host; only it gets OpenAI's request
// dialect (max_completion_tokens) and OpenAI's prices.
const openAIHost = "api.openai.com"

// IsOpenAI reports whether baseURL is OpenAI's own API.
func IsOpenAI(baseURL string) bool {
	u, err := url.Parse(baseURL)
	return err == nil && strings.EqualFold(u.Hostname(), openAIHost)
}

// Describe answers from a model's name alone what the providers would say
// of it, for files that record only a name: LIME's "gpt-4" is OpenAI's,
// "ollama/..." a free local model without vision, "mock" offline. Names it
// cannot place get an Info with only Model set, no price and no vision.
// The server a name was run against is not in the name, so BaseURL is the
// provider's default.
func Describe(name string) Info {
	ref, err := parseName(name, false, describedProvider)
	if err != nil {
		return Info{Model: name}
	}
	info := Info{Provider: ref.Provider, Label: ref.Label, Model: ref.Model}
	if ref.Provider == "openai" || ref.Provider == "openai-responses" || ref.Provider == "anthropic" {
		info.ContextLimit, _ = ContextLimit(ref.Model)
	}
	switch ref.Provider {
	case "mock", "random", "oracle", "replay":
		info.Offline, info.Price = true, &Price{}
	case "openai", "openai-responses":
		info.BaseURL = OpenAIURL
		info.Vision = OpenAIVision(ref.Model)
		if p, ok := LookupPrice(ref.Model); ok {
			info.Price = &p
		}
	case "anthropic":
		info.BaseURL = AnthropicURL
		info.Vision = true
		if p, ok := LookupPrice(ref.Model); ok {
			info.Price = &p
		}
	case "ollama", "vllm", "llamacpp":
		info.BaseURL = LocalURL(ref.Provider)
		info.Price = &Price{}
	}
	return info
}

// describedProvider reports whether Describe knows a provider name (those
// of model/openai and model/anthropic).
func describedProvider(p string) bool {
	switch p {
	case "openai", "openai-responses", "anthropic", "ollama", "vllm", "llamacpp", "openai-api":
		return true
	}
	return false
}

// OpenAIVision is DSBench's rule for OpenAI's models: every model takes
// images but gpt-3.5.
func OpenAIVision(model string) bool {
	return !strings.HasPrefix(strings.ToLower(model), "gpt-3.5")
}

// Default base URLs of the servers the providers know.
const (
	OpenAIURL    = "https://api.openai.com/v1"
	AnthropicURL = "https://api.anthropic.com"
	OllamaURL    = "http://localhost:11434/v1"
	VLLMURL      = "http://localhost:8000/v1"
	LlamaCppURL  = "http://localhost:8080/v1"
)

// LocalURL returns the default base URL of a local server provider
// (ollama, vllm, llamacpp); "" for any other.
func LocalURL(provider string) string {
	switch provider {
	case "ollama":
		return OllamaURL
	case "vllm":
		return VLLMURL
	case "llamacpp":
		return LlamaCppURL
	}
	return ""
}
