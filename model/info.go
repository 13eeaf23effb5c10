package model

import "encoding/json"

// Info is what a model is and can do. Providers fill it in when they build
// a model; for a model known only by its name (a dry run, LIME's files)
// Registry.Describe asks its provider, and an Info recorded in a file wins
// over that guess.
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
	// TruthBlind says a model that answers from the question never reads
	// its ground truth (random picks by the question's name, id and
	// sheet), so the request key leaves the truth out: an edited answer
	// does not ask it again. Not recorded in files, as FromQuestion.
	TruthBlind bool `json:"-"`
	// ExactTokens says tiktoken counts the model's tokens exactly (OpenAI's
	// models), so a prompt cut by those counts needs no warning that they
	// are an estimate. Not recorded in files, as FromQuestion.
	ExactTokens bool `json:"-"`
	// NoTools says the model cannot be offered tools (a text-completions
	// endpoint), so agent mode, whose every turn offers python, cannot run
	// on it. Not recorded in files, as FromQuestion.
	NoTools bool `json:"-"`
	// Endpoint is the API the requests go to when it is not the
	// provider's usual one: "completions" for the raw text completions
	// endpoint (--completion-api), which is sent the same task as another
	// request than chat's, so the request key covers it. Not recorded in
	// files, as FromQuestion.
	Endpoint string `json:"-"`
	// Vision says whether the model is sent images.
	Vision bool `json:"vision"`
	// UserFirst says the API refuses a conversation whose first message
	// is an assistant turn (Anthropic's), so a sheet's conversation that
	// opens with one is refused at its line before any call. Not recorded
	// in files, as FromQuestion.
	UserFirst bool `json:"-"`
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
	// CacheMin is the fewest tokens of a shared prefix (Request.Prefix)
	// the provider's prompt cache keeps for the model: Anthropic's
	// per-model minimum, OpenAI's 1,024; 0 when it has no prompt cache
	// evalmd knows of, and the run marks no prefix for it. Not recorded
	// in files, as FromQuestion.
	CacheMin int `json:"-"`
}

// Sendable is s without the settings the model does not take (Info's
// FixedSampling, ReasoningBudget and BudgetAlone; a thinking type, which
// only Anthropic takes), and the names of those left out, so
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
	if !i.Offline && s.Thinking != "" { // Anthropic's alone, which says what it sends itself
		s.Thinking, dropped = "", append(dropped, "thinking")
	}
	return s, dropped
}

// MarshalJSON records i with its BaseURL as RedactURL prints it: a file
// never holds a key a proxy takes in its path.
func (i Info) MarshalJSON() ([]byte, error) {
	type plain Info // without this method
	p := plain(i)
	p.BaseURL = RedactURL(p.BaseURL)
	return json.Marshal(p)
}
