package model

import (
	"fmt"
	"net/http"
	"sort"
	"strings"
	"time"
)

// Options configure the model a Registry builds. The zero value works for
// the offline built-ins; hosted providers need a key (APIKey or the
// environment).
type Options struct {
	// BaseURL points an OpenAI-compatible (or Anthropic) client at another
	// server. With BaseURL, a name that is not otherwise known is sent as is
	// to an OpenAI-compatible server there.
	BaseURL string

	// APIKey overrides the key from the environment.
	APIKey string

	// APIKeyEnv names the environment variable holding the key, instead of
	// the provider's own (OPENAI_API_KEY, NAME_API_KEY, ...).
	APIKeyEnv string

	// Getenv reads environment variables (keys, base URLs); nil reads
	// none, so tests never depend on the caller's environment. Commands
	// pass os.Getenv.
	Getenv func(string) string

	// BaseURLs are servers by provider or openai-api NAME (anthropic,
	// ollama, NAME: a config file's base_urls): a model of that provider
	// is sent there when neither BaseURL nor the environment's
	// NAME_BASE_URL names another. Keys never come from here.
	BaseURLs map[string]string

	// HTTPClient sends the requests of hosted providers; nil uses a fresh
	// client on http.DefaultTransport.
	HTTPClient *http.Client

	// Timeout bounds one request of a hosted provider; 0 means ten minutes.
	// A request that runs out of time fails with a retryable *APIError.
	Timeout time.Duration

	// MaxReply caps the body of one reply of a hosted provider, in bytes;
	// 0 means DefaultMaxReply. A larger reply is the question's error, read
	// no further than the cap, so a server sending without end cannot
	// exhaust memory.
	MaxReply int64

	// Provider holds the options only one provider reads, each a value of
	// a type its package declares (openai.Options, builtin.Options): a
	// provider takes the value of its own type (ProviderOption) and
	// ignores the rest, so this package names no provider's options.
	Provider []any
}

// ProviderOption returns the value of type T in opt.Provider (the first),
// or T's zero value, the provider's defaults, when it holds none.
func ProviderOption[T any](opt Options) T {
	for _, v := range opt.Provider {
		if t, ok := v.(T); ok {
			return t
		}
	}
	var zero T
	return zero
}

// defaultTimeout bounds a hosted provider's request when Options.Timeout is 0.
// It is long because reasoning models may think for minutes.
const defaultTimeout = 10 * time.Minute

// Env reads an environment variable through Getenv ("" when Getenv is nil).
func (o Options) Env(key string) string {
	if o.Getenv == nil || key == "" {
		return ""
	}
	return o.Getenv(key)
}

// Key returns the API key to send: APIKey, else the variable APIKeyEnv
// names, else the first of the provider's own variables that is set. from
// says where it came from (for errors: never the key itself).
func (o Options) Key(vars ...string) (key, from string) {
	if o.APIKey != "" {
		return o.APIKey, "--api-key"
	}
	if o.APIKeyEnv != "" {
		return o.Env(o.APIKeyEnv), o.APIKeyEnv
	}
	for _, v := range vars {
		if k := o.Env(v); k != "" {
			return k, v
		}
	}
	return "", ""
}

// Server returns the server a model of the provider named name (openai,
// anthropic, ollama, an openai-api NAME) is sent to: BaseURL, else the
// environment's NAME_BASE_URL, else BaseURLs' entry for name, spelled one
// way (CleanBaseURL); "" when none is, for the provider's default. A URL
// CleanBaseURL refuses is an error naming where it came from and never the
// URL, which may hold a key.
func (o Options) Server(name string) (string, error) {
	raw, from := o.BaseURL, "--base-url"
	if raw == "" && name != "" {
		from = EnvName(name) + "_BASE_URL"
		raw = o.Env(from)
	}
	if raw == "" && name != "" {
		raw, from = BaseURLOf(o.BaseURLs, name), "the config's base_urls: "+name
	}
	if raw == "" {
		return "", nil
	}
	clean, err := CleanBaseURL(raw)
	if err != nil {
		return "", fmt.Errorf("the base URL from %s %w", from, err)
	}
	return clean, nil
}

// BaseURLOf is the entry of urls (a config file's base_urls) for the
// provider named name, matched as NAME_BASE_URL matches it (EnvName: "my-server" is
// "MY_SERVER"); "" when it has none.
func BaseURLOf(urls map[string]string, name string) string {
	if u, ok := urls[name]; ok {
		return u
	}
	for k, u := range urls {
		if EnvName(k) == EnvName(name) {
			return u
		}
	}
	return ""
}

// HTTP returns the client hosted providers send with.
func (o Options) HTTP() *http.Client {
	if o.HTTPClient != nil {
		return o.HTTPClient
	}
	return &http.Client{}
}

// DefaultMaxReply is Options.MaxReply's default: far above any real
// completion (a 128k-token answer is under 1 MiB of JSON).
const DefaultMaxReply = 32 << 20

// ReplyLimit returns the cap on one reply's body.
func (o Options) ReplyLimit() int64 {
	if o.MaxReply > 0 {
		return o.MaxReply
	}
	return DefaultMaxReply
}

// RequestTimeout returns the per-request time limit.
func (o Options) RequestTimeout() time.Duration {
	if o.Timeout > 0 {
		return o.Timeout
	}
	return defaultTimeout
}

// Ref is a model name taken apart: which provider serves it and the
// provider's own name for the model.
type Ref struct {
	Name     string // as given, e.g. "openai-api/together/meta-llama/Llama-3-8b"
	Provider string // the registry name, e.g. "openai-api"
	Label    string // an openai-api server's NAME ("together"); else ""
	Model    string // the provider's model name ("meta-llama/Llama-3-8b"), or a replay file
}

