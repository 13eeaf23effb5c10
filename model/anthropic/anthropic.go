// Package anthropic is the provider of Anthropic's messages API.
// Register wires it into a model.Registry.
package anthropic

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/anthropics/anthropic-sdk-go"
	"github.com/anthropics/anthropic-sdk-go/option"

	"github.com/evalmd/evalmd/model"
	"github.com/evalmd/evalmd/model/internal/wire"
)

// defaultMaxTokens is sent when a request sets no MaxTokens: the messages
// API requires max_tokens, and 4096 fits every current Claude model.
const defaultMaxTokens = 4096

// anthropicURL is Anthropic's API, the default server.
const anthropicURL = "https://api.anthropic.com"

// Register adds the anthropic provider to r. It also takes bare claude-*
// names, as LIME wrote them.
func Register(r *model.Registry) {
	r.Add(model.Provider{Name: "anthropic", New: newClient, Claim: claimBare, Describe: describe, Usage: "anthropic/MODEL, a bare claude-*",
		Server: &model.Server{KeyVar: "ANTHROPIC_API_KEY", URL: anthropicURL}})
}

// claimBare takes a bare claude-* name; not with a base URL, where the
// name is the server's.
func claimBare(name string, withBaseURL bool) (string, bool, error) {
	ok := !withBaseURL && !strings.Contains(name, "/") && strings.HasPrefix(name, "claude-")
	return name, ok, nil
}

// describe says what a model is from its name alone: Anthropic's, at its
// own server, with images, its price and its context.
func describe(ref model.Ref) model.Info {
	info := model.Info{Provider: ref.Provider, Model: ref.Model, BaseURL: anthropicURL, Vision: true, ReasoningBudget: "thinking.budget_tokens"}
	if p, ok := model.LookupPrice(ref.Model); ok {
		info.Price = &p
	}
	info.ContextLimit, _ = model.ContextLimit(ref.Model)
	return info
}

// config is what newClient resolved for a model.
type config struct {
	name string // as given on the command line
	key  string
	info model.Info
	opt  model.Options
}

// messagesModel talks to the Anthropic messages API.
type messagesModel struct {
	cfg      config
	messages anthropic.MessageService
	batches  anthropic.MessageBatchService // Message Batches
}

// newClient builds an Anthropic model: the key from Options (APIKey, APIKeyEnv)
// or ANTHROPIC_API_KEY, the server from Options.BaseURL or
// ANTHROPIC_BASE_URL, else api.anthropic.com.
func newClient(ref model.Ref, opt model.Options) (model.Model, error) {
	if ref.Model == "" {
		return nil, fmt.Errorf("model %q: no model after the provider", ref.Name)
	}
	base, err := opt.Server("anthropic")
	if err != nil {
		return nil, fmt.Errorf("model %q: %w", ref.Name, err)
	}
	key, from := opt.Key("ANTHROPIC_API_KEY")
	if key == "" && base == "" {
		want := "ANTHROPIC_API_KEY"
		if from != "" {
			want = from
		}
		return nil, fmt.Errorf("model %q: no Anthropic API key: set %s", ref.Name, want)
	}
	info := model.Info{Provider: ref.Provider, Model: ref.Model, BaseURL: base, Vision: true,
		ReasoningBudget: "thinking.budget_tokens"}
	if base == "" {
		info.BaseURL = anthropicURL
		if p, ok := model.LookupPrice(ref.Model); ok {
			info.Price = &p
		}
	}
	if n, ok := model.ContextLimit(ref.Model); ok {
		info.ContextLimit = n
	}
	// Built from explicit options only: the SDK's defaults would read
	// ANTHROPIC_* variables and credential profiles from the machine.
	opts := []option.RequestOption{
		option.WithoutEnvironmentDefaults(),
		option.WithEnvironmentProduction(),
		option.WithHTTPClient(opt.HTTP()),
		option.WithMaxRetries(0), // the runner retries, with its own budget
		// An explicit request timeout also stops the SDK from refusing large
		// max_tokens for non-streaming calls; Complete's context is the real bound.
		option.WithRequestTimeout(opt.RequestTimeout()),
	}
	if base != "" {
		opts = append(opts, option.WithBaseURL(base))
	}
	if key != "" {
		opts = append(opts, option.WithAPIKey(key))
	}
	cfg := config{name: ref.Name, key: key, info: info, opt: opt}
	return &messagesModel{cfg: cfg, messages: anthropic.NewMessageService(opts...),
		batches: anthropic.NewMessageBatchService(opts...)}, nil
}

// Name returns the name given to newClient.
func (m *messagesModel) Name() string { return m.cfg.name }

// Info says what newClient resolved.
func (m *messagesModel) Info() model.Info { return m.cfg.info }

// Complete sends one message request and returns the text of its reply.
func (m *messagesModel) Complete(ctx context.Context, req model.Request) (model.Response, error) {
	params, err := m.params(req)
	if err != nil {
		return model.Response{}, m.wrap(err)
	}
	timeout := m.cfg.opt.RequestTimeout()
	callCtx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	var httpRes *http.Response
	out, err := m.messages.New(callCtx, params, option.WithResponseInto(&httpRes),
		option.WithMiddleware(wire.CapReply(m.cfg.opt.ReplyLimit())))
	if err != nil {
		var apiErr *anthropic.Error
		if errors.As(err, &apiErr) && httpRes == nil {
			httpRes = apiErr.Response
		}
		return model.Response{}, m.wrap(wire.Classify("anthropic", m.cfg.key, err, httpRes, ctx, callCtx, timeout))
	}
	res, err := response(out)
	if err != nil {
		return model.Response{}, m.wrap(err)
	}
	return res, nil
}

