// Package anthropic is the provider of Anthropic's messages API.
// Register wires it into a model.Registry.
package anthropic

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

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
	info := model.Info{Provider: ref.Provider, Model: ref.Model, BaseURL: anthropicURL, Vision: true, UserFirst: true, ReasoningBudget: "thinking.budget_tokens",
		CacheMin: cacheMin(ref.Model)}
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
}

// messagesModel talks to the Anthropic messages API.
type messagesModel struct {
	cfg config
	api *wire.Client
}

// newClient builds an Anthropic model: the key from Options (APIKey, APIKeyEnv)
// or ANTHROPIC_API_KEY, the server from Options.BaseURL or
// ANTHROPIC_BASE_URL, else api.anthropic.com.
func newClient(ref model.Ref, opt model.Options) (model.Model, error) {
	if ref.Model == "" {
		return nil, fmt.Errorf("model %q: no model after the provider", ref.Name)
	}
	base, key, from, err := opt.Endpoint("anthropic", "ANTHROPIC_API_KEY")
	if err != nil {
		return nil, fmt.Errorf("model %q: %w", ref.Name, err)
	}
	if key == "" && base == "" {
		want := "ANTHROPIC_API_KEY"
		if from != "" {
			want = from
		}
		return nil, fmt.Errorf("model %q: no Anthropic API key: set %s", ref.Name, want)
	}
	info := model.Info{Provider: ref.Provider, Model: ref.Model, BaseURL: base, Vision: true, UserFirst: true,
		ReasoningBudget: "thinking.budget_tokens", CacheMin: cacheMin(ref.Model)}
	if base == "" {
		info.BaseURL = anthropicURL
		if p, ok := model.LookupPrice(ref.Model); ok {
			info.Price = &p
		}
	}
	if n, ok := model.ContextLimit(ref.Model); ok {
		info.ContextLimit = n
	}
	header := http.Header{"Anthropic-Version": {"2023-06-01"}}
	if key != "" {
		// Only a key set is sent: a local server may need none.
		header.Set("X-Api-Key", key)
	}
	api := &wire.Client{HTTP: opt.HTTP(), BaseURL: info.BaseURL, Header: header, Provider: "anthropic",
		Key: key, Timeout: opt.RequestTimeout(), MaxReply: opt.ReplyLimit()}
	return &messagesModel{cfg: config{name: ref.Name, key: key, info: info}, api: api}, nil
}

// Name returns the name given to newClient.
func (m *messagesModel) Name() string { return m.cfg.name }

// Info says what newClient resolved.
func (m *messagesModel) Info() model.Info { return m.cfg.info }

// Complete sends one message request and returns the text of its reply.
func (m *messagesModel) Complete(ctx context.Context, req model.Request) (model.Response, error) {
	body, err := m.params(req)
	if err != nil {
		return model.Response{}, m.wrap(err)
	}
	var out reply
	if err := m.api.Post(ctx, "/v1/messages", body, &out); err != nil {
		return model.Response{}, m.wrap(err)
	}
	return response(out), nil
}

// request is the body of POST /v1/messages, and a batch request's params.
// Members left unset are not sent: the API's defaults apply.
type request struct {
	Model         string    `json:"model"`
	MaxTokens     int       `json:"max_tokens"`
	System        []block   `json:"system,omitempty"`
	Messages      []message `json:"messages"`
	Tools         []tool    `json:"tools,omitempty"`
	Temperature   *float64  `json:"temperature,omitempty"`
	TopP          *float64  `json:"top_p,omitempty"`
	StopSequences []string  `json:"stop_sequences,omitempty"`
	Thinking      struct {
		Type         string `json:"type"` // enabled, adaptive, disabled
		BudgetTokens int    `json:"budget_tokens,omitempty"`
	} `json:"thinking,omitzero"`
	OutputConfig struct {
		Effort string        `json:"effort,omitempty"`
		Format *outputFormat `json:"format,omitempty"`
	} `json:"output_config,omitzero"`
}

