package fakeserver

import (
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
)

// Thought is a block of reasoning a fake answers before its text: a
// thinking block (Anthropic), or a reasoning item with a summary and
// encrypted content (the Responses API). The fake signs what it sends,
// and checks what comes back, as the real APIs do: a block sent back
// changed in any way is refused.
type Thought struct {
	Text string
	// Redacted answers Anthropic's redacted_thinking block (its data
	// encrypted, no text) instead of a thinking block.
	Redacted bool
}

// Thinking is a thinking block the client sent back in an assistant turn,
// as the server received it.
type Thinking struct {
	Redacted  bool
	Text      string // a thinking block's thinking
	Signature string // a thinking block's signature
	Data      string // a redacted_thinking block's data, or a reasoning item's encrypted_content
	Valid     bool   // signed or encrypted by the fake, and unmodified
}

// APIError is a request the fake refuses as the real API does: with
// Status and Message in the provider's error format, without the fake's
// own prefix. A decoder returns it; the call is not recorded.
type APIError struct {
	Status  int
	Message string
}

func (e *APIError) Error() string { return e.Message }

// refused says whether err is an API-shaped refusal, and which.
func refused(err error) (*APIError, bool) {
	var e *APIError
	ok := errors.As(err, &e)
	return e, ok
}

// signature is the fake's signature of a thinking text: a real signature
// is opaque too, and only the server can check it.
func signature(text string) string {
	sum := sha256.Sum256([]byte("fakeserver thinking\x00" + text))
	return base64.StdEncoding.EncodeToString(sum[:])
}

// sealed is the fake's encryption of a thought: the text, readable to
// the fake alone (tests do not look), with a checksum.
func sealed(text string) string {
	sum := sha256.Sum256([]byte("fakeserver sealed\x00" + text))
	return base64.StdEncoding.EncodeToString(append(sum[:8], text...))
}

// unseal checks data made by sealed and returns its text.
func unseal(data string) (string, bool) {
	b, err := base64.StdEncoding.DecodeString(data)
	if err != nil || len(b) < 8 {
		return "", false
	}
	text := string(b[8:])
	return text, sealed(text) == data
}

// The Anthropic messages API's rules for extended thinking, in its own
// words (its error messages, as its documentation and clients quote them).
const thinkingDocs = "Please consult our documentation at https://docs.claude.com/en/docs/build-with-claude/extended-thinking"

// checkThinking applies the rules of a request with thinking enabled
// (budget_tokens at least 1024 and below max_tokens) or adaptive (no
// budget_tokens): temperature unset or 1, and the last assistant turn
// before tool results starting with its thinking, every thinking block
// unmodified.
func checkThinking(body map[string]any, c *Call) error {
	cfg, _ := body["thinking"].(map[string]any)
	kind := stringField(cfg, "type")
	switch kind {
	case "", "disabled":
	case "enabled":
		budget, err := intField(cfg, "budget_tokens")
		if err != nil || budget == nil {
			return &APIError{400, "thinking.enabled.budget_tokens: Field required"}
		}
		c.ThinkingBudget = int(*budget)
		if *budget < 1024 {
			return &APIError{400, "thinking.enabled.budget_tokens: Input should be greater than or equal to 1024"}
		}
		if c.Settings.MaxTokens != nil && *c.Settings.MaxTokens <= int(*budget) {
			return &APIError{400, "`max_tokens` must be greater than `thinking.budget_tokens`. " + thinkingDocs}
		}
	case "adaptive":
		if _, ok := cfg["budget_tokens"]; ok {
			return &APIError{400, "thinking.adaptive.budget_tokens: Extra inputs are not permitted"}
		}
	default:
		return &APIError{400, fmt.Sprintf("thinking.type: Input should be 'enabled', 'disabled' or 'adaptive' (got %q)", kind)}
	}
	enabled := kind == "enabled" || kind == "adaptive"
	if t := c.Settings.Temperature; enabled && t != nil && *t != 1 {
		return &APIError{400, "`temperature` may only be set to 1 when thinking is enabled or in adaptive mode. " + thinkingDocs}
	}
	msgs, _ := body["messages"].([]any)
	for i, raw := range msgs {
		m, _ := raw.(map[string]any)
		content, _ := m["content"].([]any)
		for j, rb := range content {
			b, _ := rb.(map[string]any)
			switch stringField(b, "type") {
			case "thinking":
				if signature(stringField(b, "thinking")) != stringField(b, "signature") {
					return &APIError{400, fmt.Sprintf("messages.%d.content.%d: Invalid `signature` in `thinking` block", i, j)}
				}
			case "redacted_thinking":
				if _, ok := unseal(stringField(b, "data")); !ok {
					return &APIError{400, fmt.Sprintf("messages.%d.content.%d: Invalid `data` in `redacted_thinking` block", i, j)}
				}
			}
		}
	}
	if !enabled || len(msgs) < 2 {
		return nil
	}
	// The final turn carries tool results: the assistant turn before it,
	// whose tool calls they answer, must start with its thinking.
	last, _ := msgs[len(msgs)-1].(map[string]any)
	if !hasBlock(last, "tool_result") {
		return nil
	}
	i := len(msgs) - 2
	prev, _ := msgs[i].(map[string]any)
	content, _ := prev["content"].([]any)
	first := "text" // a content string is one text block
	if len(content) > 0 {
		b, _ := content[0].(map[string]any)
		first = stringField(b, "type")
	}
	if first != "thinking" && first != "redacted_thinking" {
		return &APIError{400, fmt.Sprintf("messages.%d.content.0.type: Expected `thinking` or `redacted_thinking`, but found `%s`. "+
			"When `thinking` is enabled, a final `assistant` message must start with a thinking block "+
			"(preceeding the lastmost set of `tool_use` and `tool_result` blocks). We recommend you include thinking blocks "+
			"from previous turns. To avoid this requirement, disable `thinking`. %s", i, first, thinkingDocs)}
	}
	return nil
}

// hasBlock reports whether a message's content holds a block of type kind.
func hasBlock(m map[string]any, kind string) bool {
	content, _ := m["content"].([]any)
	for _, rb := range content {
		b, _ := rb.(map[string]any)
		if stringField(b, "type") == kind {
			return true
		}
	}
	return false
}

// thinkingBlocks takes Anthropic's thinking and redacted_thinking blocks
// out of a content array.
func thinkingBlocks(arr []any) (rest []any, thoughts []Thinking) {
	for _, rb := range arr {
		b, _ := rb.(map[string]any)
		switch stringField(b, "type") {
		case "thinking":
			t := Thinking{Text: stringField(b, "thinking"), Signature: stringField(b, "signature")}
			t.Valid = signature(t.Text) == t.Signature
			thoughts = append(thoughts, t)
		case "redacted_thinking":
			t := Thinking{Redacted: true, Data: stringField(b, "data")}
			_, t.Valid = unseal(t.Data)
			thoughts = append(thoughts, t)
		default:
			rest = append(rest, rb)
		}
	}
	return rest, thoughts
}

// anthropicThoughts are a reply's thinking blocks, signed.
func anthropicThoughts(r Reply) []any {
	var out []any
	for _, t := range r.Thoughts {
		if t.Redacted {
			out = append(out, map[string]any{"type": "redacted_thinking", "data": sealed(t.Text)})
			continue
		}
		out = append(out, map[string]any{"type": "thinking", "thinking": t.Text, "signature": signature(t.Text)})
	}
	return out
}
