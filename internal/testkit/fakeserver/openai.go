package fakeserver

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
)

// NewOpenAI starts a fake OpenAI-compatible server serving POST
// /v1/chat/completions. Its URL ends in "/v1". It stops when t ends.
func NewOpenAI(t testing.TB, opt Options) *Server {
	t.Helper()
	return newServer(t, opt, dialect{
		name:    "openai",
		path:    "/v1/chat/completions",
		decode:  decodeOpenAI,
		answer:  answerOpenAI,
		errBody: errorOpenAI,
		baseURL: func(root string) string { return root + "/v1" },
	})
}

func decodeOpenAI(body map[string]any, c *Call) error {
	c.Model = stringField(body, "model")
	var err error
	if c.Format, err = openAIFormat(body); err != nil {
		return err
	}
	if c.Settings, err = settings(body, "stop"); err != nil {
		return err
	}
	msgs, ok := body["messages"].([]any)
	if !ok {
		return fmt.Errorf("messages: want an array, got %T", body["messages"])
	}
	var system []string
	for i, raw := range msgs {
		m, ok := raw.(map[string]any)
		if !ok {
			return fmt.Errorf("messages[%d]: want an object", i)
		}
		msg := Message{Role: stringField(m, "role")}
		var texts []string
		switch content := m["content"].(type) {
		case string:
			texts = append(texts, content)
		case []any:
			for j, rp := range content {
				part, ok := rp.(map[string]any)
				if !ok {
					return fmt.Errorf("messages[%d].content[%d]: want an object", i, j)
				}
				switch stringField(part, "type") {
				case "text":
					texts = append(texts, stringField(part, "text"))
				case "image_url":
					iu, _ := part["image_url"].(map[string]any)
					img, err := dataURL(stringField(iu, "url"))
					if err != nil {
						return fmt.Errorf("messages[%d].content[%d]: %v", i, j, err)
					}
					msg.Images = append(msg.Images, img)
				default:
					return fmt.Errorf("messages[%d].content[%d]: unknown part type %q", i, j, stringField(part, "type"))
				}
			}
		case nil:
		default:
			return fmt.Errorf("messages[%d].content: want a string or parts, got %T", i, content)
		}
		msg.Text = strings.Join(texts, "\n")
		msg.ToolCallID = stringField(m, "tool_call_id")
		if calls, ok := m["tool_calls"].([]any); ok {
			for j, rc := range calls {
				call, _ := rc.(map[string]any)
				fn, _ := call["function"].(map[string]any)
				if call == nil || fn == nil {
					return fmt.Errorf("messages[%d].tool_calls[%d]: want an object with a function", i, j)
				}
				msg.ToolCalls = append(msg.ToolCalls, ToolCall{ID: stringField(call, "id"),
					Name: stringField(fn, "name"), Arguments: stringField(fn, "arguments")})
			}
		}
		if msg.Role == "system" || msg.Role == "developer" {
			system = append(system, msg.Text)
		}
		c.Messages = append(c.Messages, msg)
	}
	c.System = strings.Join(system, "\n")
	if tools, ok := body["tools"].([]any); ok {
		for _, rt := range tools {
			t, _ := rt.(map[string]any)
			fn, _ := t["function"].(map[string]any)
			c.Tools = append(c.Tools, stringField(fn, "name"))
		}
	}
	return nil
}

func answerOpenAI(c Call, r Reply) any {
	message := map[string]any{"role": "assistant", "content": r.Text}
	finish := "stop"
	if len(r.ToolCalls) > 0 {
		var calls []any
		for _, tc := range r.ToolCalls {
			calls = append(calls, map[string]any{"id": tc.ID, "type": "function",
				"function": map[string]any{"name": tc.Name, "arguments": tc.Arguments}})
		}
		message["tool_calls"] = calls
		if r.Text == "" {
			message["content"] = nil
		}
		finish = "tool_calls"
	}
	if r.NoContent || r.Refusal != "" {
		message["content"] = nil
	}
	if r.Refusal != "" {
		message["refusal"] = r.Refusal
	}
	if r.FinishReason != "" {
		finish = r.FinishReason
	}
	if r.Reasoning != "" {
		field := r.ReasoningField
		if field == "" {
			field = "reasoning_content"
		}
		message[field] = r.Reasoning
	}
	usage := map[string]any{
		"prompt_tokens":     r.InputTokens,
		"completion_tokens": r.OutputTokens,
		"total_tokens":      r.InputTokens + r.OutputTokens,
	}
	if r.ReasoningTokens > 0 {
		usage["completion_tokens_details"] = map[string]any{"reasoning_tokens": r.ReasoningTokens}
	}
	if r.CacheReadTokens > 0 {
		usage["prompt_tokens_details"] = map[string]any{"cached_tokens": r.CacheReadTokens}
	}
	return map[string]any{
		"id":      fmt.Sprintf("chatcmpl-fake-%d", c.N),
		"object":  "chat.completion",
		"created": 1700000000,
		"model":   r.Model,
		"choices": []any{map[string]any{
			"index":         0,
			"message":       message,
			"finish_reason": finish,
		}},
		"usage": usage,
	}
}

// OpenAIReasoning scripts a server of OpenAI's reasoning models (o3,
// gpt-5): a call with temperature or top_p other than 1, or with
// max_tokens, is refused with HTTP 400 as OpenAI refuses it; any other is
// answered by reply (nil: Reply{}).
func OpenAIReasoning(reply func(Call) Reply) func(Call) Reply {
	return func(c Call) Reply {
		for _, f := range []struct {
			name string
			v    *float64
		}{{"temperature", c.Settings.Temperature}, {"top_p", c.Settings.TopP}} {
			if name, v := f.name, f.v; v != nil && *v != 1 {
				return Reply{Status: http.StatusBadRequest, Message: fmt.Sprintf(
					"Unsupported value: '%s' does not support %v with this model. Only the default (1) value is supported.", name, *v)}
			}
		}
		if c.Settings.MaxTokens != nil {
			return Reply{Status: http.StatusBadRequest, Message: "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead."}
		}
		if reply == nil {
			return Reply{}
		}
		return reply(c)
	}
}

func errorOpenAI(status int, message string) any {
	if message == "" {
		message = http.StatusText(status)
	}
	return map[string]any{"error": map[string]any{
		"message": message,
		"type":    "fake_error",
		"code":    fmt.Sprint(status),
	}}
}
