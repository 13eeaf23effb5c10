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
