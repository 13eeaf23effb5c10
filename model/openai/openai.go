// Package openai is the provider of OpenAI's chat-completions API and of
// every server that speaks it (vLLM, Ollama, llama.cpp, hosted
// OpenAI-compatible APIs), and of OpenAI's Responses API
// (openai-responses/MODEL). Register wires it into a model.Registry.
package openai

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/responses"
	"github.com/openai/openai-go/v3/shared"

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

	opt model.Options
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
	cfg := config{name: ref.Name, label: ref.Provider, opt: opt}
	var keyVars []string
	var server, defaultBase string // the provider whose server it is (NAME_BASE_URL, base_urls)
	switch ref.Provider {
	case "openai", "openai-responses":
		keyVars, server = []string{"OPENAI_API_KEY"}, "openai"
		defaultBase = openAIURL
	case "ollama", "vllm", "llamacpp":
		keyVars = []string{model.EnvName(ref.Provider) + "_API_KEY"}
		server = ref.Provider
		defaultBase = localURLs()[ref.Provider]
	case "openai-api":
		if ref.Label != "" {
			cfg.label = ref.Label
			keyVars = []string{model.EnvName(ref.Label) + "_API_KEY"}
			server = ref.Label
		}
	default:
		return nil, fmt.Errorf("model %q: provider %s is not OpenAI-compatible", ref.Name, ref.Provider)
	}
	base, err := opt.Server(server)
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
	key, from := opt.Key(keyVars...)
	official := isOpenAI(base)
	if key == "" && official {
		want := "OPENAI_API_KEY"
		if from != "" {
			want = from
		}
		return nil, fmt.Errorf("model %q: no OpenAI API key: set %s", ref.Name, want)
	}
	cfg.key = key
	cfg.info = model.Info{Provider: ref.Provider, Label: ref.Label, Model: ref.Model, BaseURL: base,
		ReasoningBudget: budgetMember(ref.Provider, base)}
	cfg.info.BudgetAlone = cfg.info.ReasoningBudget == budgetOpenRouter || cfg.info.ReasoningBudget == budgetGemini
	switch ref.Provider {
	case "openai", "openai-responses":
		cfg.info.Vision = vision(ref.Model)
		cfg.info.FixedSampling = reasoningModel(ref.Model)
		cfg.info.ExactTokens = true
		if official {
			// Another server under an OpenAI name (a proxy, a local
			// server) is not priced as OpenAI: its price is unknown.
			if p, ok := model.LookupPrice(ref.Model); ok {
				cfg.info.Price = &p
			}
		}
		if n, ok := model.ContextLimit(ref.Model); ok {
			cfg.info.ContextLimit = n
		}
	case "ollama", "vllm", "llamacpp":
		cfg.info.Price = &model.Price{} // served locally: no charge per token
	}
	// A proxy serving an OpenAI reasoning model takes what OpenAI takes.
	cfg.maxCompletionTokens = official || cfg.info.FixedSampling
	opts := []option.RequestOption{
		// Built from explicit options only, not openai.NewClient, whose
		// defaults read OPENAI_* variables from the process environment.
		option.WithHTTPClient(opt.HTTP()),
		option.WithBaseURL(base),
		option.WithMaxRetries(0), // the runner retries, with its own budget
	}
	if key != "" {
		opts = append(opts, option.WithAPIKey(key))
	}
	if ref.Provider == "openai-responses" {
		return &responsesModel{cfg: cfg, responses: responses.NewResponseService(opts...),
			files: openai.NewFileService(opts...), batches: openai.NewBatchService(opts...)}, nil
	}
	if model.ProviderOption[Options](opt).CompletionAPI {
		return &textModel{cfg: cfg, completions: openai.NewCompletionService(opts...)}, nil
	}
	return &chatModel{cfg: cfg, chat: openai.NewChatCompletionService(opts...),
		files: openai.NewFileService(opts...), batches: openai.NewBatchService(opts...)}, nil
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
// and the member each takes it as (README: Reasoning). OpenAI's own API,
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
type textModel struct {
	cfg         config
	completions openai.CompletionService
}

// Name returns the name given to newClient.
func (m *textModel) Name() string { return m.cfg.name }

// Info says what newClient resolved.
func (m *textModel) Info() model.Info { return m.cfg.info }

