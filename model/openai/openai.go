// Package openai is the provider of OpenAI's chat-completions API and of
// every server that speaks it (vLLM, Ollama, llama.cpp, hosted
// OpenAI-compatible APIs), and of OpenAI's Responses API
// (openai-responses/MODEL). Register wires it into a model.Registry.
package openai

import (
	"bytes"
	"cmp"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/evalmd/evalmd/model"
	"github.com/evalmd/evalmd/model/internal/wire"
)

// Options are this package's own options, given in model.Options.Provider.
type Options struct {
	// CompletionAPI sends requests to the raw text completions endpoint
	// (/v1/completions, which llama.cpp and vLLM serve) instead of chat:
	// the prompt is the system text and the user messages as they are,
	// with no chat template, as DataBench's baseline ran llama-cli. Tools
	// and images cannot be sent that way.
	CompletionAPI bool
}

// config is what newClient resolved for a model.
type config struct {
	name  string // as given on the command line
	label string // the provider in errors: "openai", "vllm", or an openai-api NAME
	key   string // "" sends no Authorization header
	info  model.Info

	// maxCompletionTokens sends Settings.MaxTokens as max_completion_tokens,
	// which OpenAI requires for its reasoning models (o1, o3, gpt-5...) and
	// accepts for every chat model. Every other server gets max_tokens:
	// llama.cpp and older servers ignore max_completion_tokens.
	maxCompletionTokens bool

	api *wire.Client // the server's calls, each bounded by the request timeout and capped by --max-reply
}

// newClient builds a model of OpenAI or of an OpenAI-compatible server.
//
// Keys and servers: openai/ takes OPENAI_API_KEY and OPENAI_BASE_URL;
// ollama/, vllm/ and llamacpp/ take OLLAMA_*, VLLM_*, LLAMACPP_* _API_KEY
// and _BASE_URL (a local server needs no key); openai-api/NAME/ takes
// NAME_API_KEY and NAME_BASE_URL (Inspect's convention); a bare name with
// --base-url takes only the key given (--api-key-env). Options.BaseURL and
// Options.APIKeyEnv override these. No key is ever sent to a server it was
// not named for: OPENAI_API_KEY goes only with openai/ names.
func newClient(ref model.Ref, opt model.Options) (model.Model, error) {
	cfg := config{name: ref.Name, label: ref.Provider}
	keyVars, server, defaultBase, err := serverOf(ref)
	if err != nil {
		return nil, err
	}
	if ref.Provider == "openai-api" && ref.Label != "" {
		cfg.label = ref.Label
	}
	base, key, from, err := opt.Endpoint(server, keyVars...)
	if err != nil {
		return nil, fmt.Errorf("model %q: %w", ref.Name, err)
	}
	if base == "" {
		base = defaultBase
	}
	if base == "" {
		return nil, fmt.Errorf("model %q: an openai-api model needs a base URL (--base-url or %s_BASE_URL)", ref.Name, model.EnvName(ref.Label))
	}
	if ref.Model == "" {
		return nil, fmt.Errorf("model %q: no model after the provider", ref.Name)
	}
	official := isOpenAI(base)
	if key == "" && official {
		want := "OPENAI_API_KEY"
		if from != "" {
			want = from
		}
		return nil, fmt.Errorf("model %q: no OpenAI API key: set %s", ref.Name, want)
	}
	cfg.key = key
	cfg.info = infoOf(ref, base, official)
	// A proxy serving an OpenAI reasoning model takes what OpenAI takes.
	cfg.maxCompletionTokens = official || cfg.info.FixedSampling
	header := http.Header{}
	if key != "" {
		header.Set("Authorization", "Bearer "+key)
	}
	if ref.Provider == "llamacpp" {
		// llama-server gives each connection one of a few HTTP threads:
		// connections kept alive by our pool held them, and with more
		// requests in flight than threads one waited out a 5 s stall
		// (measured: -c 8 and up, and -c auto, which starts at 10,
		// against a server of 2 slots; never at -c 4). A new connection
		// per request costs little on the machine that serves it.
		header.Set("Connection", "close")
	}
	cfg.api = &wire.Client{HTTP: opt.HTTP(), BaseURL: base, Header: header, Provider: cfg.label, Key: key,
		Timeout: opt.RequestTimeout(), MaxReply: opt.ReplyLimit()}
	if ref.Provider == "openai-responses" {
		return &responsesModel{cfg: cfg}, nil
	}
	if model.ProviderOption[Options](opt).CompletionAPI {
		cfg.info.NoTools, cfg.info.Endpoint = true, "completions"
		return &textModel{cfg: cfg}, nil
	}
	return &chatModel{cfg: cfg}, nil
}