// Factory builds a model of one provider.
type Factory func(ref Ref, opt Options) (Model, error)

// Registry maps provider names to the factories that build their models.
// Programs build one and register the providers they link (model/openai,
// model/anthropic, model/builtin each have a Register function); this
// package knows none of them.
type Registry struct {
	factories map[string]Factory
}

// NewRegistry returns an empty registry.
func NewRegistry() *Registry { return &Registry{factories: map[string]Factory{}} }

// Register adds a provider. A name registered twice is a wiring mistake in
// the program and panics, as database/sql's Register does.
func (r *Registry) Register(provider string, f Factory) {
	if provider == "" || f == nil {
		panic("model: Register with an empty name or a nil factory")
	}
	if _, dup := r.factories[provider]; dup {
		panic("model: provider " + provider + " registered twice")
	}
	r.factories[provider] = f
}

// Providers lists the registered provider names, sorted.
func (r *Registry) Providers() []string {
	out := make([]string, 0, len(r.factories))
	for p := range r.factories {
		out = append(out, p)
	}
	sort.Strings(out)
	return out
}

// New builds the model a command-line name refers to:
//
//	PROVIDER/MODEL          a registered provider (openai/, anthropic/,
//	                        ollama/, vllm/, llamacpp/, or one of the program's)
//	openai-api/NAME/MODEL   OpenAI-compatible server NAME
//	mock, random, oracle    offline built-ins
//	replay:FILE.jsonl       answers from a file
//	gpt-4, o3-mini, ...     a bare LIME-style OpenAI name (gpt-*, o1..o4*, chatgpt-*)
//	claude-...              a bare Anthropic name
//
// With Options.BaseURL, a name no provider claims (a bare one included) is
// a model of the OpenAI-compatible server there ("openai-api").
func (r *Registry) New(name string, opt Options) (Model, error) {
	ref, err := r.Parse(name, opt)
	if err != nil {
		return nil, err
	}
	f, ok := r.factories[ref.Provider]
	if !ok {
		return nil, fmt.Errorf("model %q: provider %s is not available in this program (have: %s)",
			name, ref.Provider, strings.Join(r.Providers(), ", "))
	}
	return f(ref, opt)
}

// Parse takes a model name apart as New does, without building the model.
func (r *Registry) Parse(name string, opt Options) (Ref, error) {
	return parseName(name, opt.BaseURL != "", func(p string) bool { _, ok := r.factories[p]; return ok })
}

// parseName is the naming rule of New; known says which provider names
// are registered.
func parseName(name string, hasBaseURL bool, known func(string) bool) (Ref, error) {
	ref := Ref{Name: name}
	prefix, rest, hasSlash := strings.Cut(name, "/")
	switch {
	case name == "":
		return ref, fmt.Errorf("model: empty model name")
	case name == "mock", name == "random", name == "oracle":
		ref.Provider, ref.Model = name, name
		return ref, nil
	case strings.HasPrefix(name, "replay:"):
		ref.Provider, ref.Model = "replay", strings.TrimPrefix(name, "replay:")
		if ref.Model == "" {
			return ref, fmt.Errorf("model %q: want replay:FILE.jsonl", name)
		}
		return ref, nil
	case hasSlash && prefix == "openai-api":
		label, m, ok := strings.Cut(rest, "/")
		if !ok || label == "" || m == "" {
			return ref, fmt.Errorf("model %q: want openai-api/NAME/MODEL", name)
		}
		ref.Provider, ref.Label, ref.Model = "openai-api", label, m
		return ref, nil
	case hasSlash && known(prefix):
		if rest == "" {
			return ref, fmt.Errorf("model %q: no model after the provider", name)
		}
		ref.Provider, ref.Model = prefix, rest
		return ref, nil
	case hasBaseURL:
		// Before the bare names: "-m gpt-4 --base-url URL" is a model of
		// the server at URL, which must not get OpenAI's key or price.
		ref.Provider, ref.Model = "openai-api", name
		return ref, nil
	case !hasSlash && isBareOpenAI(name):
		ref.Provider, ref.Model = "openai", name
		return ref, nil
	case !hasSlash && strings.HasPrefix(name, "claude-"):
		ref.Provider, ref.Model = "anthropic", name
		return ref, nil
	}
	return ref, fmt.Errorf("model %q: unknown model; want provider/model (openai/, openai-responses/, anthropic/, ollama/, vllm/, llamacpp/, openai-api/NAME/), "+
		"a bare gpt-*/claude-* name, mock, random, oracle, replay:FILE.jsonl, or a --base-url", name)
}

// isBareOpenAI reports whether a name without a provider is an OpenAI model,
// as LIME named them ("gpt-4", "gpt-3.5-turbo") and as OpenAI names newer ones.
func isBareOpenAI(name string) bool {
	for _, p := range []string{"gpt-", "chatgpt-", "o1", "o3", "o4"} {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	return false
}

// EnvName is the environment variable prefix of a provider or an
// openai-api server NAME, as Inspect spells them: upper case, every other
// character than a letter or digit '_' ("together" -> "TOGETHER",
// "my-server" -> "MY_SERVER"). NAME_API_KEY and NAME_BASE_URL follow it.
func EnvName(name string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z':
			return r - 'a' + 'A'
		case r >= 'A' && r <= 'Z', r >= '0' && r <= '9':
			return r
		}
		return '_'
	}, name)
}