// Complete sends the request as one text prompt: the system text, then the
// user messages, each followed by nothing (no template, no separators but
// a blank line between parts). The server's text is the answer.
func (m *textModel) Complete(ctx context.Context, req model.Request) (model.Response, error) {
	var parts []string
	if req.System != "" {
		parts = append(parts, req.System)
	}
	for i, msg := range req.Messages {
		if msg.Role != "user" || len(msg.Images) > 0 || len(msg.ToolCalls) > 0 {
			return model.Response{}, m.cfg.wrap(fmt.Errorf("message %d: the completions API takes user text only (role %s)", i, msg.Role))
		}
		parts = append(parts, msg.Content)
	}
	if len(req.Tools) > 0 {
		return model.Response{}, m.cfg.wrap(fmt.Errorf("the completions API cannot offer tools (agent mode needs chat)"))
	}
	p := openai.CompletionNewParams{
		Model:  openai.CompletionNewParamsModel(m.cfg.info.Model),
		Prompt: openai.CompletionNewParamsPromptUnion{OfString: openai.String(strings.Join(parts, "\n\n"))},
	}
	s, _ := m.cfg.info.Sendable(req.Settings)
	if s.Temperature != nil {
		p.Temperature = openai.Float(*s.Temperature)
	}
	if s.TopP != nil {
		p.TopP = openai.Float(*s.TopP)
	}
	if s.MaxTokens > 0 {
		p.MaxTokens = openai.Int(int64(s.MaxTokens))
	}
	if s.Seed != nil {
		p.Seed = openai.Int(*s.Seed)
	}
	if len(s.Stop) > 0 {
		p.Stop = openai.CompletionNewParamsStopUnion{OfStringArray: s.Stop}
	}
	timeout := m.cfg.opt.RequestTimeout()
	callCtx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	var httpRes *http.Response
	out, err := m.completions.New(callCtx, p, option.WithResponseInto(&httpRes), m.cfg.capReply())
	if err != nil {
		return model.Response{}, m.cfg.failed(err, httpRes, ctx, callCtx, timeout)
	}
	if out == nil || len(out.Choices) == 0 {
		return model.Response{}, m.cfg.wrap(&model.APIError{Provider: m.cfg.label, Retryable: true, Message: "malformed reply: no choices"})
	}
	return model.Response{
		Text:            out.Choices[0].Text,
		InputTokens:     int(out.Usage.PromptTokens),
		OutputTokens:    int(out.Usage.CompletionTokens),
		ReasoningTokens: int(out.Usage.CompletionTokensDetails.ReasoningTokens),
		Model:           out.Model,
		FinishReason:    string(out.Choices[0].FinishReason),
	}, nil
}

// capReply bounds a live reply's body (Options.MaxReply); a batch's
// results file is read a line at a time instead (readResults).
func (c config) capReply() option.RequestOption {
	return option.WithMiddleware(wire.CapReply(c.opt.ReplyLimit()))
}

// wrap names the model in an error, keeping *APIError reachable by
// errors.As. The question is named by the caller (runner.JobError): a
// request does not carry it.
func (c config) wrap(err error) error {
	return fmt.Errorf("model %s: %w", c.name, err)
}

// failed classifies a failed call of either endpoint (status, Retry-After,
// transport, timeout) and names the model; the key never appears.
func (c config) failed(err error, httpRes *http.Response, ctx, callCtx context.Context, timeout time.Duration) error {
	var apiErr *openai.Error
	if errors.As(err, &apiErr) && httpRes == nil {
		httpRes = apiErr.Response
	}
	return c.wrap(wire.Classify(c.label, c.key, err, httpRes, ctx, callCtx, timeout))
}

// chatModel talks to OpenAI or any server speaking its chat-completions API.
type chatModel struct {
	cfg     config
	chat    openai.ChatCompletionService
	files   openai.FileService  // batch input and output files
	batches openai.BatchService // the Batches API
}

// Name returns the name given to newClient.
func (m *chatModel) Name() string { return m.cfg.name }

// Info says what newClient resolved.
func (m *chatModel) Info() model.Info { return m.cfg.info }

// Complete sends one chat completion and returns its first choice.
func (m *chatModel) Complete(ctx context.Context, req model.Request) (model.Response, error) {
	params, err := m.params(req)
	if err != nil {
		return model.Response{}, m.cfg.wrap(err)
	}
	timeout := m.cfg.opt.RequestTimeout()
	callCtx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	var httpRes *http.Response
	out, err := m.chat.New(callCtx, params, option.WithResponseInto(&httpRes), m.cfg.capReply())
	if err != nil {
		return model.Response{}, m.cfg.failed(err, httpRes, ctx, callCtx, timeout)
	}
	res, err := m.response(out)
	if err != nil {
		return model.Response{}, m.cfg.wrap(err)
	}
	return res, nil
}

// response reads a chat completion, live or from a batch's output.
func (m *chatModel) response(out *openai.ChatCompletion) (model.Response, error) {
	if out == nil || len(out.Choices) == 0 {
		return model.Response{}, &model.APIError{Provider: m.cfg.label, Retryable: true,
			Message: "malformed reply: no choices"}
	}
	choice := out.Choices[0]
	text, finish := choice.Message.Content, choice.FinishReason
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
	return model.Response{
		Text:            text,
		Reasoning:       reasoningText(choice.Message),
		InputTokens:     int(out.Usage.PromptTokens),
		OutputTokens:    int(out.Usage.CompletionTokens),
		ReasoningTokens: int(out.Usage.CompletionTokensDetails.ReasoningTokens),
		Model:           out.Model,
		FinishReason:    finish,
		ToolCalls:       calls,
	}, nil
}