// serverOf is where a model's key and server are read from: the
// variables its key may be in, the provider or NAME whose server it is
// (NAME_BASE_URL, base_urls) and the provider's own server ("" for none).
func serverOf(ref model.Ref) (keyVars []string, server, defaultBase string, err error) {
	if s := defaultServer(ref.Provider); s != nil {
		return []string{s.KeyVar}, cmp.Or(s.Name, ref.Provider), s.URL, nil
	}
	if ref.Provider == "openai-api" {
		if ref.Label != "" {
			return []string{model.EnvName(ref.Label) + "_API_KEY"}, ref.Label, "", nil
		}
		return nil, "", "", nil
	}
	return nil, "", "", fmt.Errorf("model %q: provider %s is not OpenAI-compatible", ref.Name, ref.Provider)
}

// infoOf is what is known of a model served at base (official: OpenAI's
// own server): OpenAI's models' vision, sampling, context and price; a
// local server's price, none.
func infoOf(ref model.Ref, base string, official bool) model.Info {
	info := model.Info{Provider: ref.Provider, Label: ref.Label, Model: ref.Model, BaseURL: base,
		ReasoningBudget: budgetMember(ref.Provider, base)}
	info.BudgetAlone = info.ReasoningBudget == budgetOpenRouter || info.ReasoningBudget == budgetGemini
	switch ref.Provider {
	case "openai", "openai-responses":
		info.Vision = vision(ref.Model)
		info.FixedSampling = reasoningModel(ref.Model)
		info.ExactTokens = true
		info.CacheMin = cacheMin(ref.Model)
		if official {
			// Another server under an OpenAI name (a proxy, a local
			// server) is not priced as OpenAI: its price is unknown.
			if p, ok := model.LookupPrice(ref.Model); ok {
				info.Price = &p
			}
		}
		if n, ok := model.ContextLimit(ref.Model); ok {
			info.ContextLimit = n
		}
	case "ollama", "vllm", "llamacpp":
		info.Price = &model.Price{} // served locally: no charge per token
	}
	return info
}

// cacheMin is the fewest prompt tokens OpenAI's automatic prompt cache
// keeps (1,024, then in steps of 128) for a model with a cached-input
// price in the price table; 0 for the others (gpt-3.5, gpt-4), which
// have no prompt cache.
func cacheMin(name string) int {
	if p, ok := model.LookupPrice(name); ok && p.CachedIn > 0 {
		return 1024
	}
	return 0
}

// reasoningModel says whether an OpenAI model is one of its reasoning
// models (o1, o3, o4-mini, gpt-5 and later, codex-mini), which refuse
// temperature and top_p other than the default with HTTP 400; gpt-5's
// chat models (gpt-5-chat-latest) take them.
func reasoningModel(name string) bool {
	n := strings.ToLower(strings.TrimPrefix(name, "ft:"))
	for _, o := range []string{"o1", "o3", "o4"} {
		if n == o || strings.HasPrefix(n, o+"-") {
			return true
		}
	}
	if strings.HasPrefix(n, "codex-") {
		return true
	}
	if rest, ok := strings.CutPrefix(n, "gpt-"); ok && len(rest) > 0 && rest[0] >= '5' && rest[0] <= '9' {
		return !strings.Contains(rest, "-chat")
	}
	return false
}

