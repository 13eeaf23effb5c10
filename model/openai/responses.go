package openai

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/evalmd/evalmd/model"
)

// responsesModel talks to OpenAI's Responses API (POST /v1/responses), the
// openai-responses/ provider: the only API of some models (o1-pro,
// o3-pro, gpt-5-pro, codex models), and the one that returns reasoning
// summaries and carries reasoning across tool calls. Nothing is stored on
// the server ("store": false): a reasoning model's reasoning comes back
// encrypted, and an agent's next turn sends it back.
type responsesModel struct{ cfg config }

// Name returns the name given to newClient.
func (m *responsesModel) Name() string { return m.cfg.name }

// Info says what newClient resolved.
func (m *responsesModel) Info() model.Info { return m.cfg.info }

// Batch returns OpenAI's Batch API with /v1/responses request lines.
func (m *responsesModel) Batch() (model.BatchAPI, error) {
	return &batchAPI{cfg: m.cfg, endpoint: responsesEndpoint,
		body: func(req model.Request) (any, error) { return m.body(req) },
		reply: func(data []byte) (model.Response, error) {
			var out responsesReply
			if err := json.Unmarshal(data, &out); err != nil {
				return model.Response{}, err
			}
			return out.response(m.cfg.label)
		}}, nil
}

// Complete sends one request to the Responses API.
func (m *responsesModel) Complete(ctx context.Context, req model.Request) (model.Response, error) {
	body, err := m.body(req)
	if err != nil {
		return model.Response{}, m.cfg.wrap(err)
	}
	var out responsesReply
	if err := m.cfg.api.Post(ctx, "/responses", body, &out); err != nil {
		return model.Response{}, m.cfg.wrap(err)
	}
	res, err := out.response(m.cfg.label)
	if err != nil {
		return model.Response{}, m.cfg.wrap(err)
	}
	return res, nil
}

// responsesRequest is the body of POST /v1/responses.
type responsesRequest struct {
	Model           string              `json:"model"`
	Instructions    string              `json:"instructions,omitempty"`
	Input           []any               `json:"input"`
	Tools           []responsesTool     `json:"tools,omitempty"`
	MaxOutputTokens int                 `json:"max_output_tokens,omitempty"`
	Temperature     *float64            `json:"temperature,omitempty"`
	TopP            *float64            `json:"top_p,omitempty"`
	Reasoning       *responsesReasoning `json:"reasoning,omitempty"`
	Text            *responsesText      `json:"text,omitempty"`
	// Store is always false: nothing of a run is kept on the server, so a
	// reasoning item goes back with its encrypted content (Include).
	Store   bool     `json:"store"`
	Include []string `json:"include,omitempty"`
}

// responsesReasoning is the request's reasoning object.
type responsesReasoning struct {
	Effort  string `json:"effort,omitempty"`
	Summary string `json:"summary,omitempty"`
}

// responsesText is the request's text object: the answer's verbosity
// and format.
type responsesText struct {
	Verbosity string           `json:"verbosity,omitempty"`
	Format    *responsesFormat `json:"format,omitempty"`
}

// responsesFormat is text.format: chat's response_format with the
// json_schema's members beside its type.
type responsesFormat struct {
	Type   string          `json:"type"` // json_object, json_schema
	Name   string          `json:"name,omitempty"`
	Schema json.RawMessage `json:"schema,omitempty"`
}

// responsesFormatOf is the text.format asking what s and schema say (see
// responseFormat), nil for text.
func responsesFormatOf(s model.Settings, schema json.RawMessage) *responsesFormat {
	f := responseFormat(s, schema)
	if f == nil {
		return nil
	}
	out := &responsesFormat{Type: f.Type}
	if f.JSONSchema != nil {
		out.Name, out.Schema = f.JSONSchema.Name, f.JSONSchema.Schema
	}
	return out
}

// responsesTool is a function tool, in the Responses API's flat form.
type responsesTool struct {
	Type        string          `json:"type"` // "function"
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	Parameters  json.RawMessage `json:"parameters,omitempty"`
	// Strict is sent false: the API's default (true) would refuse any
	// schema that does not list every property as required and forbid
	// others.
	Strict bool `json:"strict"`
}

// responsesMessage is a message input item.
type responsesMessage struct {
	Role    string `json:"role"`
	Content any    `json:"content"` // a string, or input_text and input_image parts
}

type responsesPart struct {
	Type     string `json:"type"` // "input_text" or "input_image"
	Text     string `json:"text,omitempty"`
	ImageURL string `json:"image_url,omitempty"`
}

