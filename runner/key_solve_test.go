package runner

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/evalmd/evalmd/model"
)

// A question's tool limits and reformat step change its answer, so they
// are part of its key; a request without them keeps the key it had before
// they existed.
func TestKeyCoversToolLimitsAndReformat(t *testing.T) {
	base := model.Solve{Mode: model.ModeAgent, Style: "tools"}
	key := func(s model.Solve) string {
		return RequestKey("m", "", model.Request{Messages: []model.Message{{Role: "user", Content: "q"}}, Solve: &s})
	}
	seen := map[string]string{key(base): "base"}
	for name, s := range map[string]model.Solve{
		"tool_timeout": {Mode: model.ModeAgent, Style: "tools", ToolTimeout: time.Minute},
		"tool_memory":  {Mode: model.ModeAgent, Style: "tools", ToolMemory: 1 << 30},
		"reformat":     {Mode: model.ModeAgent, Style: "tools", Reformat: &model.Reformat{Question: "q", Format: "@x[v]"}},
	} {
		k := key(s)
		if prev, ok := seen[k]; ok {
			t.Errorf("%s has the key of %s", name, prev)
		}
		seen[k] = name
	}
	m := solveOf(&base)
	if b, err := json.Marshal(m); err != nil || string(b) != `{"Mode":"agent","Extract":"","Style":"tools","Files":null,"MaxTurns":0,"TokenBudget":0,"QuestionTimeoutSeconds":0}` {
		t.Errorf("the key material of a request without the new fields changed: %s, %v", b, err)
	}
}
