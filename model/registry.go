package model

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"syscall"
	"time"
	"unicode/utf8"
)

// Options configure the model New builds. The zero value works for the
// offline built-ins; hosted providers need a key (APIKey or the environment).
type Options struct {
	// BaseURL points an OpenAI-compatible (or Anthropic) client at another
	// server. With BaseURL, a name that is not otherwise known is sent as is
	// to an OpenAI-compatible server there.
	BaseURL string

	// APIKey overrides the key from the environment.
	APIKey string

	// Getenv reads environment variables (OPENAI_API_KEY, OPENAI_BASE_URL,
	// ANTHROPIC_API_KEY, ANTHROPIC_BASE_URL); nil reads none, so tests never
	// depend on the caller's environment. Commands pass os.Getenv.
	Getenv func(string) string

	// HTTPClient sends the requests of hosted providers; nil uses a fresh
	// client on http.DefaultTransport.
	HTTPClient *http.Client

	// Timeout bounds one request of a hosted provider; 0 means DefaultTimeout.
	// A request that runs out of time fails with a retryable *APIError.
	Timeout time.Duration

	// MockReply is the reply of the "mock" model; "" means "mock reply".
	MockReply string

	// Seed seeds the "random" model.
	Seed int64
}

// DefaultTimeout bounds a hosted provider's request when Options.Timeout is 0.
// It is long because reasoning models may think for minutes.
const DefaultTimeout = 10 * time.Minute

// Default base URLs of the local OpenAI-compatible servers.
const (
	OllamaURL   = "http://localhost:11434/v1"
	VLLMURL     = "http://localhost:8000/v1"
	LlamaCppURL = "http://localhost:8080/v1"
	openAIURL   = "https://api.openai.com/v1"
)

// New builds the model a command-line name refers to:
//
//	openai/MODEL            OpenAI (key from APIKey or OPENAI_API_KEY)
//	anthropic/MODEL         Anthropic (key from APIKey or ANTHROPIC_API_KEY)
//	ollama/MODEL            OpenAI-compatible server, default OllamaURL
//	vllm/MODEL              OpenAI-compatible server, default VLLMURL
//	llamacpp/MODEL          OpenAI-compatible server, default LlamaCppURL
//	openai-api/NAME/MODEL   OpenAI-compatible server at BaseURL, labelled NAME
//	gpt-4, gpt-3.5-turbo... a bare LIME-style OpenAI name (gpt-*, o1..o4*, chatgpt-*)
//	claude-...              a bare Anthropic name
//	(any other, or a bare name, with Options.BaseURL: a model of the
//	OpenAI-compatible server there)
//	mock, random, oracle    offline built-ins (see builtin.go)
//	replay:FILE.jsonl       answers from a file (see replay.go)
//
// With Options.BaseURL, openai/ and anthropic/ names go to BaseURL in their
// own dialect; every other name (bare ones included) is a model of an
// OpenAI-compatible server there. OPENAI_API_KEY is only sent to OpenAI (or to OPENAI_BASE_URL
// or BaseURL when the name says openai/): a local or third-party server gets
// Options.APIKey or nothing, so the key never leaks to a server it is not for.
func New(name string, opt Options) (Model, error) {
	getenv := opt.Getenv
	if getenv == nil {
		getenv = func(string) string { return "" }
	}
	prefix, rest, hasSlash := strings.Cut(name, "/")
	switch {
	case name == "":
		return nil, fmt.Errorf("model: empty model name")
	case name == "mock":
		return newMock(name, opt), nil
	case name == "random":
		return newRandom(name, opt), nil
	case name == "oracle":
		return newOracle(name), nil
	case strings.HasPrefix(name, "replay:"):
		return newReplay(name, strings.TrimPrefix(name, "replay:"))
	case hasSlash && prefix == "openai":
		return newOpenAIDialect(name, rest, opt, getenv)
	case hasSlash && prefix == "anthropic":
		return newAnthropicModel(name, rest, opt, getenv)
	case hasSlash && (prefix == "ollama" || prefix == "vllm" || prefix == "llamacpp"):
		base := opt.BaseURL
		if base == "" {
			base = localURL(prefix)
		}
		return newCompatible(name, prefix, rest, base, opt)
	case hasSlash && prefix == "openai-api":
		label, model, ok := strings.Cut(rest, "/")
		if !ok || label == "" {
			return nil, fmt.Errorf("model %q: want openai-api/NAME/MODEL", name)
		}
		if opt.BaseURL == "" {
			return nil, fmt.Errorf("model %q: an openai-api model needs a base URL (--base-url)", name)
		}
		return newCompatible(name, label, model, opt.BaseURL, opt)
	case opt.BaseURL != "":
		// Before the bare names: "-m gpt-4 --base-url URL" is a model of the
		// server at URL, which must not get OpenAI's key.
		return newCompatible(name, "openai-api", name, opt.BaseURL, opt)
	case !hasSlash && isBareOpenAI(name):
		return newOpenAIDialect(name, name, opt, getenv)
	case !hasSlash && strings.HasPrefix(name, "claude-"):
		return newAnthropicModel(name, name, opt, getenv)
	}
	return nil, fmt.Errorf("model %q: unknown model; want provider/model (openai/, anthropic/, ollama/, vllm/, llamacpp/, openai-api/NAME/), "+
		"a bare gpt-*/claude-* name, mock, random, oracle, replay:FILE.jsonl, or a --base-url", name)
}

