package fakeserver

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
)

// NewAnthropic starts a fake Anthropic-compatible server serving POST
// /v1/messages. Its URL is the server root. It stops when t ends. With
// thinking enabled it answers Reply.Thoughts as signed thinking blocks and
// applies the API's rules (checkThinking), refusing what it refuses.
func NewAnthropic(t testing.TB, opt Options) *Server {
	t.Helper()
	return newServer(t, opt, dialect{
		name:    "anthropic",
		path:    "/v1/messages",
		decode:  decodeAnthropic,
		answer:  answerAnthropic,
		errBody: errorAnthropic,
		baseURL: func(root string) string { return root },
	})
}

func decodeAnthropic(body map[string]any, c *Call) error {
	c.Model = stringField(body, "model")
	var err error
	if c.Format, err = anthropicFormat(body); err != nil {
		return err
	}
	if c.CacheMarks, err = cacheMarks(body); err != nil {
		return err
	}
	if c.Settings, err = settings(body, "stop_sequences"); err != nil {
		return err
	}
	if c.Settings.MaxTokens == nil {
		// The real API rejects a request without max_tokens; so does the fake,
		// so a client that forgets it fails its tests.
		return fmt.Errorf("max_tokens: required")
	}
	switch sys := body["system"].(type) {
	case nil:
	case string:
		c.System = sys
	case []any:
		texts, _, err := blocks(sys, "system")
		if err != nil {
			return err
		}
		c.System = strings.Join(texts, "\n")
	default:
		return fmt.Errorf("system: want a string or blocks, got %T", sys)
	}
	msgs, ok := body["messages"].([]any)
	if !ok {
		return fmt.Errorf("messages: want an array, got %T", body["messages"])
	}
	for i, raw := range msgs {
		m, ok := raw.(map[string]any)
		if !ok {
			return fmt.Errorf("messages[%d]: want an object", i)
		}
		msg := Message{Role: stringField(m, "role")}
		switch content := m["content"].(type) {
		case string:
			msg.Text = content
		case []any:
			var toolTurns []Message
			content, msg.Thinking = thinkingBlocks(content)
			content, toolTurns, msg.ToolCalls = toolBlocks(content)
			c.Messages = append(c.Messages, toolTurns...)
			if len(toolTurns) > 0 && len(content) == 0 {
				continue
			}
			texts, images, err := blocks(content, fmt.Sprintf("messages[%d].content", i))
			if err != nil {
				return err
			}
			msg.Text, msg.Images = strings.Join(texts, "\n"), images
		default:
			return fmt.Errorf("messages[%d].content: want a string or blocks, got %T", i, content)
		}
		c.Messages = append(c.Messages, msg)
	}
	if tools, ok := body["tools"].([]any); ok {
		for _, rt := range tools {
			t, _ := rt.(map[string]any)
			c.Tools = append(c.Tools, stringField(t, "name"))
		}
	}
	return checkThinking(body, c)
}

// toolBlocks takes the tool_use and tool_result blocks out of a content
// array: results become turns of their own (Role "tool"), uses the turn's
// ToolCalls; rest is what is left for blocks.
func toolBlocks(arr []any) (rest []any, results []Message, calls []ToolCall) {
	for _, rb := range arr {
		b, _ := rb.(map[string]any)
		switch stringField(b, "type") {
		case "tool_use":
			args, _ := json.Marshal(b["input"])
			calls = append(calls, ToolCall{ID: stringField(b, "id"), Name: stringField(b, "name"), Arguments: string(args)})
		case "tool_result":
			var text []string
			switch c := b["content"].(type) {
			case string:
				text = append(text, c)
			case []any:
				for _, rc := range c {
					tb, _ := rc.(map[string]any)
					text = append(text, stringField(tb, "text"))
				}
			}
			results = append(results, Message{Role: "tool", ToolCallID: stringField(b, "tool_use_id"), Text: strings.Join(text, "\n")})
		default:
			rest = append(rest, rb)
		}
	}
	return rest, results, calls
}

// blocks reads an array of text and base64 image content blocks.
func blocks(arr []any, where string) (texts []string, images []Image, err error) {
	for j, rb := range arr {
		b, ok := rb.(map[string]any)
		if !ok {
			return nil, nil, fmt.Errorf("%s[%d]: want an object", where, j)
		}
		switch stringField(b, "type") {
		case "text":
			texts = append(texts, stringField(b, "text"))
		case "image":
			src, _ := b["source"].(map[string]any)
			if stringField(src, "type") != "base64" {
				return nil, nil, fmt.Errorf("%s[%d]: image source is not base64", where, j)
			}
			data, err := base64.StdEncoding.DecodeString(stringField(src, "data"))
			if err != nil {
				return nil, nil, fmt.Errorf("%s[%d]: %v", where, j, err)
			}
			images = append(images, Image{MediaType: stringField(src, "media_type"), Data: data})
		default:
			return nil, nil, fmt.Errorf("%s[%d]: unknown block type %q", where, j, stringField(b, "type"))
		}
	}
	return texts, images, nil
}

func answerAnthropic(c Call, r Reply) any {
	content := []any{map[string]any{"type": "text", "text": r.Text}}
	stop := "end_turn"
	if len(r.ToolCalls) > 0 {
		if r.Text == "" {
			content = nil
		}
		for _, tc := range r.ToolCalls {
			var input any = map[string]any{}
			_ = json.Unmarshal([]byte(tc.Arguments), &input)
			content = append(content, map[string]any{"type": "tool_use", "id": tc.ID, "name": tc.Name, "input": input})
		}
		stop = "tool_use"
	}
	if r.NoContent {
		content = []any{}
	}
	content = append(anthropicThoughts(r), content...)
	if r.FinishReason != "" {
		stop = r.FinishReason
	}
	return map[string]any{
		"id":            fmt.Sprintf("msg_fake_%d", c.N),
		"type":          "message",
		"role":          "assistant",
		"model":         r.Model,
		"content":       content,
		"stop_reason":   stop,
		"stop_sequence": nil,
		"usage": map[string]any{
			"input_tokens":                r.InputTokens - r.CacheReadTokens - r.CacheWriteTokens,
			"output_tokens":               r.OutputTokens,
			"cache_creation_input_tokens": r.CacheWriteTokens,
			"cache_read_input_tokens":     r.CacheReadTokens,
		},
	}
}

func errorAnthropic(status int, message string) any {
	if message == "" {
		message = http.StatusText(status)
	}
	kind := "api_error"
	switch status {
	case http.StatusBadRequest:
		kind = "invalid_request_error"
	case http.StatusUnauthorized:
		kind = "authentication_error"
	case http.StatusForbidden:
		kind = "permission_error"
	case http.StatusNotFound:
		kind = "not_found_error"
	case http.StatusTooManyRequests:
		kind = "rate_limit_error"
	case 529:
		kind = "overloaded_error"
	}
	return map[string]any{
		"type":  "error",
		"error": map[string]any{"type": kind, "message": message},
	}
}
