package model

import (
	"fmt"
	"net/http"
	"slices"
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

	// SendKey, when set, is asked before a key (read from the variable
	// keyFrom names, or --api-key) goes to the server BaseURLs names
	// under name: its error refuses the model. Commands pass their
	// config's (config.Config.SendKey), which refuses a server a
	// workspace file names, as that file may have come with a
	// stranger's sheets.
	SendKey func(name, keyFrom string) error

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
	base, _, err := o.server(name)
	return base, err
}

// Endpoint returns the server a model of the provider named name is sent
// to (Server) and the key it is sent with (Key, from vars; from says
// where the key came from). A key bound for a server BaseURLs names is
// first put to SendKey, whose error refuses the model.
func (o Options) Endpoint(name string, vars ...string) (base, key, from string, err error) {
	base, entry, err := o.server(name)
	if err != nil {
		return "", "", "", err
	}
	key, from = o.Key(vars...)
	if key != "" && entry != "" && o.SendKey != nil {
		if err := o.SendKey(entry, from); err != nil {
			return "", "", "", err
		}
	}
	return base, key, from, nil
}

// server is Server, and the name of BaseURLs' entry the server came from
// ("" when it came from BaseURL, the environment or nowhere).
func (o Options) server(name string) (base, entry string, err error) {
	raw, from := o.BaseURL, "--base-url"
	if raw == "" && name != "" {
		from = EnvName(name) + "_BASE_URL"
		raw = o.Env(from)
	}
	if raw == "" && name != "" {
		if entry = baseURLEntry(o.BaseURLs, name); entry != "" {
			raw, from = o.BaseURLs[entry], "the config's base_urls: "+name
		}
	}
	if raw == "" {
		return "", "", nil
	}
	clean, err := CleanBaseURL(raw)
	if err != nil {
		return "", "", fmt.Errorf("the base URL from %s %w", from, err)
	}
	return clean, entry, nil
}

// BaseURLOf is the entry of urls (a config file's base_urls) for the
// provider named name, matched as NAME_BASE_URL matches it (EnvName: "my-server" is
// "MY_SERVER"); "" when it has none.
func BaseURLOf(urls map[string]string, name string) string {
	if k := baseURLEntry(urls, name); k != "" {
		return urls[k]
	}
	return ""
}

