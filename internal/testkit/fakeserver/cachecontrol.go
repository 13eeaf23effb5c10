package fakeserver

import (
	"fmt"
	"strings"
)

// CacheMark is a cache_control breakpoint an Anthropic request carried.
type CacheMark struct {
	// Where is the block that carried it: "system[0]",
	// "messages[0].content[1]", "tools[2]".
	Where string
	// Prefix is the text of the system blocks and of the messages' text
	// blocks up to and including the marked block, joined as sent (no
	// separator): what the prompt cache keeps.
	Prefix string
	TTL    string // "5m", "1h" or "" (the API's default, 5m)
}

// maxCacheMarks is how many breakpoints Anthropic takes in one request.
const maxCacheMarks = 4

// cacheMarks reads the cache_control members of an Anthropic request as
// the API documents them: {"type": "ephemeral"} with an optional ttl of
// 5m or 1h, on a tool or on a text, image, tool_use or tool_result
// block (never a thinking block, nor an empty text), at most four; any
// other is the 400 the API answers.
func cacheMarks(body map[string]any) ([]CacheMark, error) {
	var marks []CacheMark
	var text strings.Builder
	visit := func(where string, raw any) error {
		b, ok := raw.(map[string]any)
		if !ok {
			return nil
		}
		kind := stringField(b, "type")
		if kind == "text" {
			text.WriteString(stringField(b, "text"))
		}
		cc, ok := b["cache_control"]
		if !ok {
			return nil
		}
		ttl, err := checkCacheControl(where, cc)
		if err != nil {
			return err
		}
		switch kind {
		case "text":
			if stringField(b, "text") == "" {
				return fmt.Errorf("%s: cache_control cannot be set for empty text blocks", where)
			}
		case "image", "tool_use", "tool_result", "document", "":
		default:
			return fmt.Errorf("%s: cache_control cannot be set on a %s block", where, kind)
		}
		marks = append(marks, CacheMark{Where: where, Prefix: text.String(), TTL: ttl})
		return nil
	}
	if tools, ok := body["tools"].([]any); ok {
		for i, t := range tools {
			if err := visit(fmt.Sprintf("tools[%d]", i), t); err != nil {
				return nil, err
			}
		}
	}
	if sys, ok := body["system"].([]any); ok {
		for i, b := range sys {
			if err := visit(fmt.Sprintf("system[%d]", i), b); err != nil {
				return nil, err
			}
		}
	}
	msgs, _ := body["messages"].([]any)
	for i, rm := range msgs {
		m, _ := rm.(map[string]any)
		content, _ := m["content"].([]any)
		for j, b := range content {
			if err := visit(fmt.Sprintf("messages[%d].content[%d]", i, j), b); err != nil {
				return nil, err
			}
		}
	}
	if len(marks) > maxCacheMarks {
		return nil, fmt.Errorf("a maximum of %d blocks with cache_control may be provided, found %d", maxCacheMarks, len(marks))
	}
	return marks, nil
}

// checkCacheControl reads one cache_control member, and its ttl.
func checkCacheControl(where string, cc any) (string, error) {
	m, ok := cc.(map[string]any)
	if !ok {
		return "", fmt.Errorf("%s.cache_control: want an object", where)
	}
	for k := range m {
		if k != "type" && k != "ttl" {
			return "", fmt.Errorf("%s.cache_control.%s: extra inputs are not permitted", where, k)
		}
	}
	if t := stringField(m, "type"); t != "ephemeral" {
		return "", fmt.Errorf("%s.cache_control.type: input should be 'ephemeral', got %q", where, t)
	}
	ttl := stringField(m, "ttl")
	if ttl != "" && ttl != "5m" && ttl != "1h" {
		return "", fmt.Errorf("%s.cache_control.ttl: input should be '5m' or '1h', got %q", where, ttl)
	}
	return ttl, nil
}