// reasoningText is the reasoning a server returned beside the answer:
// reasoning_content (DeepSeek, vLLM, llama.cpp) or reasoning (ollama,
// OpenRouter), members the SDK does not know; "" when neither is a string.
func reasoningText(msg openai.ChatCompletionMessage) string {
	for _, name := range []string{"reasoning_content", "reasoning"} {
		f, ok := msg.JSON.ExtraFields[name]
		if !ok {
			continue
		}
		var text string
		if json.Unmarshal([]byte(f.Raw()), &text) == nil && text != "" {
			return text
		}
	}
	return ""
}

// params translates a Request into the SDK's request body.
func (m *chatModel) params(req model.Request) (openai.ChatCompletionNewParams, error) {
	p := openai.ChatCompletionNewParams{Model: m.cfg.info.Model}
	if req.System != "" {
		p.Messages = append(p.Messages, openai.SystemMessage(req.System))
	}
	if len(req.Messages) == 0 {
		return p, fmt.Errorf("request has no messages")
	}
	for i, msg := range req.Messages {
		switch msg.Role {
		case "user":
			if len(msg.Images) == 0 {
				p.Messages = append(p.Messages, openai.UserMessage(msg.Content))
				continue
			}
			parts := []openai.ChatCompletionContentPartUnionParam{openai.TextContentPart(msg.Content)}
			for j, img := range msg.Images {
				if img.MediaType == "" || len(img.Data) == 0 {
					return p, fmt.Errorf("message %d, image %d: no media type or no data", i, j)
				}
				parts = append(parts, openai.ImageContentPart(openai.ChatCompletionContentPartImageImageURLParam{
					URL: "data:" + img.MediaType + ";base64," + base64.StdEncoding.EncodeToString(img.Data),
				}))
			}
			p.Messages = append(p.Messages, openai.UserMessage(parts))
		case "assistant":
			if len(msg.Images) > 0 {
				return p, fmt.Errorf("message %d: assistant messages cannot carry images", i)
			}
			if len(msg.ToolCalls) == 0 {
				p.Messages = append(p.Messages, openai.AssistantMessage(msg.Content))
				continue
			}
			a := openai.ChatCompletionAssistantMessageParam{}
			if msg.Content != "" {
				a.Content.OfString = openai.String(msg.Content)
			}
			for _, c := range msg.ToolCalls {
				a.ToolCalls = append(a.ToolCalls, openai.ChatCompletionMessageToolCallUnionParam{
					OfFunction: &openai.ChatCompletionMessageFunctionToolCallParam{
						ID:       c.ID,
						Function: openai.ChatCompletionMessageFunctionToolCallFunctionParam{Name: c.Name, Arguments: c.Arguments},
					},
				})
			}
			p.Messages = append(p.Messages, openai.ChatCompletionMessageParamUnion{OfAssistant: &a})
		case "tool":
			if msg.ToolCallID == "" {
				return p, fmt.Errorf("message %d: a tool result without the id of its call", i)
			}
			p.Messages = append(p.Messages, openai.ToolMessage(msg.Content, msg.ToolCallID))
		default:
			return p, fmt.Errorf("message %d: unknown role %q (want user, assistant or tool)", i, msg.Role)
		}
	}
	for _, t := range req.Tools {
		var schema map[string]any
		if len(t.Parameters) > 0 {
			if err := json.Unmarshal(t.Parameters, &schema); err != nil {
				return p, fmt.Errorf("tool %s: parameters are not a JSON object: %v", t.Name, err)
			}
		}
		p.Tools = append(p.Tools, openai.ChatCompletionFunctionTool(shared.FunctionDefinitionParam{
			Name:        t.Name,
			Description: openai.String(t.Description),
			Parameters:  shared.FunctionParameters(schema),
		}))
	}
	s, _ := m.cfg.info.Sendable(req.Settings)
	if s.Temperature != nil {
		p.Temperature = openai.Float(*s.Temperature)
	}
	if s.TopP != nil {
		p.TopP = openai.Float(*s.TopP)
	}
	if s.ReasoningTokens > 0 {
		// Sendable kept it: the server takes a budget (and, where it
		// refuses an effort beside it, BudgetAlone, left the effort out).
		name, v := budgetBody(m.cfg.info.ReasoningBudget, s.ReasoningTokens)
		p.SetExtraFields(map[string]any{name: v})
	}
	if s.ReasoningEffort != "" {
		p.ReasoningEffort = shared.ReasoningEffort(s.ReasoningEffort)
	}
	if s.MaxTokens > 0 {
		if m.cfg.maxCompletionTokens {
			p.MaxCompletionTokens = openai.Int(int64(s.MaxTokens))
		} else {
			p.MaxTokens = openai.Int(int64(s.MaxTokens))
		}
	}
	if s.Seed != nil {
		p.Seed = openai.Int(*s.Seed)
	}
	if len(s.Stop) > 0 {
		p.Stop = openai.ChatCompletionNewParamsStopUnion{OfStringArray: s.Stop}
	}
	return p, nil
}
