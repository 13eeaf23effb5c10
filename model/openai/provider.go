package openai

import (
	"net/url"
	"strings"

	"github.com/evalmd/evalmd/model"
)

// Default base URLs of the servers this package's providers send to.
const (
	openAIURL   = "https://api.openai.com/v1"
	ollamaURL   = "http://localhost:11434/v1"
	vllmURL     = "http://localhost:8000/v1"
	llamaCppURL = "http://localhost:8080/v1"
)

// localURLs are the default servers of the local providers.
func localURLs() map[string]string {
	return map[string]string{"ollama": ollamaURL, "vllm": vllmURL, "llamacpp": llamaCppURL}
}

// openAIHost is OpenAI's own API host; only it gets OpenAI's request
// dialect (max_completion_tokens) and OpenAI's prices.
const openAIHost = "api.openai.com"

// isOpenAI reports whether baseURL is OpenAI's own API.
func isOpenAI(baseURL string) bool {
	u, err := url.Parse(baseURL)
	return err == nil && strings.EqualFold(u.Hostname(), openAIHost)
}

// vision is DSBench's rule for OpenAI's models: every model takes images
// but gpt-3.5.
func vision(name string) bool {
	return !strings.HasPrefix(strings.ToLower(name), "gpt-3.5")
}

// Register adds the providers of this package to r: openai (which also
// takes LIME's bare names, gpt-4, o3-mini, ...), openai-responses (OpenAI's
// Responses API, at OpenAI's server), ollama, vllm, llamacpp and
// openai-api (openai-api/NAME/MODEL, and any model name given with a base
// URL that no other provider claims).
func Register(r *model.Registry) {
	r.Add(model.Provider{Name: "openai", New: newClient, Claim: claimBare, Describe: describe, Usage: "openai/MODEL, a bare gpt-*",
		Server: defaultServer("openai")})
	r.Add(model.Provider{Name: "openai-responses", New: newClient, Describe: describe, Server: defaultServer("openai-responses")})
	for _, p := range []string{"ollama", "vllm", "llamacpp"} {
		r.Add(model.Provider{Name: p, New: newClient, Describe: describe, Server: defaultServer(p)})
	}
	r.Add(model.Provider{Name: "openai-api", New: newClient, Labeled: true, Fallback: true, Usage: "openai-api/NAME/MODEL"})
}

// defaultServer is where a provider of this package sends unless told
// otherwise, as check reports it and its models read their key and base
// URL (serverOf); nil for openai-api, whose servers are the user's.
func defaultServer(provider string) *model.Server {
	switch provider {
	case "openai":
		return &model.Server{KeyVar: "OPENAI_API_KEY", URL: openAIURL}
	case "openai-responses": // OpenAI's other API, at its server
		return &model.Server{KeyVar: "OPENAI_API_KEY", URL: openAIURL, Name: "openai"}
	case "ollama", "vllm", "llamacpp":
		return &model.Server{KeyVar: model.EnvName(provider) + "_API_KEY", URL: localURLs()[provider], Local: true}
	}
	return nil
}

// claimBare takes a name without a provider that OpenAI serves, as LIME
// named them ("gpt-4", "gpt-3.5-turbo") and as OpenAI names newer ones;
// not with a base URL, where such a name is the server's.
func claimBare(name string, withBaseURL bool) (string, bool, error) {
	if withBaseURL || strings.Contains(name, "/") {
		return "", false, nil
	}
	for _, p := range []string{"gpt-", "chatgpt-", "o1", "o3", "o4"} {
		if strings.HasPrefix(name, p) {
			return name, true, nil
		}
	}
	return "", false, nil
}

// describe says what a model is from its name alone: OpenAI's at its own
// server with its price, vision and context; a local server's free and
// without images. The server it was run against is not in the name, so
// BaseURL is the default.
func describe(ref model.Ref) model.Info {
	info := model.Info{Provider: ref.Provider, Label: ref.Label, Model: ref.Model}
	if ref.Provider != "openai" && ref.Provider != "openai-responses" {
		info.BaseURL, info.Price = localURLs()[ref.Provider], &model.Price{}
		return info
	}
	info.BaseURL, info.Vision, info.FixedSampling, info.ExactTokens = openAIURL, vision(ref.Model), reasoningModel(ref.Model), true
	info.CacheMin = cacheMin(ref.Model)
	if p, ok := model.LookupPrice(ref.Model); ok {
		info.Price = &p
	}
	info.ContextLimit, _ = model.ContextLimit(ref.Model)
	return info
}