// localURL returns the default base URL of a local server provider.
func localURL(provider string) string {
	switch provider {
	case "ollama":
		return OllamaURL
	case "vllm":
		return VLLMURL
	}
	return LlamaCppURL
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

// newOpenAIDialect builds an OpenAI model: OpenAI's key and base URL from the
// environment, and OpenAI's own request dialect (max_completion_tokens).
func newOpenAIDialect(name, model string, opt Options, getenv func(string) string) (Model, error) {
	if model == "" {
		return nil, fmt.Errorf("model %q: no model after the provider", name)
	}
	base := opt.BaseURL
	if base == "" {
		base = getenv("OPENAI_BASE_URL")
	}
	if base == "" {
		base = openAIURL
	}
	key := opt.APIKey
	if key == "" {
		key = getenv("OPENAI_API_KEY")
	}
	if key == "" && base == openAIURL {
		return nil, fmt.Errorf("model %q: no OpenAI API key: set OPENAI_API_KEY", name)
	}
	return newOpenAI(openAIConfig{
		name: name, provider: "openai", model: model, baseURL: base, key: key,
		maxCompletionTokens: true, opt: opt,
	})
}

// newCompatible builds a model of an OpenAI-compatible server, which gets
// only the key given in Options.
func newCompatible(name, provider, model, base string, opt Options) (Model, error) {
	if model == "" {
		return nil, fmt.Errorf("model %q: no model after the provider", name)
	}
	return newOpenAI(openAIConfig{
		name: name, provider: provider, model: model, baseURL: base, key: opt.APIKey, opt: opt,
	})
}

func newAnthropicModel(name, model string, opt Options, getenv func(string) string) (Model, error) {
	if model == "" {
		return nil, fmt.Errorf("model %q: no model after the provider", name)
	}
	base := opt.BaseURL
	if base == "" {
		base = getenv("ANTHROPIC_BASE_URL")
	}
	key := opt.APIKey
	if key == "" {
		key = getenv("ANTHROPIC_API_KEY")
	}
	if key == "" && base == "" {
		return nil, fmt.Errorf("model %q: no Anthropic API key: set ANTHROPIC_API_KEY", name)
	}
	return newAnthropic(anthropicConfig{name: name, model: model, baseURL: base, key: key, opt: opt})
}

// httpClient returns the client hosted providers send with.
func (o Options) httpClient() *http.Client {
	if o.HTTPClient != nil {
		return o.HTTPClient
	}
	return &http.Client{}
}

// timeout returns the per-request time limit.
func (o Options) timeout() time.Duration {
	if o.Timeout > 0 {
		return o.Timeout
	}
	return DefaultTimeout
}

// Error classification shared by the hosted providers (openai.go, anthropic.go).

// classify turns a failed SDK call into the error Complete returns: the
// caller's own cancellation as is, everything else as an *APIError that says
// whether a retry may help. res is the HTTP response, if one arrived; parent
// is the caller's context and call the one bounded by the request timeout.
// Messages never carry a raw body, only the error text parsed from it, and
// key is scrubbed from all of them.
func classify(provider, key string, err error, res *http.Response, parent, call context.Context, timeout time.Duration) error {
	if parent.Err() != nil {
		return parent.Err() // the caller gave up: not the server's fault, not to retry
	}
	if res != nil && res.StatusCode >= 400 {
		return &APIError{
			Provider:   provider,
			Status:     res.StatusCode,
			RetryAfter: retryAfter(res.Header, time.Now()),
			Retryable:  retryableStatus(res.StatusCode),
			Message:    truncate(scrub(bodyMessage(res), key), 500),
		}
	}
	if call.Err() != nil || errors.Is(err, context.DeadlineExceeded) {
		return &APIError{Provider: provider, Retryable: true,
			Message: fmt.Sprintf("request timed out after %s", timeout)}
	}
	if res != nil {
		// A success status whose body could not be read or decoded: a
		// truncated or garbled reply, worth another try.
		return &APIError{Provider: provider, Status: 0, Retryable: true,
			Message: truncate(scrub("malformed reply: "+err.Error(), key), 500)}
	}
	if isTransport(err) {
		return &APIError{Provider: provider, Retryable: true,
			Message: truncate(scrub("transport error: "+err.Error(), key), 500)}
	}
	// Anything else failed before a request left (a bad base URL, an
	// unencodable body): retrying cannot help.
	return &APIError{Provider: provider, Message: truncate(scrub(err.Error(), key), 500)}
}

// retryableStatus says which HTTP statuses are worth retrying: rate limits,
// request timeouts, conflicts, and server-side failures (5xx, Anthropic's 529).
func retryableStatus(status int) bool {
	switch status {
	case http.StatusTooManyRequests, http.StatusRequestTimeout, http.StatusConflict:
		return true
	}
	return status >= 500
}

// isTransport reports whether err is a network failure: a refused, reset or
// dropped connection, or a reply cut short.
func isTransport(err error) bool {
	var urlErr *url.Error
	var netErr net.Error
	return errors.As(err, &urlErr) || errors.As(err, &netErr) ||
		errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.ECONNREFUSED)
}