// The servers that take a thinking budget on the chat-completions API,
// and the member each takes it as (docs/models.md: Reasoning). OpenAI's own API,
// ollama and llama.cpp take none (llama.cpp's is a server flag,
// --reasoning-budget).
const (
	budgetVLLM       = "thinking_token_budget"                             // vLLM with a reasoning parser
	budgetOpenRouter = "reasoning.max_tokens"                              // OpenRouter
	budgetGemini     = "extra_body.google.thinking_config.thinking_budget" // Gemini's OpenAI-compatible endpoint
	budgetQwen       = "thinking_budget"                                   // Alibaba Cloud Model Studio (DashScope)
)

// budgetMember is how the server at base takes a thinking budget: the
// member of the request body, dotted; "" when it takes none.
func budgetMember(provider, base string) string {
	host := ""
	if u, err := url.Parse(base); err == nil {
		host = strings.ToLower(u.Hostname())
	}
	switch {
	case provider == "vllm":
		return budgetVLLM
	case host == "openrouter.ai":
		return budgetOpenRouter
	case host == "generativelanguage.googleapis.com":
		return budgetGemini
	case strings.HasPrefix(host, "dashscope") && strings.HasSuffix(host, ".aliyuncs.com"):
		return budgetQwen
	}
	return ""
}

// budgetBody is the member that sends n as a thinking budget: a dotted
// member name made nested objects.
func budgetBody(member string, n int) (string, any) {
	parts := strings.Split(member, ".")
	var v any = n
	for i := len(parts) - 1; i > 0; i-- {
		v = map[string]any{parts[i]: v}
	}
	return parts[0], v
}

// textModel talks to a server's raw text-completions endpoint.
type textModel struct{ cfg config }

// Name returns the name given to newClient.
func (m *textModel) Name() string { return m.cfg.name }

// Info says what newClient resolved.
func (m *textModel) Info() model.Info { return m.cfg.info }

// textRequest is the body of POST /completions.
type textRequest struct {
	Prompt         string      `json:"prompt"`
	Model          string      `json:"model"`
	ResponseFormat *chatFormat `json:"response_format,omitempty"`
	sampling
}

// Complete sends the request as one text prompt: the system text, then
// the messages' texts, a conversation's turns as they are (no template,
// no role names, no separators but a blank line between parts), as
// lm-evaluation-harness lays out few-shot examples without
// --fewshot_as_multiturn. The server's text is the answer. A JSON answer
// is asked as chat asks it (response_format), which vLLM's completions
// endpoint takes and a server that does not ignores.
func (m *textModel) Complete(ctx context.Context, req model.Request) (model.Response, error) {
	var parts []string
	if req.System != "" {
		parts = append(parts, req.System)
	}
	for i, msg := range req.Messages {
		if (msg.Role != "user" && msg.Role != "assistant") || len(msg.Images) > 0 || len(msg.ToolCalls) > 0 {
			return model.Response{}, m.cfg.wrap(fmt.Errorf("message %d: the completions API takes the text of user and assistant turns only (role %s)", i, msg.Role))
		}
		parts = append(parts, msg.Content)
	}
	if len(req.Tools) > 0 {
		return model.Response{}, m.cfg.wrap(fmt.Errorf("the completions API cannot offer tools (agent mode needs chat)"))
	}
	s, _ := m.sent(req.Settings)
	body := textRequest{Prompt: strings.Join(parts, "\n\n"), Model: m.cfg.info.Model, sampling: sampled(s, false),
		ResponseFormat: responseFormat(s, req.Schema)}
	var out completion
	if err := m.cfg.api.Post(ctx, "/completions", body, &out); err != nil {
		return model.Response{}, m.cfg.wrap(err)
	}
	if len(out.Choices) == 0 {
		return model.Response{}, m.cfg.wrap(m.cfg.noChoices(&out))
	}
	return model.Response{
		Text:            out.Choices[0].Text,
		InputTokens:     out.Usage.PromptTokens,
		OutputTokens:    out.Usage.CompletionTokens,
		ReasoningTokens: out.Usage.CompletionTokensDetails.ReasoningTokens,
		CacheReadTokens: out.Usage.PromptTokensDetails.CachedTokens,
		Model:           out.Model,
		FinishReason:    out.Choices[0].FinishReason,
	}, nil
}

