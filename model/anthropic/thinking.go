package anthropic

import (
	"fmt"
	"strings"

	"github.com/evalmd/evalmd/model"
)

// minThinkingBudget is the least budget_tokens the messages API takes.
const minThinkingBudget = 1024

// topPWithThinking is the least top_p the messages API takes with
// thinking enabled; a lower one is not sent.
const topPWithThinking = 0.95

// sent returns the settings a request sends to Anthropic for s, with why
// each setting asked for is not sent, or an error when s cannot be sent
// at all. The mapping (the README's table):
//
//   - reasoning_tokens N: thinking {type: enabled, budget_tokens: N}
//     (at least 1024). Temperature is then not sent (the API takes only
//     1), nor a top_p below 0.95. max_tokens counts the thinking, so it
//     must exceed N: a max_tokens at or below it is an error; none set is
//     N plus the usual 4096.
//   - reasoning_effort low, medium, high: output_config {effort}, Claude's
//     effort (Opus 4.5 and later take it); minimal is sent as low, which
//     is Claude's least; none sends thinking {type: disabled}. The effort
//     does not turn thinking on: reasoning_tokens does.
func sent(s model.Settings) (model.Settings, []model.SettingNote, error) {
	var dropped []model.SettingNote
	if s.ReasoningTokens > 0 {
		if s.ReasoningTokens < minThinkingBudget {
			return s, nil, &model.SettingNote{Name: "reasoning_tokens", Why: fmt.Sprintf("reasoning_tokens %d: Anthropic's thinking budget is at least %d tokens", s.ReasoningTokens, minThinkingBudget)}
		}
		if s.ReasoningEffort == model.ReasoningNone {
			return s, nil, &model.SettingNote{Name: "reasoning_effort", Why: fmt.Sprintf("reasoning_effort none turns Anthropic's thinking off, and reasoning_tokens %d turns it on: set one", s.ReasoningTokens)}
		}
		switch {
		case s.MaxTokens == 0:
			s.MaxTokens = s.ReasoningTokens + defaultMaxTokens
		case s.MaxTokens <= s.ReasoningTokens:
			return s, nil, &model.SettingNote{Name: "max_tokens", Why: fmt.Sprintf("max_tokens %d must exceed reasoning_tokens %d: Anthropic counts the thinking in max_tokens (raise max_tokens, or leave it unset for %d)",
				s.MaxTokens, s.ReasoningTokens, s.ReasoningTokens+defaultMaxTokens)}
		}
		if s.Temperature != nil {
			dropped = append(dropped, model.SettingNote{Name: "temperature", Why: "with thinking (reasoning_tokens) Anthropic takes none but 1"})
			s.Temperature = nil
		}
		if s.TopP != nil && *s.TopP < topPWithThinking {
			dropped = append(dropped, model.SettingNote{Name: "top_p", Why: fmt.Sprintf("with thinking (reasoning_tokens) Anthropic takes none below %g", topPWithThinking)})
			s.TopP = nil
		}
	}
	switch s.ReasoningEffort {
	case "", model.ReasoningNone, model.ReasoningLow, model.ReasoningMedium, model.ReasoningHigh:
	case model.ReasoningMinimal:
		s.ReasoningEffort = model.ReasoningLow
		dropped = append(dropped, model.SettingNote{Name: "reasoning_effort", As: model.ReasoningLow, Why: "Claude's least effort"})
	default:
		return s, nil, &model.SettingNote{Name: "reasoning_effort", Why: fmt.Sprintf("reasoning_effort %q: want none, minimal, low, medium or high", s.ReasoningEffort)}
	}
	if s.Seed != nil {
		dropped = append(dropped, model.SettingNote{Name: "seed", Why: "Anthropic takes none"})
		s.Seed = nil
	}
	if s.MaxTokens == 0 {
		s.MaxTokens = defaultMaxTokens
	}
	return s, dropped, nil
}

// SendSettings says what a request asking s sends (sent).
func (m *messagesModel) SendSettings(s model.Settings) (model.Settings, []model.SettingNote, error) {
	return sent(s)
}

// setReasoning puts the reasoning settings of s (as sent returned them)
// into the request.
func setReasoning(p *request, s model.Settings) {
	switch {
	case s.ReasoningTokens > 0:
		p.Thinking.Type, p.Thinking.BudgetTokens = "enabled", s.ReasoningTokens
	case s.ReasoningEffort == model.ReasoningNone:
		p.Thinking.Type = "disabled"
	}
	if s.ReasoningEffort != "" && s.ReasoningEffort != model.ReasoningNone {
		p.OutputConfig.Effort = s.ReasoningEffort
	}
}

// thinkingParams are an assistant turn's thinking blocks as they are sent
// back: unmodified, signatures and redacted data included, before the
// turn's text and tool calls, as the API returned them. Blocks of other
// APIs are not sent.
func thinkingParams(blocks []model.ReasoningBlock) []block {
	var out []block
	for _, b := range blocks {
		switch b.Type {
		case model.ThinkingBlock:
			out = append(out, block{Type: "thinking", Thinking: &b.Text, Signature: b.Signature})
		case model.RedactedThinkingBlock:
			out = append(out, block{Type: "redacted_thinking", Data: b.Data})
		}
	}
	return out
}

// redactedNote stands in the reply's reasoning for a redacted_thinking
// block, whose thinking Anthropic encrypted.
const redactedNote = "[thinking redacted by Anthropic: encrypted, sent back but not readable]"

// thinking reads a reply's thinking and redacted_thinking blocks: the
// blocks to send back, and the reasoning text for a person.
func thinking(content []replyBlock) (text string, blocks []model.ReasoningBlock) {
	var parts []string
	for _, block := range content {
		switch block.Type {
		case "thinking":
			blocks = append(blocks, model.ReasoningBlock{Type: model.ThinkingBlock, Text: block.Thinking, Signature: block.Signature})
			parts = append(parts, block.Thinking)
		case "redacted_thinking":
			blocks = append(blocks, model.ReasoningBlock{Type: model.RedactedThinkingBlock, Data: block.Data})
			parts = append(parts, redactedNote)
		}
	}
	return strings.Join(parts, "\n\n"), blocks
}
