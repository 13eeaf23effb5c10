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
// at all. The mapping (docs/models.md's table):
//
//   - reasoning_tokens N: thinking {type: enabled, budget_tokens: N}
//     (at least 1024). max_tokens counts the thinking, so it must exceed
//     N: a max_tokens at or below it is an error; none set is N plus the
//     usual 4096.
//   - thinking adaptive: thinking {type: adaptive}, Claude deciding how
//     much to think (Opus 4.6 and later); no budget beside it. None set,
//     max_tokens is the usual 4096 plus 16000 (64000 in all at an effort
//     of xhigh or max, as Anthropic advises).
//   - With thinking on (either), temperature is not sent (the API takes
//     only 1), nor a top_p below 0.95.
//   - reasoning_effort low to max: output_config {effort}, Claude's effort
//     (Opus 4.5 and later take it; xhigh and max the newest); minimal is
//     sent as low, which is Claude's least; none sends thinking {type:
//     disabled}. The effort does not turn thinking on: reasoning_tokens
//     or thinking adaptive do.
//   - verbosity and seed: not sent, Anthropic takes neither.
func sent(s model.Settings) (model.Settings, []model.SettingNote, error) {
	var dropped []model.SettingNote
	note := func(name, as, why string) { dropped = append(dropped, model.SettingNote{Name: name, As: as, Why: why}) }
	thinking, err := thinkingOn(&s)
	if err != nil {
		return s, nil, err
	}
	if thinking != "" {
		if s.Temperature != nil {
			note("temperature", "", "with thinking ("+thinking+") Anthropic takes none but 1")
			s.Temperature = nil
		}
		if s.TopP != nil && *s.TopP < topPWithThinking {
			note("top_p", "", fmt.Sprintf("with thinking (%s) Anthropic takes none below %g", thinking, topPWithThinking))
			s.TopP = nil
		}
	}
	switch s.ReasoningEffort {
	case model.ReasoningMinimal:
		s.ReasoningEffort = model.ReasoningLow
		note("reasoning_effort", model.ReasoningLow, "Claude's least effort")
	case "", model.ReasoningNone, model.ReasoningLow, model.ReasoningMedium, model.ReasoningHigh, model.ReasoningXHigh, model.ReasoningMax:
	default:
		return s, nil, &model.SettingNote{Name: "reasoning_effort", Why: fmt.Sprintf("reasoning_effort %q: want one of %s", s.ReasoningEffort, strings.Join(model.ReasoningEfforts, ", "))}
	}
	if s.Seed != nil {
		note("seed", "", "Anthropic takes none")
		s.Seed = nil
	}
	if s.Verbosity != "" {
		note("verbosity", "", "Anthropic takes none (reasoning_effort, Claude's effort, also sets how much it writes)")
		s.Verbosity = ""
	}
	if s.ResponseFormat == model.ResponseJSON {
		note("response_format", "", "Anthropic has no JSON mode without a schema (a schema section is sent as its structured output)")
		s.ResponseFormat = ""
	}
	if s.MaxTokens == 0 {
		s.MaxTokens = defaultMaxTokens
	}
	return s, dropped, nil
}

// adaptiveRoom is what an adaptive thinking request's max_tokens, when
// none is set, holds beyond the usual for the thinking;
// adaptiveMostTokens is its max_tokens at an effort of xhigh or max.
const (
	adaptiveRoom       = 16000
	adaptiveMostTokens = 64000
)

// thinkingOn checks the thinking s turns on, reasoning_tokens (a budget)
// or thinking adaptive, and sets its max_tokens when none is; it says
// which setting turned it on ("" for none).
func thinkingOn(s *model.Settings) (string, error) {
	switch {
	case s.Thinking == model.ThinkingAdaptive && s.ReasoningTokens > 0:
		return "", &model.SettingNote{Name: "thinking", Why: fmt.Sprintf("thinking adaptive decides its own budget, and reasoning_tokens %d sets one: set one (adaptive on Claude Opus 4.6 and later, a budget on older models)", s.ReasoningTokens)}
	case s.Thinking != "" && s.Thinking != model.ThinkingAdaptive:
		return "", &model.SettingNote{Name: "thinking", Why: fmt.Sprintf("thinking %q: want adaptive", s.Thinking)}
	case s.Thinking == model.ThinkingAdaptive:
		if s.ReasoningEffort == model.ReasoningNone {
			return "", &model.SettingNote{Name: "reasoning_effort", Why: "reasoning_effort none turns Anthropic's thinking off, and thinking adaptive turns it on: set one"}
		}
		if s.MaxTokens == 0 {
			s.MaxTokens = defaultMaxTokens + adaptiveRoom
			if s.ReasoningEffort == model.ReasoningXHigh || s.ReasoningEffort == model.ReasoningMax {
				s.MaxTokens = adaptiveMostTokens
			}
		}
		return "thinking adaptive", nil
	case s.ReasoningTokens == 0:
		return "", nil
	case s.ReasoningTokens < minThinkingBudget:
		return "", &model.SettingNote{Name: "reasoning_tokens", Why: fmt.Sprintf("reasoning_tokens %d: Anthropic's thinking budget is at least %d tokens", s.ReasoningTokens, minThinkingBudget)}
	case s.ReasoningEffort == model.ReasoningNone:
		return "", &model.SettingNote{Name: "reasoning_effort", Why: fmt.Sprintf("reasoning_effort none turns Anthropic's thinking off, and reasoning_tokens %d turns it on: set one", s.ReasoningTokens)}
	case s.MaxTokens == 0:
		s.MaxTokens = s.ReasoningTokens + defaultMaxTokens
	case s.MaxTokens <= s.ReasoningTokens:
		return "", &model.SettingNote{Name: "max_tokens", Why: fmt.Sprintf("max_tokens %d must exceed reasoning_tokens %d: Anthropic counts the thinking in max_tokens (raise max_tokens, or leave it unset for %d)",
			s.MaxTokens, s.ReasoningTokens, s.ReasoningTokens+defaultMaxTokens)}
	}
	return "reasoning_tokens", nil
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
	case s.Thinking == model.ThinkingAdaptive:
		p.Thinking.Type = "adaptive"
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
