package model

import (
	"fmt"
	"strings"
	"testing"
)

// A setting LIME could not parse is ignored with a word (LIME's
// extract_gen_params ignores it; issue 12, item 7); stop takes a JSON array
// so "\n" can be said (item 27).
func TestSettingsFromMeta(t *testing.T) {
	for _, tc := range []struct {
		meta     map[string]string
		want     string // fmt of the settings
		problems []string
	}{
		{meta: map[string]string{"seed": "None", "stop": "None", "temperature": "0.5"}, want: "t=0.5 p=- max=0 seed=- stop=[]", problems: []string{"seed", "stop"}},
		{meta: map[string]string{"temperature": "warm", "max_tokens": "-5", "top_p": "1"}, want: "t=- p=1 max=0 seed=- stop=[]", problems: []string{"max_tokens", "temperature"}},
		{meta: map[string]string{"seed": "7", "max_tokens": "50"}, want: "t=- p=- max=50 seed=7 stop=[]"},
		{meta: map[string]string{"stop": `["\n", "END"]`}, want: `t=- p=- max=0 seed=- stop=["\n" "END"]`},
		{meta: map[string]string{"stop": `"\n\n"`}, want: `t=- p=- max=0 seed=- stop=["\n\n"]`},
		{meta: map[string]string{"stop": `END|STOP`}, want: `t=- p=- max=0 seed=- stop=["END" "STOP"]`},
		{meta: map[string]string{"stop": `[1, 2]`}, want: `t=- p=- max=0 seed=- stop=[]`, problems: []string{"stop"}},
	} {
		s, problems := SettingsFromMeta(tc.meta)
		if got := fmtSettings(s); got != tc.want {
			t.Errorf("%v: %s, want %s", tc.meta, got, tc.want)
		}
		var keys []string
		for _, p := range problems {
			keys = append(keys, p.Key)
			if !strings.Contains(p.Msg, "ignored") {
				t.Errorf("%v: problem %q does not say the value is ignored", tc.meta, p.Msg)
			}
		}
		if strings.Join(keys, ",") != strings.Join(tc.problems, ",") {
			t.Errorf("%v: problems %v, want %v", tc.meta, keys, tc.problems)
		}
	}
}

func fmtSettings(s Settings) string {
	f := func(p *float64) string {
		if p == nil {
			return "-"
		}
		return fmt.Sprint(*p)
	}
	seed := "-"
	if s.Seed != nil {
		seed = fmt.Sprint(*s.Seed)
	}
	stop := "[]"
	if len(s.Stop) > 0 {
		stop = fmt.Sprintf("%q", s.Stop)
	}
	return fmt.Sprintf("t=%s p=%s max=%d seed=%s stop=%s", f(s.Temperature), f(s.TopP), s.MaxTokens, seed, stop)
}
