package fakeserver

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
)

// NewOpenAIResponses starts a fake of OpenAI's Responses API, POST
// /v1/responses. Its URL ends in "/v1". Input items are decoded into
// Messages as chat's are: function_call items become the ToolCalls of an
// assistant turn, function_call_output items turns of Role "tool", and
// reasoning items sent back the Thinking of the assistant turn they
// precede. Reply.Thoughts are answered as reasoning items with a summary
// and, when the request includes "reasoning.encrypted_content", the
// thought sealed; a reasoning item sent back is checked as the API
// checks it: without its encrypted content under "store": false it is
// not found (404), altered it cannot be decrypted (400). Reasoning models
// (o-series, gpt-5) refuse temperature and top_p, as OpenAI's do.
func NewOpenAIResponses(t testing.TB, opt Options) *Server {
	t.Helper()
	return newServer(t, opt, dialect{
		name:    "openai-responses",
		path:    "/v1/responses",
		decode:  decodeResponses,
		answer:  answerResponses,
		errBody: errorOpenAI,
		baseURL: func(root string) string { return root + "/v1" },
	})
}

// reasoningModel says whether the fake treats a model as one of OpenAI's
// reasoning models, which refuse sampling settings.
func reasoningModel(name string) bool {
	for _, p := range []string{"o1", "o3", "o4", "gpt-5"} {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	return false
}

func decodeResponses(body map[string]any, c *Call) error {
	c.Model = stringField(body, "model")
	var err error
	if c.Format, err = responsesFormat(body); err != nil {
		return err
	}
	if c.Settings, err = settings(body, "stop"); err != nil {
		return err
	}
	if err := responsesParams(body, c.Model); err != nil {
		return err
	}
	mot, err := intField(body, "max_output_tokens")
	if err != nil {
		return err
	}
	c.Settings.MaxTokens = intPtr(mot)
	c.System = stringField(body, "instructions")
	if err := responsesInput(body, c); err != nil {
		return err
	}
	if tools, ok := body["tools"].([]any); ok {
		for j, rt := range tools {
			t, _ := rt.(map[string]any)
			if stringField(t, "type") != "function" || stringField(t, "name") == "" {
				return fmt.Errorf("tools[%d]: want a function tool with a name (the Responses API's flat form)", j)
			}
			c.Tools = append(c.Tools, stringField(t, "name"))
		}
	}
	return nil
}

// responsesParams refuses what the Responses API refuses: sampling
// settings on a reasoning model, and chat's parameters.
func responsesParams(body map[string]any, model string) error {
	if reasoningModel(model) {
		for _, k := range []string{"temperature", "top_p"} {
			if _, ok := body[k]; ok {
				return &APIError{http.StatusBadRequest, fmt.Sprintf("Unsupported parameter: '%s' is not supported with this model.", k)}
			}
		}
	}
	for _, k := range []string{"messages", "max_tokens", "max_completion_tokens", "stop", "seed"} {
		if _, ok := body[k]; ok {
			return &APIError{http.StatusBadRequest, fmt.Sprintf("Unsupported parameter: '%s'. In the Responses API, this parameter has moved or does not exist.", k)}
		}
	}
	return nil
}

// responsesInput reads the request's input (a string or items) into c's
// messages, an assistant turn put together from consecutive reasoning,
// function_call and assistant message items.
func responsesInput(body map[string]any, c *Call) error {
	store, _ := body["store"].(bool)
	if _, set := body["store"]; !set {
		store = true // the API's default
	}
	var items []any
	switch in := body["input"].(type) {
	case string:
		items = []any{map[string]any{"role": "user", "content": in}}
	case []any:
		items = in
	default:
		return fmt.Errorf("input: want a string or items, got %T", body["input"])
	}
	var turn *Message
	flush := func() {
		if turn != nil {
			c.Messages = append(c.Messages, *turn)
			turn = nil
		}
	}
	assistant := func() *Message {
		if turn == nil {
			turn = &Message{Role: "assistant"}
		}
		return turn
	}
	for i, raw := range items {
		it, ok := raw.(map[string]any)
		if !ok {
			return fmt.Errorf("input[%d]: want an object", i)
		}
		kind := stringField(it, "type")
		if kind == "" {
			kind = "message"
		}
		switch kind {
		case "reasoning":
			id, data := stringField(it, "id"), stringField(it, "encrypted_content")
			if data == "" && !store {
				return &APIError{http.StatusNotFound, fmt.Sprintf("Item with id '%s' not found. Items are not persisted when `store` is set to false. "+
					"Try again with `store` set to true, or remove this item from your input.", id)}
			}
			text, valid := unseal(data)
			if data != "" && !valid {
				return &APIError{http.StatusBadRequest, fmt.Sprintf("The encrypted content for item %s could not be verified.", id)}
			}
			t := Thinking{Data: data, Valid: valid, Text: text}
			a := assistant()
			a.Thinking = append(a.Thinking, t)
		case "function_call":
			a := assistant()
			a.ToolCalls = append(a.ToolCalls, ToolCall{ID: stringField(it, "call_id"), Name: stringField(it, "name"), Arguments: stringField(it, "arguments")})
		case "function_call_output":
			flush()
			c.Messages = append(c.Messages, Message{Role: "tool", ToolCallID: stringField(it, "call_id"), Text: stringField(it, "output")})
		case "message":
			role := stringField(it, "role")
			texts, images, err := inputContent(it["content"], fmt.Sprintf("input[%d].content", i))
			if err != nil {
				return err
			}
			if role == "assistant" {
				a := assistant()
				a.Text += strings.Join(texts, "\n")
				continue
			}
			flush()
			msg := Message{Role: role, Text: strings.Join(texts, "\n"), Images: images}
			if role == "system" || role == "developer" {
				c.System = strings.TrimPrefix(c.System+"\n"+msg.Text, "\n")
			}
			c.Messages = append(c.Messages, msg)
		default:
			return fmt.Errorf("input[%d]: unknown item type %q", i, kind)
		}
	}
	flush()
	return nil
}

// inputContent reads a message item's content: a string, or input_text,
// output_text and input_image parts.
func inputContent(v any, where string) (texts []string, images []Image, err error) {
	switch content := v.(type) {
	case string:
		return []string{content}, nil, nil
	case []any:
		for j, rp := range content {
			part, _ := rp.(map[string]any)
			switch stringField(part, "type") {
			case "input_text", "output_text":
				texts = append(texts, stringField(part, "text"))
			case "input_image":
				img, err := dataURL(stringField(part, "image_url"))
				if err != nil {
					return nil, nil, fmt.Errorf("%s[%d]: %v", where, j, err)
				}
				images = append(images, img)
			default:
				return nil, nil, fmt.Errorf("%s[%d]: unknown part type %q", where, j, stringField(part, "type"))
			}
		}
		return texts, images, nil
	}
	return nil, nil, fmt.Errorf("%s: want a string or parts, got %T", where, v)
}

func answerResponses(c Call, r Reply) any {
	include, _ := c.Body["include"].([]any)
	encrypted := false
	for _, v := range include {
		encrypted = encrypted || v == "reasoning.encrypted_content"
	}
	var output []any
	for i, t := range r.Thoughts {
		item := map[string]any{"id": fmt.Sprintf("rs_fake_%d_%d", c.N, i), "type": "reasoning",
			"summary": []any{map[string]any{"type": "summary_text", "text": t.Text}}}
		if t.Redacted {
			item["summary"] = []any{}
		}
		if encrypted {
			item["encrypted_content"] = sealed(t.Text)
		}
		output = append(output, item)
	}
	if !(len(r.ToolCalls) > 0 && r.Text == "") && !r.NoContent {
		var content []any
		if r.Refusal != "" {
			content = []any{map[string]any{"type": "refusal", "refusal": r.Refusal}}
		} else {
			content = []any{map[string]any{"type": "output_text", "text": r.Text, "annotations": []any{}}}
		}
		output = append(output, map[string]any{"id": fmt.Sprintf("msg_fake_%d", c.N), "type": "message",
			"role": "assistant", "status": "completed", "content": content})
	}
	for i, tc := range r.ToolCalls {
		output = append(output, map[string]any{"id": fmt.Sprintf("fc_fake_%d_%d", c.N, i), "type": "function_call",
			"call_id": tc.ID, "name": tc.Name, "arguments": tc.Arguments, "status": "completed"})
	}
	status, incomplete := "completed", any(nil)
	switch r.FinishReason {
	case "", "stop", "tool_calls":
	case "length":
		status, incomplete = "incomplete", map[string]any{"reason": "max_output_tokens"}
	default:
		status, incomplete = "incomplete", map[string]any{"reason": r.FinishReason}
	}
	return map[string]any{
		"id":                 fmt.Sprintf("resp_fake_%d", c.N),
		"object":             "response",
		"created_at":         1700000000,
		"status":             status,
		"incomplete_details": incomplete,
		"model":              r.Model,
		"output":             output,
		"usage": map[string]any{
			"input_tokens":          r.InputTokens,
			"input_tokens_details":  map[string]any{"cached_tokens": r.CacheReadTokens},
			"output_tokens":         r.OutputTokens,
			"output_tokens_details": map[string]any{"reasoning_tokens": r.ReasoningTokens},
			"total_tokens":          r.InputTokens + r.OutputTokens,
		},
	}
}
