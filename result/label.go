package result

import (
	"strconv"
	"strings"

	"github.com/evalmd/evalmd/model"
)

// ModelLabel is how agg and the report name a model: its name, then the
// settings it ran with that change how it thinks or writes, so that runs
// of one model at two efforts, budgets or verbosities are two rows, never
// one: "openai/o3 · effort high", "anthropic/claude-sonnet-4 · thinking
// 4000", "anthropic/claude-opus-4-6 · thinking adaptive · effort max",
// "openai/gpt-5 · verbosity low". A model run without them is its name
// alone.
func ModelLabel(name string, s model.Settings) string {
	var b strings.Builder
	b.WriteString(name)
	add := func(what, value string) {
		if value != "" {
			b.WriteString(" · " + what + " " + value)
		}
	}
	add("thinking", s.Thinking)
	add("effort", s.ReasoningEffort)
	if s.ReasoningTokens > 0 {
		add("thinking", strconv.Itoa(s.ReasoningTokens))
	}
	add("verbosity", s.Verbosity)
	return b.String()
}

// ModelLabel is the sheet's model and the settings of its run (Settings)
// that ModelLabel names.
func (s *Sheet) ModelLabel() string {
	if s.Settings == nil {
		return s.ModelName
	}
	return ModelLabel(s.ModelName, *s.Settings)
}
