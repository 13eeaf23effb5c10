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
// that ModelLabel names, then the other settings of its configuration
// (Configuration: the flags' and config's), so that two configurations
// of a model are told apart.
func (s *Sheet) ModelLabel() string {
	label := s.ModelName
	if s.Settings != nil {
		label = ModelLabel(s.ModelName, *s.Settings)
	}
	if c := s.Configuration; c != nil {
		label += configLabel(*c)
	}
	return label
}

// configLabel names the settings of a configuration ModelLabel does not:
// " · temperature 0.7 · max_tokens 512".
func configLabel(c model.Settings) string {
	var b strings.Builder
	add := func(what, value string) { b.WriteString(" · " + what + " " + value) }
	if c.Temperature != nil {
		add("temperature", strconv.FormatFloat(*c.Temperature, 'g', -1, 64))
	}
	if c.TopP != nil {
		add("top_p", strconv.FormatFloat(*c.TopP, 'g', -1, 64))
	}
	if c.MaxTokens > 0 {
		add("max_tokens", strconv.Itoa(c.MaxTokens))
	}
	if c.Seed != nil {
		add("seed", strconv.FormatInt(*c.Seed, 10))
	}
	if len(c.Stop) > 0 {
		add("stop", strconv.Quote(strings.Join(c.Stop, ",")))
	}
	return b.String()
}