// sent returns the settings a text completion sends for s: its sampling
// members alone, what the server takes of them (model.Info.Sendable); the
// completions API has no member for an effort, a thinking budget or a
// verbosity, which are not sent, said so.
func (m *textModel) sent(s model.Settings) (model.Settings, []model.SettingNote) {
	s, notes, _ := model.SendSettings(nil, m.cfg.info, s) // Info's rules, which refuse nothing
	none := func(name string) {
		notes = append(notes, model.SettingNote{Name: name, Why: "the completions API (--completion-api) takes none"})
	}
	if s.ReasoningEffort != "" {
		s.ReasoningEffort = ""
		none("reasoning_effort")
	}
	if s.ReasoningTokens > 0 {
		s.ReasoningTokens = 0
		none("reasoning_tokens")
	}
	if s.Verbosity != "" {
		s.Verbosity = ""
		none("verbosity")
	}
	return s, notes
}

// SendSettings says what a request asking s sends (sent).
func (m *textModel) SendSettings(s model.Settings) (model.Settings, []model.SettingNote, error) {
	s, notes := m.sent(s)
	return s, notes, nil
}

// wrap names the model in an error, keeping *APIError reachable by
// errors.As. The question is named by the caller (runner.JobError): a
// request does not carry it.
func (c config) wrap(err error) error {
	return fmt.Errorf("model %s: %w", c.name, err)
}

// content is a user message's content as the chat and Responses APIs
// take it: its text alone, or, with images, its text as a part (text
// makes it) and each image as a part of its own (image makes it of the
// image's data URL), in that order.
func content(msg model.Message, text func(string) any, image func(url string) any) any {
	if len(msg.Images) == 0 {
		return msg.Content
	}
	parts := []any{text(msg.Content)}
	for _, img := range msg.Images {
		parts = append(parts, image(dataURL(img)))
	}
	return parts
}

// responseFormat is the response_format member asking for what s and
// schema say: json_schema with the schema (OpenAI's structured output,
// which vLLM, llama.cpp and ollama take too), json_object (JSON mode),
// or nil for text.
func responseFormat(s model.Settings, schema json.RawMessage) *chatFormat {
	switch {
	case s.ResponseFormat == model.ResponseSchema && len(schema) > 0:
		return &chatFormat{Type: "json_schema", JSONSchema: &namedSchema{Name: model.SchemaName, Schema: schema}}
	case s.ResponseFormat != "":
		return &chatFormat{Type: "json_object"}
	}
	return nil
}

// chatFormat is the response_format member of a chat or text completion.
type chatFormat struct {
	Type       string       `json:"type"` // json_object, json_schema
	JSONSchema *namedSchema `json:"json_schema,omitempty"`
}

// namedSchema is a json_schema format's schema with the name OpenAI
// requires. Strict is not sent: OpenAI's default (false) takes any
// schema, where strict refuses one that does not list every property as
// required and forbid others.
type namedSchema struct {
	Name   string          `json:"name"`
	Schema json.RawMessage `json:"schema"`
}

// dataURL is an image as the chat and Responses APIs take it inline.
func dataURL(img model.Image) string {
	return "data:" + img.MediaType + ";base64," + base64.StdEncoding.EncodeToString(img.Data)
}

// noChoices is the error of a completion without choices: the error the
// server put in its place, said as an error status's would be, else a
// malformed reply. Either may pass on a retry.
func (c config) noChoices(out *completion) *model.APIError {
	if e := bytes.TrimSpace(out.Error); len(e) > 0 && !bytes.Equal(e, []byte("null")) {
		ae := wire.StatusError(c.label, c.key, http.StatusOK, append(append([]byte(`{"error":`), e...), '}'))
		ae.Status, ae.Retryable, ae.Message = 0, !ae.Fatal, "the server answered with an error: "+ae.Message
		return ae
	}
	return &model.APIError{Provider: c.label, Retryable: true, Message: "malformed reply: no choices"}
}

