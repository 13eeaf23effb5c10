package grade

import (
	"context"
	"strings"
	"testing"
)

func TestRegexGrader(t *testing.T) {
	m := func(kv ...string) map[string]string {
		out := map[string]string{}
		for i := 0; i < len(kv); i += 2 {
			out[kv[i]] = kv[i+1]
		}
		return out
	}
	for _, tc := range []struct {
		name, truth, answer string
		meta                map[string]string
		want                bool
		detail              string
	}{
		{"found", "x", "The year was 1969, I think.", m("pattern", `\b19\d\d\b`), true, "found at byte 13"},
		{"not found", "x", "The year was 2001.", m("pattern", `\b19\d\d\b`), false, "not found in the answer"},
		{"whole", "x", "  1969\n", m("pattern", `\d{4}`, "match", "whole"), true, "matches the whole answer"},
		{"whole refuses a part", "x", "in 1969", m("pattern", `\d{4}`, "match", "whole"), false, "does not match the whole answer"},
		{"whole anchors alternation", "x", "yes or no", m("pattern", `yes|no`, "match", "whole"), false, "does not match"},
		{"case by flag", "x", "PARIS", m("pattern", `(?i)paris`), true, "found"},
		{"group extracts, truth compared", "42", "Answer: 42 (approx)", m("pattern", `Answer:\s*(\S+)`), true, `extracted "42"`},
		{"group extracts, truth differs", "42", "Answer: 41", m("pattern", `Answer:\s*(\S+)`), false, `extracted "41"; exact: "41" vs "42"`},
		{"group, no match", "42", "no idea", m("pattern", `Answer:\s*(\S+)`), false, "not found"},
		{"unused optional group", "", "Answer", m("pattern", `Answer(:)?`), false, "no ground truth"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v, err := regex{}.Grade(context.Background(), Input{Truth: tc.truth, Completion: tc.answer, Meta: tc.meta})
			if err != nil || tc.detail != "no ground truth" && (v.Correct == nil || *v.Correct != tc.want) || !strings.Contains(v.Detail, tc.detail) {
				t.Errorf("Grade = %s %q (%v), want %v with %q", limeFmtBool(v.Correct), v.Detail, err, tc.want, tc.detail)
			}
		})
	}
}

func TestRegexCheck(t *testing.T) {
	for _, tc := range []struct {
		meta map[string]string
		want string
	}{
		{map[string]string{"pattern": `\d+`}, ""},
		{map[string]string{"pattern": `\d+`, "match": "WHOLE"}, ""},
		{nil, "regex: no pattern meta"},
		{map[string]string{"pattern": `(\d+`}, "regex: meta pattern \"(\\\\d+\" does not compile: error parsing regexp: missing closing ): `(\\d+`"},
		{map[string]string{"pattern": `(a)\1`}, "does not compile: error parsing regexp: invalid escape sequence: `\\1`"},
		{map[string]string{"pattern": `a`, "match": "start"}, `regex: meta match "start" is not find or whole`},
	} {
		got := errText(regex{}.Check(Input{Truth: "t", Meta: tc.meta}))
		if tc.want == "" && got != "" || !strings.Contains(got, tc.want) {
			t.Errorf("Check(%v) = %q, want %q", tc.meta, got, tc.want)
		}
	}
}

// Accepted answers reach the regex grader as its truth: with a group, an
// accepted answer makes an extraction right that the truth does not.
func TestRegexAccepted(t *testing.T) {
	meta := map[string]string{"pattern": `is (\w+)`}
	in := Input{Completion: "The capital is Bombay", Meta: meta}
	for truth, want := range map[string]bool{"Mumbai": false, "Bombay": true} {
		in.Truth = truth
		v, _ := regex{}.Grade(context.Background(), in)
		if v.Correct == nil || *v.Correct != want {
			t.Errorf("truth %s: %s %q, want %v", truth, limeFmtBool(v.Correct), v.Detail, want)
		}
	}
}