// responsesCall is a function_call input item: an assistant turn's tool
// call, sent back without the item id, which under "store": false names
// nothing the server kept.
type responsesCall struct {
	Type      string `json:"type"` // "function_call"
	CallID    string `json:"call_id"`
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

// responsesOutput is a function_call_output input item: a tool's result.
type responsesOutput struct {
	Type   string `json:"type"` // "function_call_output"
	CallID string `json:"call_id"`
	Output string `json:"output"`
}

// minOutputTokens is the least max_output_tokens the API takes.
const minOutputTokens = 16

// body translates a Request into the Responses API's request body.
func (m *responsesModel) body(req model.Request) (responsesRequest, error) {
	s, _ := m.sent(req.Settings)
	b := responsesRequest{Model: m.cfg.info.Model, Instructions: req.System, Store: false,
		MaxOutputTokens: s.MaxTokens, Temperature: s.Temperature, TopP: s.TopP}
	if m.cfg.info.FixedSampling || s.ReasoningEffort != "" {
		// Summaries are what a person can read of the reasoning; the
		// encrypted content is what an agent's next turn sends back.
		b.Reasoning = &responsesReasoning{Effort: s.ReasoningEffort, Summary: "auto"}
		b.Include = []string{"reasoning.encrypted_content"}
	}
	if f := responsesFormatOf(s, req.Schema); s.Verbosity != "" || f != nil {
		b.Text = &responsesText{Verbosity: s.Verbosity, Format: f}
	}
	if err := req.Check(); err != nil {
		return b, err
	}
	for _, msg := range req.Messages {
		switch msg.Role {
		case "user":
			b.Input = append(b.Input, responsesMessage{Role: "user", Content: content(msg,
				func(text string) any { return responsesPart{Type: "input_text", Text: text} },
				func(url string) any { return responsesPart{Type: "input_image", ImageURL: url} })})
		case "assistant":
			// The turn's items in the order they came: reasoning, the
			// message, the function calls.
			for _, r := range msg.ReasoningBlocks {
				if r.Type == model.ReasoningItem && len(r.Raw) > 0 {
					b.Input = append(b.Input, r.Raw)
				}
			}
			if msg.Content != "" || len(msg.ToolCalls) == 0 {
				b.Input = append(b.Input, responsesMessage{Role: "assistant", Content: msg.Content})
			}
			for _, c := range msg.ToolCalls {
				b.Input = append(b.Input, responsesCall{Type: "function_call", CallID: c.ID, Name: c.Name, Arguments: c.Arguments})
			}
		case "tool":
			b.Input = append(b.Input, responsesOutput{Type: "function_call_output", CallID: msg.ToolCallID, Output: msg.Content})
		}
	}
	for _, t := range req.Tools {
		if len(t.Parameters) > 0 && !json.Valid(t.Parameters) {
			return b, fmt.Errorf("tool %s: parameters are not JSON", t.Name)
		}
		b.Tools = append(b.Tools, responsesTool{Type: "function", Name: t.Name, Description: t.Description, Parameters: t.Parameters})
	}
	return b, nil
}

// sent returns the settings a Responses API request sends for s, with
// why each setting asked for is not sent as asked (docs/models.md's table):
// max_tokens is max_output_tokens (at least 16, the API's least);
// reasoning_effort is reasoning.effort, as given but max (openAIEffort),
// verbosity text.verbosity; the API has no seed, no
// stop sequences and no thinking budget (reasoning_tokens); a reasoning
// model takes no temperature or top_p.
func (m *responsesModel) sent(s model.Settings) (model.Settings, []model.SettingNote) {
	var dropped []model.SettingNote
	note := func(name, as, why string) { dropped = append(dropped, model.SettingNote{Name: name, As: as, Why: why}) }
	if s.MaxTokens > 0 && s.MaxTokens < minOutputTokens {
		note("max_tokens", strconv.Itoa(minOutputTokens), "the Responses API's least max_output_tokens")
		s.MaxTokens = minOutputTokens
	}
	if s.Seed != nil {
		note("seed", "", "the Responses API takes none")
		s.Seed = nil
	}
	if len(s.Stop) > 0 {
		note("stop", "", "the Responses API takes no stop sequences")
		s.Stop = nil
	}
	if s.ReasoningTokens > 0 {
		note("reasoning_tokens", "", "OpenAI takes no thinking budget (reasoning_effort is its setting)")
		s.ReasoningTokens = 0
	}
	if s.Thinking != "" {
		note("thinking", "", "only Anthropic takes a thinking type; reasoning_effort is OpenAI's setting")
		s.Thinking = ""
	}
	dropped = append(dropped, openAIEffort(&s)...)
	if m.cfg.info.FixedSampling {
		if s.Temperature != nil {
			note("temperature", "", "a reasoning model takes only the default (OpenAI answers HTTP 400)")
			s.Temperature = nil
		}
		if s.TopP != nil {
			note("top_p", "", "a reasoning model takes only the default (OpenAI answers HTTP 400)")
			s.TopP = nil
		}
	}
	return s, dropped
}

// SendSettings says what a request asking s sends (sent); the Responses
// API takes every request.
func (m *responsesModel) SendSettings(s model.Settings) (model.Settings, []model.SettingNote, error) {
	s, notes := m.sent(s)
	return s, notes, nil
}

// responsesReply is the part of a Responses API reply read: its output
// items, status and usage.
type responsesReply struct {
	Status            string            `json:"status"`
	Model             string            `json:"model"`
	Output            []json.RawMessage `json:"output"`
	IncompleteDetails *struct {
		Reason string `json:"reason"`
	} `json:"incomplete_details"`
	Error *struct {
		Code    string `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
	// Usage's input_tokens counts the cached tokens too.
	Usage struct {
		InputTokens        int `json:"input_tokens"`
		OutputTokens       int `json:"output_tokens"`
		InputTokensDetails struct {
			CachedTokens int `json:"cached_tokens"`
		} `json:"input_tokens_details"`
		OutputTokensDetails struct {
			ReasoningTokens int `json:"reasoning_tokens"`
		} `json:"output_tokens_details"`
	} `json:"usage"`
}

// responsesItem is the part of an output item read.
type responsesItem struct {
	Type    string `json:"type"` // "message", "reasoning", "function_call", ...
	Content []struct {
		Type    string `json:"type"` // "output_text", "refusal"
		Text    string `json:"text"`
		Refusal string `json:"refusal"`
	} `json:"content"`
	Summary []struct {
		Text string `json:"text"`
	} `json:"summary"`
	EncryptedContent string `json:"encrypted_content"`
	CallID           string `json:"call_id"`
	Name             string `json:"name"`
	Arguments        string `json:"arguments"`
}

// encryptedNote stands in the reply's reasoning for a reasoning item
// without a summary: OpenAI returns the reasoning only encrypted.
const encryptedNote = "[reasoning encrypted by OpenAI: no summary returned]"

// response reads a reply: the message's text is the answer, reasoning
// summaries the reasoning, function calls the tool calls; the reasoning
// items are kept whole to go back with the next turn.
func (out *responsesReply) response(provider string) (model.Response, error) {
	if out.Status == "failed" || (out.Error != nil && out.Error.Message != "") {
		msg := "the response failed"
		if out.Error != nil {
			msg = out.Error.Code + ": " + out.Error.Message
		}
		return model.Response{}, &model.APIError{Provider: provider, Retryable: true, Message: msg}
	}
	res := model.Response{
		InputTokens:     out.Usage.InputTokens,
		OutputTokens:    out.Usage.OutputTokens,
		ReasoningTokens: out.Usage.OutputTokensDetails.ReasoningTokens,
		CacheReadTokens: out.Usage.InputTokensDetails.CachedTokens,
		Model:           out.Model,
	}
	var text, refusal, reasoning []string
	for _, raw := range out.Output {
		var it responsesItem
		if err := json.Unmarshal(raw, &it); err != nil {
			return model.Response{}, &model.APIError{Provider: provider, Retryable: true, Message: "malformed reply: output item: " + err.Error()}
		}
		switch it.Type {
		case "message":
			for _, c := range it.Content {
				switch c.Type {
				case "output_text":
					text = append(text, c.Text)
				case "refusal":
					refusal = append(refusal, c.Refusal)
				}
			}
		case "reasoning":
			var summary []string
			for _, s := range it.Summary {
				summary = append(summary, s.Text)
			}
			block := model.ReasoningBlock{Type: model.ReasoningItem, Text: strings.Join(summary, "\n\n"), Raw: raw}
			res.ReasoningBlocks = append(res.ReasoningBlocks, block)
			switch {
			case block.Text != "":
				reasoning = append(reasoning, block.Text)
			case it.EncryptedContent != "":
				reasoning = append(reasoning, encryptedNote)
			}
		case "function_call":
			res.ToolCalls = append(res.ToolCalls, model.ToolCall{ID: it.CallID, Name: it.Name, Arguments: it.Arguments})
		}
	}
	res.Text, res.Reasoning = strings.Join(text, ""), strings.Join(reasoning, "\n\n")
	// The finish reason as chat says it, so that a reply cut by
	// max_output_tokens is flagged as one cut by max_tokens is.
	switch {
	case out.Status == "incomplete" && out.IncompleteDetails != nil && out.IncompleteDetails.Reason == "max_output_tokens":
		res.FinishReason = "length"
	case out.Status == "incomplete" && out.IncompleteDetails != nil:
		res.FinishReason = out.IncompleteDetails.Reason
	case res.Text == "" && len(refusal) > 0:
		res.Text, res.FinishReason = strings.Join(refusal, ""), model.FinishRefusal
	case len(res.ToolCalls) > 0:
		res.FinishReason = "tool_calls"
	default:
		res.FinishReason = "stop"
	}
	return res, nil
}