// sampling is the settings members of a chat or text completion, sent
// only when set, as the server's defaults are otherwise the model's.
type sampling struct {
	MaxCompletionTokens int      `json:"max_completion_tokens,omitempty"`
	MaxTokens           int      `json:"max_tokens,omitempty"`
	Seed                *int64   `json:"seed,omitempty"`
	Temperature         *float64 `json:"temperature,omitempty"`
	TopP                *float64 `json:"top_p,omitempty"`
	Stop                []string `json:"stop,omitempty"`
}

// sampled is s's sampling members; max_tokens goes as
// max_completion_tokens when maxCompletionTokens says so.
func sampled(s model.Settings, maxCompletionTokens bool) sampling {
	out := sampling{Seed: s.Seed, Temperature: s.Temperature, TopP: s.TopP, Stop: s.Stop}
	if maxCompletionTokens {
		out.MaxCompletionTokens = max(s.MaxTokens, 0)
	} else {
		out.MaxTokens = max(s.MaxTokens, 0)
	}
	return out
}

// completion is the part of a chat or text completion read: the first
// choice's message (chat) or text, the usage, the model that answered.
type completion struct {
	Model   string `json:"model"`
	Choices []struct {
		Text         string      `json:"text"`
		Message      chatMessage `json:"message"`
		FinishReason string      `json:"finish_reason"`
	} `json:"choices"`
	// Error is what a server that answered 200 without choices may say
	// instead (gateways such as OpenRouter relay an upstream failure so).
	Error json.RawMessage `json:"error"`
	// Usage's prompt_tokens counts the cached tokens too.
	Usage struct {
		PromptTokens        int `json:"prompt_tokens"`
		CompletionTokens    int `json:"completion_tokens"`
		PromptTokensDetails struct {
			CachedTokens int `json:"cached_tokens"`
		} `json:"prompt_tokens_details"`
		CompletionTokensDetails struct {
			ReasoningTokens int `json:"reasoning_tokens"`
		} `json:"completion_tokens_details"`
	} `json:"usage"`
}

// chatModel talks to OpenAI or any server speaking its chat-completions API.
type chatModel struct{ cfg config }

// Name returns the name given to newClient.
func (m *chatModel) Name() string { return m.cfg.name }

// Info says what newClient resolved.
func (m *chatModel) Info() model.Info { return m.cfg.info }

// Complete sends one chat completion and returns its first choice.
func (m *chatModel) Complete(ctx context.Context, req model.Request) (model.Response, error) {
	body, err := m.body(req)
	if err != nil {
		return model.Response{}, m.cfg.wrap(err)
	}
	var out completion
	if err := m.cfg.api.Post(ctx, "/chat/completions", body, &out); err != nil {
		return model.Response{}, m.cfg.wrap(unservable(err))
	}
	res, err := m.response(&out)
	if err != nil {
		return model.Response{}, m.cfg.wrap(err)
	}
	return res, nil
}

// unservable makes final the HTTP 500 that llama.cpp's server (and
// ollama's) answers an image or audio part sent to a model loaded without
// its projector (mmproj): "image input is not supported - hint: ...". The
// status says a retry may help; it only repeats the answer (six attempts,
// 20 s a question, in a run against llama-server). Other 500s stay
// retryable: llama.cpp's "Context size has been exceeded", its slots'
// shared cache full under concurrent requests, passes on a retry.
func unservable(err error) error {
	var e *model.APIError
	if errors.As(err, &e) && e.Status == http.StatusInternalServerError && strings.Contains(e.Message, " input is not supported - hint:") {
		e.Retryable = false
	}
	return err
}

