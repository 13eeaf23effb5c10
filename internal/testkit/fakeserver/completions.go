package fakeserver

import (
	"fmt"
	"testing"
)

// NewOpenAICompletions starts a fake server of OpenAI's raw text
// completions, POST /v1/completions (as llama.cpp and vLLM serve it). The
// prompt arrives as one user Message. Its URL ends in "/v1".
func NewOpenAICompletions(t testing.TB, opt Options) *Server {
	t.Helper()
	return newServer(t, opt, dialect{
		name:    "openai-completions",
		path:    "/v1/completions",
		decode:  decodeCompletions,
		answer:  answerCompletions,
		errBody: errorOpenAI,
		baseURL: func(root string) string { return root + "/v1" },
	})
}

func decodeCompletions(body map[string]any, c *Call) error {
	c.Model = stringField(body, "model")
	var err error
	if c.Format, err = openAIFormat(body); err != nil {
		return err
	}
	if c.Settings, err = settings(body, "stop"); err != nil {
		return err
	}
	prompt, ok := body["prompt"].(string)
	if !ok {
		return fmt.Errorf("prompt: want a string, got %T", body["prompt"])
	}
	c.Messages = []Message{{Role: "user", Text: prompt}}
	return nil
}

func answerCompletions(c Call, r Reply) any {
	return map[string]any{
		"id":      fmt.Sprintf("cmpl-fake-%d", c.N),
		"object":  "text_completion",
		"created": 1700000000,
		"model":   r.Model,
		"choices": []any{map[string]any{"index": 0, "text": r.Text, "finish_reason": "stop", "logprobs": nil}},
		"usage": map[string]any{
			"prompt_tokens":     r.InputTokens,
			"completion_tokens": r.OutputTokens,
			"total_tokens":      r.InputTokens + r.OutputTokens,
		},
	}
}