// response reads a message, live or from a batch's results.
func response(out *anthropic.Message) (model.Response, error) {
	if out == nil {
		return model.Response{}, &model.APIError{Provider: "anthropic", Retryable: true, Message: "malformed reply: empty"}
	}
	var text strings.Builder
	var calls []model.ToolCall
	for _, block := range out.Content {
		switch block.Type {
		case "text":
			text.WriteString(block.Text)
		case "tool_use":
			calls = append(calls, model.ToolCall{ID: block.ID, Name: block.Name, Arguments: string(block.Input)})
		}
	}
	reasoning, blocks := thinking(out.Content)
	return model.Response{
		Text: text.String(),
		// Anthropic counts the thinking in output_tokens, and not apart.
		Reasoning:       reasoning,
		ReasoningBlocks: blocks,
		InputTokens:     int(out.Usage.InputTokens),
		OutputTokens:    int(out.Usage.OutputTokens),
		Model:           string(out.Model),
		FinishReason:    string(out.StopReason),
		ToolCalls:       calls,
	}, nil
}

// wrap names the model in an error, keeping *APIError reachable by
// errors.As. The question is named by the caller (runner.JobError): a
// request does not carry it.
func (m *messagesModel) wrap(err error) error {
	return fmt.Errorf("model %s: %w", m.cfg.name, err)
}

// params translates a Request into the SDK's request body.
func (m *messagesModel) params(req model.Request) (anthropic.MessageNewParams, error) {
	p := anthropic.MessageNewParams{Model: anthropic.Model(m.cfg.info.Model)}
	if req.System != "" {
		p.System = []anthropic.TextBlockParam{{Text: req.System}}
	}
	if len(req.Messages) == 0 {
		return p, fmt.Errorf("request has no messages")
	}
	for i := 0; i < len(req.Messages); i++ {
		msg := req.Messages[i]
		if msg.Role == "tool" {
			// Anthropic takes tool results as one user turn of
			// tool_result blocks: consecutive results are joined.
			var results []anthropic.ContentBlockParamUnion
			for ; i < len(req.Messages) && req.Messages[i].Role == "tool"; i++ {
				t := req.Messages[i]
				if t.ToolCallID == "" {
					return p, fmt.Errorf("message %d: a tool result without the id of its call", i)
				}
				results = append(results, anthropic.NewToolResultBlock(t.ToolCallID, t.Content, false))
			}
			i--
			p.Messages = append(p.Messages, anthropic.NewUserMessage(results...))
			continue
		}
		// An assistant turn's thinking goes back first, as it came.
		blocks := thinkingParams(msg.ReasoningBlocks)
		// Images go before the text, as Anthropic recommends for vision prompts.
		for j, img := range msg.Images {
			if img.MediaType == "" || len(img.Data) == 0 {
				return p, fmt.Errorf("message %d, image %d: no media type or no data", i, j)
			}
			blocks = append(blocks, anthropic.NewImageBlockBase64(img.MediaType, base64.StdEncoding.EncodeToString(img.Data)))
		}
		if msg.Content != "" || (len(blocks) == 0 && len(msg.ToolCalls) == 0) {
			// Anthropic rejects empty text blocks, so an image-only turn
			// or a turn of tool calls alone has none.
			blocks = append(blocks, anthropic.NewTextBlock(msg.Content))
		}
		for _, c := range msg.ToolCalls {
			input := json.RawMessage(c.Arguments)
			if !json.Valid(input) {
				input = json.RawMessage("{}")
			}
			blocks = append(blocks, anthropic.NewToolUseBlock(c.ID, input, c.Name))
		}
		switch msg.Role {
		case "user":
			p.Messages = append(p.Messages, anthropic.NewUserMessage(blocks...))
		case "assistant":
			if len(msg.Images) > 0 {
				return p, fmt.Errorf("message %d: assistant messages cannot carry images", i)
			}
			p.Messages = append(p.Messages, anthropic.NewAssistantMessage(blocks...))
		default:
			return p, fmt.Errorf("message %d: unknown role %q (want user, assistant or tool)", i, msg.Role)
		}
	}
	for _, t := range req.Tools {
		var schema struct {
			Properties any      `json:"properties"`
			Required   []string `json:"required"`
		}
		if len(t.Parameters) > 0 {
			if err := json.Unmarshal(t.Parameters, &schema); err != nil {
				return p, fmt.Errorf("tool %s: parameters are not a JSON object: %v", t.Name, err)
			}
		}
		tool := anthropic.ToolUnionParamOfTool(anthropic.ToolInputSchemaParam{Properties: schema.Properties, Required: schema.Required}, t.Name)
		tool.OfTool.Description = anthropic.String(t.Description)
		p.Tools = append(p.Tools, tool)
	}
	s, _, err := sent(req.Settings)
	if err != nil {
		return p, err
	}
	p.MaxTokens = int64(s.MaxTokens)
	setReasoning(&p, s)
	if s.Temperature != nil {
		p.Temperature = anthropic.Float(*s.Temperature)
	}
	if s.TopP != nil {
		p.TopP = anthropic.Float(*s.TopP)
	}
	if len(s.Stop) > 0 {
		p.StopSequences = s.Stop
	}
	return p, nil
}