// chatRequest is the body of POST /chat/completions.
type chatRequest struct {
	Messages        []chatMessage `json:"messages"`
	Model           string        `json:"model"`
	Tools           []chatTool    `json:"tools,omitempty"`
	ReasoningEffort string        `json:"reasoning_effort,omitempty"`
	Verbosity       string        `json:"verbosity,omitempty"`
	ResponseFormat  *chatFormat   `json:"response_format,omitempty"`
	sampling
	// budget is the thinking budget's member, named as the server names
	// it (budgetBody); MarshalJSON adds it beside the others.
	budget map[string]any
}

// MarshalJSON writes the body's members and then the budget's.
func (r chatRequest) MarshalJSON() ([]byte, error) {
	type members chatRequest // without this method
	data, err := json.Marshal(members(r))
	if err != nil || len(r.budget) == 0 {
		return data, err
	}
	budget, err := json.Marshal(r.budget)
	if err != nil {
		return nil, err
	}
	return append(append(data[:len(data)-1], ','), budget[1:]...), nil
}

// chatMessage is a message sent, or the one a choice returns.
type chatMessage struct {
	Role       string         `json:"role"`
	Content    any            `json:"content,omitempty"` // a string, or text and image_url parts; nil in a turn of tool calls alone
	ToolCalls  []chatToolCall `json:"tool_calls,omitempty"`
	ToolCallID string         `json:"tool_call_id,omitempty"`
	Refusal    string         `json:"refusal,omitempty"`
	// The reasoning a server returns beside the answer: reasoning_content
	// (DeepSeek, vLLM, llama.cpp) or reasoning (ollama, OpenRouter). Of
	// any type, as neither is OpenAI's: a server that sends other than a
	// string loses the reasoning, not the answer.
	ReasoningContent any `json:"reasoning_content,omitempty"`
	Reasoning        any `json:"reasoning,omitempty"`
}

// chatText and chatImage are the parts of a user message with images.
type chatText struct {
	Type string `json:"type"` // "text"
	Text string `json:"text"`
}

type chatImage struct {
	Type     string   `json:"type"` // "image_url"
	ImageURL imageURL `json:"image_url"`
}

type imageURL struct {
	URL string `json:"url"` // a data: URL
}

// chatToolCall is an assistant's call of a function tool.
type chatToolCall struct {
	ID       string       `json:"id"`
	Type     string       `json:"type"` // "function"
	Function chatFunction `json:"function"`
}

