package result

import (
	"testing"

	"github.com/evalmd/evalmd/model"
)

// A model's label names every setting that changes how it thinks or
// writes, so runs that differ in one are rows of their own.
func TestModelLabel(t *testing.T) {
	for _, c := range []struct {
		s    model.Settings
		want string
	}{
		{model.Settings{}, "m"},
		{model.Settings{Temperature: new(float64), MaxTokens: 10}, "m"},
		{model.Settings{ReasoningEffort: "high"}, "m · effort high"},
		{model.Settings{ReasoningEffort: "low", ReasoningTokens: 4000}, "m · effort low · thinking 4000"},
		{model.Settings{Thinking: "adaptive", ReasoningEffort: "max"}, "m · thinking adaptive · effort max"},
		{model.Settings{Verbosity: "low"}, "m · verbosity low"},
	} {
		if got := ModelLabel("m", c.s); got != c.want {
			t.Errorf("ModelLabel(%+v) = %q, want %q", c.s, got, c.want)
		}
	}
}

// A configuration (the flags' and config's settings) names the other
// settings it holds; the sheet's own (Settings alone) name none.
func TestSheetModelLabel(t *testing.T) {
	t7, seed := 0.7, int64(3)
	for _, c := range []struct {
		settings, config *model.Settings
		want             string
	}{
		{nil, nil, "m"},
		{&model.Settings{Temperature: &t7}, nil, "m"},
		{&model.Settings{Temperature: &t7}, &model.Settings{Temperature: &t7}, "m · temperature 0.7"},
		{&model.Settings{ReasoningEffort: "high", MaxTokens: 9}, &model.Settings{ReasoningEffort: "high", MaxTokens: 9, Seed: &seed, Stop: []string{"\n", "END"}},
			`m · effort high · max_tokens 9 · seed 3 · stop "\n,END"`},
	} {
		s := Sheet{ModelName: "m", Settings: c.settings, Configuration: c.config}
		if got := s.ModelLabel(); got != c.want {
			t.Errorf("ModelLabel of settings %+v, configuration %+v = %q, want %q", c.settings, c.config, got, c.want)
		}
	}
}