// outputFormat is output_config.format: the JSON Schema the answer
// follows (Anthropic's structured outputs).
type outputFormat struct {
	Type   string          `json:"type"` // json_schema
	Schema json.RawMessage `json:"schema"`
}

type message struct {
	Role    string  `json:"role"`
	Content []block `json:"content"`
}

// block is a content block as a request sends it; which members it has
// is its type's. Text and Thinking are pointers because an empty one is
// still sent: a tool's empty result, a thinking block as it was signed.
type block struct {
	Type      string          `json:"type"`
	Text      *string         `json:"text,omitempty"`
	Source    *imageSource    `json:"source,omitempty"`
	ID        string          `json:"id,omitempty"`
	Name      string          `json:"name,omitempty"`
	Input     json.RawMessage `json:"input,omitempty"`
	ToolUseID string          `json:"tool_use_id,omitempty"`
	IsError   *bool           `json:"is_error,omitempty"`
	Content   []block         `json:"content,omitempty"`
	Thinking  *string         `json:"thinking,omitempty"`
	Signature string          `json:"signature,omitempty"`
	Data      string          `json:"data,omitempty"`
	// CacheControl marks the end of the prefix the prompt cache keeps.
	CacheControl *cacheControl `json:"cache_control,omitempty"`
}

type imageSource struct {
	Type      string `json:"type"` // base64
	MediaType string `json:"media_type"`
	Data      string `json:"data"`
}

func textBlock(s string) block { return block{Type: "text", Text: &s} }

type tool struct {
	Name        string      `json:"name"`
	Description string      `json:"description"`
	InputSchema inputSchema `json:"input_schema"`
}

// inputSchema is a tool's parameters as Anthropic takes them: an object's
// properties, and which are required, as given (an empty list is sent).
type inputSchema struct {
	Type       string   `json:"type"` // object
	Properties any      `json:"properties,omitzero"`
	Required   []string `json:"required,omitzero"`
}

// reply is a message as the API answers it, live or in a batch's results.
type reply struct {
	Model      string       `json:"model"`
	StopReason string       `json:"stop_reason"`
	Content    []replyBlock `json:"content"`
	// Usage's input_tokens leaves out the tokens read from and written
	// to the prompt cache, which model.Response counts in InputTokens.
	Usage struct {
		InputTokens              int `json:"input_tokens"`
		OutputTokens             int `json:"output_tokens"`
		CacheCreationInputTokens int `json:"cache_creation_input_tokens"`
		CacheReadInputTokens     int `json:"cache_read_input_tokens"`
	} `json:"usage"`
}

// replyBlock is a content block of a reply: text, tool_use, thinking or
// redacted_thinking (others are not asked for).
type replyBlock struct {
	Type      string          `json:"type"`
	Text      string          `json:"text"`
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Input     json.RawMessage `json:"input"`
	Thinking  string          `json:"thinking"`
	Signature string          `json:"signature"`
	Data      string          `json:"data"`
}

// response reads a message, live or from a batch's results.
func response(out reply) model.Response {
	var text strings.Builder
	var calls []model.ToolCall
	for _, b := range out.Content {
		switch b.Type {
		case "text":
			text.WriteString(b.Text)
		case "tool_use":
			calls = append(calls, model.ToolCall{ID: b.ID, Name: b.Name, Arguments: string(b.Input)})
		}
	}
	reasoning, blocks := thinking(out.Content)
	u := out.Usage
	return model.Response{
		Text: text.String(),
		// Anthropic counts the thinking in output_tokens, and not apart.
		Reasoning:        reasoning,
		ReasoningBlocks:  blocks,
		InputTokens:      u.InputTokens + u.CacheReadInputTokens + u.CacheCreationInputTokens,
		OutputTokens:     u.OutputTokens,
		CacheReadTokens:  u.CacheReadInputTokens,
		CacheWriteTokens: u.CacheCreationInputTokens,
		Model:            out.Model,
		FinishReason:     out.StopReason,
		ToolCalls:        calls,
	}
}

