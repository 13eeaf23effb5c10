package result

import (
	"strconv"
	"strings"
)

// ModelLabel is how agg and the report name a model: its name, then the
// reasoning settings it ran with, so that runs of one model at two
// efforts or budgets are two rows, never one: "openai/o3 · effort high",
// "anthropic/claude-sonnet-4 · thinking 4000". A model run without them
// is its name alone.
func ModelLabel(name, effort string, budget int) string {
	if effort == "" && budget <= 0 {
		return name
	}
	var b strings.Builder
	b.WriteString(name)
	if effort != "" {
		b.WriteString(" · effort ")
		b.WriteString(effort)
	}
	if budget > 0 {
		b.WriteString(" · thinking ")
		b.WriteString(strconv.Itoa(budget))
	}
	return b.String()
}

// ModelLabel is the sheet's model and the reasoning settings of its run
// (Settings), as ModelLabel says them.
func (s *Sheet) ModelLabel() string {
	if s.Settings == nil {
		return s.ModelName
	}
	return ModelLabel(s.ModelName, s.Settings.ReasoningEffort, s.Settings.ReasoningTokens)
}