// retryAfter reads how long the server asks us to wait: OpenAI's
// retry-after-ms, else Retry-After in seconds or as an HTTP date; 0 if absent.
func retryAfter(h http.Header, now time.Time) time.Duration {
	if ms, err := strconv.ParseFloat(h.Get("Retry-After-Ms"), 64); err == nil && ms > 0 {
		return time.Duration(ms * float64(time.Millisecond))
	}
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0
	}
	if secs, err := strconv.ParseFloat(v, 64); err == nil {
		if secs <= 0 {
			return 0
		}
		return time.Duration(secs * float64(time.Second))
	}
	if t, err := http.ParseTime(v); err == nil && t.After(now) {
		return t.Sub(now)
	}
	return 0
}

// bodyMessage extracts the error text from an error response's JSON body,
// in the shapes OpenAI, Anthropic and the local servers use. A body that is
// not such JSON is never quoted (it may echo headers, keys included): the
// status text stands in for it.
func bodyMessage(res *http.Response) string {
	fallback := http.StatusText(res.StatusCode)
	if fallback == "" {
		fallback = "error"
	}
	if res.Body == nil {
		return fallback
	}
	data, err := io.ReadAll(io.LimitReader(res.Body, 64<<10))
	if err != nil {
		return fallback
	}
	var body struct {
		Error   json.RawMessage `json:"error"`
		Message string          `json:"message"`
		Detail  json.RawMessage `json:"detail"`
	}
	if json.Unmarshal(data, &body) != nil {
		return fallback
	}
	var msg string
	var nested struct {
		Type    string `json:"type"`
		Message string `json:"message"`
	}
	switch {
	case json.Unmarshal(body.Error, &nested) == nil && nested.Message != "":
		msg = nested.Message
		if nested.Type != "" {
			msg = nested.Type + ": " + msg
		}
	case json.Unmarshal(body.Error, &msg) == nil && msg != "": // {"error": "text"} (Ollama)
	case body.Message != "":
		msg = body.Message
	case json.Unmarshal(body.Detail, &msg) == nil && msg != "": // {"detail": "text"} (FastAPI servers)
	default:
		return fallback
	}
	return msg
}

// scrub removes the API key from a message, whatever echoed it. It runs
// before truncate, so a cut can never leave part of a key behind.
func scrub(s, key string) string {
	if key == "" {
		return s
	}
	return strings.ReplaceAll(s, key, "[redacted]")
}

// truncate shortens s to at most n bytes without splitting a character.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "..."
}