// wrap names the model in an error, keeping *APIError reachable by
// errors.As. The question is named by the caller (runner.JobError): a
// request does not carry it.
func (m *messagesModel) wrap(err error) error {
	return fmt.Errorf("model %s: %w", m.cfg.name, err)
}

// params translates a Request into the API's request body.
func (m *messagesModel) params(req model.Request) (request, error) {
	p := request{Model: m.cfg.info.Model}
	cache := cachePoint(req, m.cfg.info.CacheMin)
	if req.System != "" {
		p.System = []block{textBlock(req.System)}
		if cache.system {
			p.System[0].CacheControl = ephemeral()
		}
	}
	if err := req.Check(); err != nil {
		return p, err
	}
	for i := 0; i < len(req.Messages); i++ {
		msg := req.Messages[i]
		if msg.Role == "tool" {
			// Anthropic takes tool results as one user turn of
			// tool_result blocks: consecutive results are joined.
			var results []block
			for ; i < len(req.Messages) && req.Messages[i].Role == "tool"; i++ {
				t := req.Messages[i]
				results = append(results, block{Type: "tool_result", ToolUseID: t.ToolCallID, IsError: new(bool),
					Content: []block{textBlock(t.Content)}})
			}
			i--
			p.Messages = append(p.Messages, message{Role: "user", Content: results})
			continue
		}
		// An assistant turn's thinking goes back first, as it came.
		blocks := thinkingParams(msg.ReasoningBlocks)
		var images []block
		for _, img := range msg.Images {
			images = append(images, block{Type: "image", Source: &imageSource{Type: "base64", MediaType: img.MediaType,
				Data: base64.StdEncoding.EncodeToString(img.Data)}})
		}
		if shared, own, ok := cache.split(i, msg.Content); ok {
			// The shared text, marked, then the question's images and
			// its own text: the images still come before the text that
			// asks about them.
			blocks = append(append(blocks, shared), images...)
			if own != "" {
				blocks = append(blocks, textBlock(own))
			}
		} else {
			// Images go before the text, as Anthropic recommends for
			// vision prompts.
			blocks = append(blocks, images...)
			if msg.Content != "" || (len(blocks) == 0 && len(msg.ToolCalls) == 0) {
				// Anthropic rejects empty text blocks, so an image-only
				// turn or a turn of tool calls alone has none.
				blocks = append(blocks, textBlock(msg.Content))
			}
		}
		for _, c := range msg.ToolCalls {
			input := json.RawMessage(c.Arguments)
			if !json.Valid(input) {
				input = json.RawMessage("{}")
			}
			blocks = append(blocks, block{Type: "tool_use", ID: c.ID, Name: c.Name, Input: input})
		}
		if cache.endsBefore(i) && len(blocks) > 0 {
			blocks[len(blocks)-1].CacheControl = ephemeral()
		}
		p.Messages = append(p.Messages, message{Role: msg.Role, Content: blocks})
	}
	cache.markTurns(&p, req)
	for _, t := range req.Tools {
		tl := tool{Name: t.Name, Description: t.Description}
		if len(t.Parameters) > 0 {
			if err := json.Unmarshal(t.Parameters, &tl.InputSchema); err != nil {
				return p, fmt.Errorf("tool %s: parameters are not a JSON object: %w", t.Name, err)
			}
		}
		tl.InputSchema.Type = "object"
		p.Tools = append(p.Tools, tl)
	}
	s, _, err := sent(req.Settings)
	if err != nil {
		return p, err
	}
	p.MaxTokens = s.MaxTokens
	setReasoning(&p, s)
	if s.ResponseFormat == model.ResponseSchema && len(req.Schema) > 0 {
		p.OutputConfig.Format = &outputFormat{Type: "json_schema", Schema: req.Schema}
	}
	p.Temperature, p.TopP = s.Temperature, s.TopP
	if len(s.Stop) > 0 {
		p.StopSequences = s.Stop
	}
	return p, nil
}