// baseURLEntry is the member of urls BaseURLOf takes for name: name
// itself, else the first in sorted order that EnvName spells as name's
// (so one is taken however the map is ordered); "" when none is.
func baseURLEntry(urls map[string]string, name string) string {
	if _, ok := urls[name]; ok {
		return name
	}
	var keys []string
	for k := range urls {
		if EnvName(k) == EnvName(name) {
			keys = append(keys, k)
		}
	}
	if len(keys) == 0 {
		return ""
	}
	sort.Strings(keys)
	return keys[0]
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

// Provider is what a provider package registers: how its models are
// built, and what is known of them without building one (a dry run, a
// file that records only a model's name, check). Every field but Name and
// New may be left zero.
type Provider struct {
	// Name is the registry name, the prefix of its models' names
	// ("openai" for openai/gpt-4o).
	Name string
	New  Factory
	// Claim says whether a name without a registered prefix is this
	// provider's, and the provider's own model name in it: the built-ins'
	// "mock" and "replay:FILE", LIME's bare "gpt-4". withBaseURL says the
	// name came with a base URL, under which a hosted provider leaves its
	// bare names to the Fallback provider. An error says the name is the
	// provider's but malformed ("replay:" without a file).
	Claim func(name string, withBaseURL bool) (model string, ok bool, err error)
	// Labeled says its names are NAME/LABEL/MODEL, LABEL naming a server
	// of its own with LABEL_API_KEY and LABEL_BASE_URL (openai-api).
	Labeled bool
	// Fallback says that a name no provider claims, given with a base
	// URL, is this provider's model at that server.
	Fallback bool
	// Describe says what a model is from its Ref alone, with no key and
	// no server; nil gives an Info with only Provider, Label and Model.
	Describe func(Ref) Info
	// Server is where its models are served unless told otherwise, for
	// check; nil for a provider with no server (offline: check has
	// nothing to ask of it) or a Labeled one (a server of the user's
	// each).
	Server *Server
	// Usage is how its names are written, for errors ("replay:FILE.jsonl",
	// "gpt-* (bare)"); "" is NAME/MODEL.
	Usage string
}

// Server is the server a provider sends to by default and how it is
// told otherwise, as check reports it.
type Server struct {
	KeyVar string // the variable its key is read from ("OPENAI_API_KEY")
	URL    string // the server when NAME_BASE_URL and base_urls do not say another
	// Name is the NAME its base URL is read under (NAME_BASE_URL, the
	// config's base_urls) when it is another provider's server
	// (openai-responses is served by openai's); "" is the provider's own.
	Name string
	// Local says the server is probed (a local one), not reached with a
	// key; a hosted provider pointed at another server is probed too.
	Local bool
}

// Registry maps provider names to the providers that build their models.
// Programs build one and register the providers they link (model/openai,
// model/anthropic, model/builtin each have a Register function); this
// package knows none of them.
type Registry struct {
	providers map[string]Provider
	order     []string // registration order: claims are asked in it
}

// NewRegistry returns an empty registry.
func NewRegistry() *Registry { return &Registry{providers: map[string]Provider{}} }

// Add adds a provider. A name registered twice is a wiring mistake in the
// program and panics, as database/sql's Register does.
func (r *Registry) Add(p Provider) {
	if p.Name == "" || p.New == nil {
		panic("model: Register with an empty name or a nil factory")
	}
	if _, dup := r.providers[p.Name]; dup {
		panic("model: provider " + p.Name + " registered twice")
	}
	r.providers[p.Name] = p
	r.order = append(r.order, p.Name)
}

// Providers lists the registered provider names, sorted.
func (r *Registry) Providers() []string {
	out := slices.Clone(r.order)
	sort.Strings(out)
	return out
}

// All returns the registered providers in the order they were added.
func (r *Registry) All() []Provider {
	out := make([]Provider, len(r.order))
	for i, name := range r.order {
		out[i] = r.providers[name]
	}
	return out
}

// New builds the model a command-line name refers to: PROVIDER/MODEL for
// a registered provider, PROVIDER/LABEL/MODEL for a Labeled one, or a
// name a provider claims (mock, replay:FILE.jsonl, LIME's bare gpt-4).
// With Options.BaseURL, a name no provider claims is a model of the
// Fallback provider at that server.
func (r *Registry) New(name string, opt Options) (Model, error) {
	ref, err := r.Parse(name, opt)
	if err != nil {
		return nil, err
	}
	p, ok := r.providers[ref.Provider]
	if !ok {
		return nil, fmt.Errorf("model %q: provider %s is not available in this program (have: %s)",
			name, ref.Provider, strings.Join(r.Providers(), ", "))
	}
	return p.New(ref, opt)
}

// Describe says what a model is from its name alone, as its provider
// would without a key or a server: for a dry run, and for files that
// record only a name (LIME's "gpt-4" is OpenAI's). A name no provider
// takes gets an Info with only Model set, no price and no vision.
func (r *Registry) Describe(name string, opt Options) Info {
	ref, err := r.Parse(name, opt)
	if err != nil {
		return Info{Model: name}
	}
	if d := r.providers[ref.Provider].Describe; d != nil {
		return d(ref)
	}
	return Info{Provider: ref.Provider, Label: ref.Label, Model: ref.Model}
}

// Parse takes a model name apart as New does, without building the model.
func (r *Registry) Parse(name string, opt Options) (Ref, error) {
	ref := Ref{Name: name}
	if name == "" {
		return ref, fmt.Errorf("model: empty model name")
	}
	if prefix, rest, ok := strings.Cut(name, "/"); ok {
		if p, known := r.providers[prefix]; known {
			ref.Provider, ref.Model = prefix, rest
			if p.Labeled {
				label, m, ok := strings.Cut(rest, "/")
				if !ok || label == "" || m == "" {
					return ref, fmt.Errorf("model %q: want %s/NAME/MODEL", name, prefix)
				}
				ref.Label, ref.Model = label, m
			}
			if ref.Model == "" {
				return ref, fmt.Errorf("model %q: no model after the provider", name)
			}
			return ref, nil
		}
	}
	hasBaseURL := opt.BaseURL != ""
	fallback := ""
	for _, pn := range r.order {
		p := r.providers[pn]
		if p.Fallback && fallback == "" {
			fallback = pn
		}
		if p.Claim == nil {
			continue
		}
		m, ok, err := p.Claim(name, hasBaseURL)
		if err != nil {
			return ref, fmt.Errorf("model %q: %w", name, err)
		}
		if ok {
			ref.Provider, ref.Model = pn, m
			return ref, nil
		}
	}
	if hasBaseURL && fallback != "" {
		// Before a hosted provider's bare names: "-m gpt-4 --base-url
		// URL" is a model of the server at URL, which must not get
		// OpenAI's key or price.
		ref.Provider, ref.Model = fallback, name
		return ref, nil
	}
	var want []string
	for _, pn := range r.order {
		if u := r.providers[pn].Usage; u != "" {
			want = append(want, u)
		} else {
			want = append(want, pn+"/MODEL")
		}
	}
	return ref, fmt.Errorf("model %q: unknown model; want one of %s, or a --base-url", name, strings.Join(want, ", "))
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
