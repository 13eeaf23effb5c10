package setting

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzResolveMeta: a question's meta section ("key: value" lines) never
// panics Resolve; a refusal is one line, and each bad value it holds
// (Errors) one line naming the sheet and a setting the meta has (or the
// reformat text "reformat: required" lacks); a
// warning is one line naming the sheet; limits are never negative; and the
// values resolved, written back as meta by each setting's Text, resolve to
// the same values (each setting's parser and writer agree).
func FuzzResolveMeta(f *testing.F) {
	f.Add("temperature: 0.2\ntop_p: 0.9\nmax_tokens: 256\nseed: 7\nstop: [\"\\n\", \"END\"]")
	f.Add("mode: agent\nagent_style: react\nmax_turns: 5\nquestion_timeout: 90s\ntoken_budget: 1000\ntool_timeout: 1.5\ntool_memory: 512MiB")
	f.Add("mode: Agent\nreformat: required\nreformat_question: \"What?\"\nreformat_format: \"@x[v]\"")
	f.Add("mode: code\ncode_extract: baseline\nseed: None\nstop: A| |B\ntemperature: warm")
	f.Add("mode: agent\nquestion_timeout: 1e300\ntool_timeout: 9223372037")
	f.Add("max_tokens: -1\ntool_memory: 9999999999G\nreformat: maybe")
	f.Fuzz(func(t *testing.T, section string) {
		if !utf8.ValidString(section) {
			return // a sheet that is not UTF-8 is refused before its meta is read (sheet.Parse)
		}
		values := map[string]string{}
		for _, line := range strings.Split(section, "\n") {
			if k, v, ok := strings.Cut(line, ":"); ok {
				values[strings.TrimSpace(k)] = v
			}
		}
		var warnings []string
		v, err := Resolve("q", func(s string) { warnings = append(warnings, s) }, meta(values))
		if err != nil {
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("refusal is not one line: %q", err)
			}
			errs := []error{err}
			if j, ok := err.(interface{ Unwrap() []error }); ok {
				errs = j.Unwrap()
			}
			for _, err := range errs {
				e, ok := err.(*Error)
				if !ok || strings.Contains(err.Error(), "\n") || !strings.HasPrefix(err.Error(), "s.md") {
					t.Fatalf("refusal is not one line of an *Error naming the sheet: %q", err)
				}
				if _, has := values[e.Name]; !has && !strings.HasPrefix(e.Name, "reformat_") {
					t.Fatalf("refusal names %s, which the meta does not have: %v", e.Name, err)
				}
			}
			return
		}
		for _, w := range warnings {
			if !strings.HasPrefix(w, "s.md: meta ") || strings.Contains(w, "\n") {
				t.Fatalf("warning is not one line naming the sheet: %q", w)
			}
		}
		s := v.Solve
		if v.Gen.MaxTokens < 0 || s.MaxTurns < 0 || s.TokenBudget < 0 || s.QuestionTimeout < 0 || s.ToolTimeout < 0 || s.ToolMemory < 0 {
			t.Fatalf("negative value resolved from %q: %+v", values, v)
		}
		back := map[string]string{}
		for _, st := range All {
			if text := st.Text(&v); text != "" {
				back[st.Name] = text
			}
		}
		if r := v.Solve.Reformat; r != nil {
			q, _ := json.Marshal(r.Question)
			fm, _ := json.Marshal(r.Format)
			back["reformat_question"], back["reformat_format"] = string(q), string(fm)
		}
		again, err := Resolve("q", nil, meta(back))
		if err != nil {
			t.Fatalf("written back as %q, it does not resolve: %v", back, err)
		}
		if len(v.Gen.Stop) == 0 {
			v.Gen.Stop = nil
		}
		if !reflect.DeepEqual(again.Gen, v.Gen) || !reflect.DeepEqual(again.Solve, v.Solve) || again.Reformat != v.Reformat {
			t.Fatalf("written back as %q, it resolves to %+v, not %+v", back, again, v)
		}
	})
}