type chatFunction struct {
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

// chatTool is a function tool offered.
type chatTool struct {
	Type     string `json:"type"` // "function"
	Function struct {
		Name        string         `json:"name"`
		Description string         `json:"description"`
		Parameters  map[string]any `json:"parameters,omitzero"`
	} `json:"function"`
}

// response reads a chat completion, live or from a batch's output.
func (m *chatModel) response(out *completion) (model.Response, error) {
	if len(out.Choices) == 0 {
		return model.Response{}, m.cfg.noChoices(out)
	}
	choice := out.Choices[0]
	text, _ := choice.Message.Content.(string)
	finish := choice.FinishReason
	if text == "" && choice.Message.Refusal != "" {
		// A refusal is the model's answer (grading decides), and is said
		// as Anthropic's stop_reason says it: the server's finish_reason
		// is a plain "stop".
		text, finish = choice.Message.Refusal, model.FinishRefusal
	}
	var calls []model.ToolCall
	for _, c := range choice.Message.ToolCalls {
		if c.Type != "" && c.Type != "function" {
			continue // custom tools are never offered
		}
		calls = append(calls, model.ToolCall{ID: c.ID, Name: c.Function.Name, Arguments: c.Function.Arguments})
	}
	reasoning, _ := choice.Message.ReasoningContent.(string)
	if reasoning == "" {
		reasoning, _ = choice.Message.Reasoning.(string)
	}
	return model.Response{
		Text:            text,
		Reasoning:       reasoning,
		InputTokens:     out.Usage.PromptTokens,
		OutputTokens:    out.Usage.CompletionTokens,
		ReasoningTokens: out.Usage.CompletionTokensDetails.ReasoningTokens,
		CacheReadTokens: out.Usage.PromptTokensDetails.CachedTokens,
		Model:           out.Model,
		FinishReason:    finish,
		ToolCalls:       calls,
	}, nil
}

// sent returns the settings a chat completion sends for s, with why each
// setting asked for is not sent as asked: what the server takes
// (model.Info.Sendable), an OpenAI model's effort as OpenAI takes it
// (openAIEffort).
func (m *chatModel) sent(s model.Settings) (model.Settings, []model.SettingNote) {
	s, notes, _ := model.SendSettings(nil, m.cfg.info, s) // Info's rules, which refuse nothing
	if m.cfg.info.Provider == "openai" {
		notes = append(notes, openAIEffort(&s)...)
	}
	return s, notes
}

// SendSettings says what a request asking s sends (sent).
func (m *chatModel) SendSettings(s model.Settings) (model.Settings, []model.SettingNote, error) {
	s, notes := m.sent(s)
	return s, notes, nil
}

// openAIEffort sends reasoning_effort max, Claude's most, as xhigh,
// OpenAI's most, saying so.
func openAIEffort(s *model.Settings) []model.SettingNote {
	if s.ReasoningEffort != model.ReasoningMax {
		return nil
	}
	s.ReasoningEffort = model.ReasoningXHigh
	return []model.SettingNote{{Name: "reasoning_effort", As: model.ReasoningXHigh, Why: "OpenAI's most effort (max is Claude's)"}}
}

// body translates a Request into a chat completion's body.
func (m *chatModel) body(req model.Request) (chatRequest, error) {
	b := chatRequest{Model: m.cfg.info.Model}
	if req.System != "" {
		b.Messages = append(b.Messages, chatMessage{Role: "system", Content: req.System})
	}
	if err := req.Check(); err != nil {
		return b, err
	}
	for _, msg := range req.Messages {
		switch msg.Role {
		case "user":
			b.Messages = append(b.Messages, chatMessage{Role: "user", Content: content(msg,
				func(text string) any { return chatText{Type: "text", Text: text} },
				func(url string) any { return chatImage{Type: "image_url", ImageURL: imageURL{url}} })})
		case "assistant":
			a := chatMessage{Role: "assistant", Content: msg.Content}
			if msg.Content == "" && len(msg.ToolCalls) > 0 {
				a.Content = nil // the calls are the turn
			}
			for _, c := range msg.ToolCalls {
				a.ToolCalls = append(a.ToolCalls, chatToolCall{ID: c.ID, Type: "function", Function: chatFunction{Name: c.Name, Arguments: c.Arguments}})
			}
			b.Messages = append(b.Messages, a)
		case "tool":
			b.Messages = append(b.Messages, chatMessage{Role: "tool", Content: msg.Content, ToolCallID: msg.ToolCallID})
		}
	}
	for _, t := range req.Tools {
		tool := chatTool{Type: "function"}
		tool.Function.Name, tool.Function.Description = t.Name, t.Description
		if len(t.Parameters) > 0 {
			if err := json.Unmarshal(t.Parameters, &tool.Function.Parameters); err != nil {
				return b, fmt.Errorf("tool %s: parameters are not a JSON object: %w", t.Name, err)
			}
		}
		b.Tools = append(b.Tools, tool)
	}
	s, _ := m.sent(req.Settings)
	b.sampling = sampled(s, m.cfg.maxCompletionTokens)
	b.ReasoningEffort, b.Verbosity = s.ReasoningEffort, s.Verbosity
	b.ResponseFormat = responseFormat(s, req.Schema)
	if s.ReasoningTokens > 0 {
		// Sendable kept it: the server takes a budget (and, where it
		// refuses an effort beside it, BudgetAlone, left the effort out).
		name, v := budgetBody(m.cfg.info.ReasoningBudget, s.ReasoningTokens)
		b.budget = map[string]any{name: v}
	}
	return b, nil
}
