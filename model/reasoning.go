package model

import "encoding/json"

// ReasoningBlock is one block of a model's reasoning as its API returned
// it, kept so that the next turn of an agent question sends it back
// unmodified, as the API requires: Anthropic's thinking blocks (with their
// signatures) and redacted_thinking blocks must precede the tool calls
// they led to in the turn that carries the tool results, and the Responses
// API's reasoning items (their encrypted content, as nothing is stored on
// the server) go back before the function calls they led to. A provider
// sends back only the blocks of its own API (Type says which) and ignores
// the others.
type ReasoningBlock struct {
	// Type is the block's kind: ThinkingBlock, RedactedThinkingBlock or
	// ReasoningItem.
	Type string `json:"type"`
	// Text is the thinking (Anthropic) or the reasoning summary (the
	// Responses API), for a person to read.
	Text string `json:"text,omitempty"`
	// Signature is Anthropic's signature of a thinking block's Text.
	Signature string `json:"signature,omitempty"`
	// Data is a redacted_thinking block's encrypted thinking.
	Data string `json:"data,omitempty"`
	// Raw is a Responses API reasoning item as the server returned it
	// (id, summary, encrypted_content), sent back as it is.
	Raw json.RawMessage `json:"raw,omitempty"`
}

// The kinds of ReasoningBlock.
const (
	ThinkingBlock         = "thinking"          // Anthropic
	RedactedThinkingBlock = "redacted_thinking" // Anthropic
	ReasoningItem         = "reasoning"         // the OpenAI Responses API
)
