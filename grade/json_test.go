package grade

import (
	"context"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestJSONGrader(t *testing.T) {
	set := map[string]string{"json_arrays": "set"}
	for _, tc := range []struct {
		name, truth, answer string
		meta                map[string]string
		want                bool
		detail              string // in the detail
	}{
		{"member order", `{"a": 1, "b": "x"}`, `{"b": "x", "a": 1}`, nil, true, "equal"},
		{"nested arrays", `{"m": [[1, 2], [3]]}`, `{"m": [[1, 2], [3]]}`, nil, true, "equal"},
		{"nested arrays differ", `{"m": [[1, 2], [3]]}`, `{"m": [[1, 2], [4]]}`, nil, false, "$.m[1][0]: 4 != 3"},
		{"array order matters", `[1, 2, 3]`, `[3, 2, 1]`, nil, false, "$[0]: 3 != 1"},
		{"arrays as sets", `[1, 2, 3]`, `[3, 2, 1]`, set, true, "equal"},
		{"sets keep counts", `[1, 1, 2]`, `[1, 2, 2]`, set, false, "no element matches 1"},
		{"set of objects", `[{"k": 1}, {"k": 2}]`, `[{"k": 2}, {"k": 1}]`, set, true, "equal"},
		{"length", `[1, 2]`, `[1, 2, 3]`, nil, false, "$: 3 elements != 2"},
		{"first difference", `{"Q": 1}`, `{"Q": 2}`, nil, false, "$.Q: 2 != 1"},
		{"name no identifier", `{"# of words": 7}`, `{"# of words": 8}`, nil, false, `$["# of words"]: 8 != 7`},
		{"missing member", `{"a": 1, "b": 2}`, `{"a": 1}`, nil, false, "$.b: missing (want 2)"},
		{"extra member", `{"a": 1}`, `{"a": 1, "z": 0}`, nil, false, "$.z: not in the truth"},
		{"default tolerance", `{"x": 0.3}`, `{"x": 0.30000000000000004}`, nil, true, "equal"},
		{"out of default tolerance", `{"x": 0.3}`, `{"x": 0.31}`, nil, false, "$.x: 0.31 != 0.3"},
		{"tolerance", `{"x": 0.3}`, `{"x": 0.31}`, map[string]string{"tolerance": "0.05"}, true, "equal"},
		{"rel_tolerance", `{"x": 1000}`, `{"x": 1009}`, map[string]string{"rel_tolerance": "0.01"}, true, "equal"},
		{"strings as exact", `{"city": "New  York"}`, `{"city": " new york"}`, nil, true, "equal"},
		{"strings differ", `{"city": "Paris"}`, `{"city": "Paris."}`, nil, false, `$.city: "Paris." != "Paris"`},
		{"types never convert", `{"n": 7}`, `{"n": "7"}`, nil, false, "a string, not a number"},
		{"null and false", `{"a": null}`, `{"a": false}`, nil, false, "a boolean, not null"},
		{"fenced reply", `{"a": 1}`, "Here it is:\n```json\n{\"a\": 1}\n```\nDone.", nil, true, "(fenced)"},
		{"unclosed fence", `{"a": 1}`, "```json\n{\"a\": 1}\n", nil, true, "(fenced)"},
		{"bare in text", `{"a": [1, 2]}`, `The answer is {"a": [1, 2]} as computed.`, nil, true, "(at byte 14)"},
		{"brace before the value", `{"a": 1}`, `Use {braces} like {"a": 1}.`, nil, true, "at byte 18"},
		{"scalar truth", `42`, ` 42 `, nil, true, "(whole)"},
		{"non-JSON reply", `{"a": 1}`, `I think a is one.`, nil, false, `json: no JSON value in the answer; want {"a":1}`},
		{"python truth", `{'Q': 1, '# of words': 7}`, `{"# of words": 7, "Q": 1}`, nil, true, "equal"},
		{"python reply", `{"ok": true, "v": null}`, `Result: {'ok': True, 'v': None}`, nil, true, "Python literal at byte 8"},
		{"python dict's inner list", `{"Q": 1, "n": [1, 2]}`, `So {'Q': 1, 'n': [1, 2]}.`, nil, true, "Python literal at byte 3"},
		{"python tuple is array", `{'p': (1, 2)}`, `{"p": [1, 2]}`, nil, true, "equal"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := Input{Truth: tc.truth, Completion: tc.answer, Meta: tc.meta}
			if err := (jsonGrader{}).Check(in); err != nil {
				t.Fatalf("Check: %v", err)
			}
			v, err := jsonGrader{}.Grade(context.Background(), in)
			if err != nil || v.Correct == nil || *v.Correct != tc.want || !strings.Contains(v.Detail, tc.detail) {
				t.Errorf("Grade = %s %q (%v), want %v with %q", limeFmtBool(v.Correct), v.Detail, err, tc.want, tc.detail)
			}
		})
	}
}

func TestJSONCheck(t *testing.T) {
	for _, tc := range []struct {
		truth string
		meta  map[string]string
		want  string // in the error; "" none
	}{
		{`{"a": 1}`, nil, ""},
		{"```json\n[1, 2]\n```", nil, ""},
		{`{'a': 'it''s'}`, nil, "is not JSON"},
		{`Paris`, nil, `json: ground truth "Paris" is not JSON`},
		{`{"a": 1} and more`, nil, "is not JSON"},
		{`  `, nil, "no ground truth"},
		{`[1]`, map[string]string{"json_arrays": "bag"}, `json: meta json_arrays "bag" is not order or set`},
		{`[1]`, map[string]string{"tolerance": "x"}, `json: numeric: meta tolerance "x"`},
	} {
		err := jsonGrader{}.Check(Input{Truth: tc.truth, Meta: tc.meta})
		if got := errText(err); tc.want == "" && got != "" || !strings.Contains(got, tc.want) {
			t.Errorf("Check(%q, %v) = %q, want %q", tc.truth, tc.meta, got, tc.want)
		}
		if tc.want == "" {
			continue
		}
		// Grade leaves the same question null, saying why.
		v, _ := jsonGrader{}.Grade(context.Background(), Input{Truth: tc.truth, Meta: tc.meta, Completion: "[1]"})
		if v.Correct != nil || v.Detail != errText(err) {
			t.Errorf("Grade(%q) = %s %q, want null %q", tc.truth, limeFmtBool(v.Correct), v.Detail, errText(err))
		}
	}
}

func TestPyParse(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`{'Q': 1, '# of words': 7}`, `{"# of words":7,"Q":1}`},
		{`{"a": [1, 2.5, -3e2, .5], 'b': (True, False, None)}`, `{"a":[1,2.5,-3e2,0.5],"b":[true,false,null]}`},
		{`{1: 'one', 2.0: "two"}`, `{"1":"one","2.0":"two"}`},
		{`['it\'s', "a\tb", u'\u00e9', r'\d+', '''x''']`, `["it's","a\tb","é","\\d+","x"]`},
		{`{1, 2, 3}`, `[1,2,3]`},
		{`[1, 2,]`, `[1,2]`},
		{`{}`, `{}`},
		{`()`, `[]`},
		{`1_000`, `1000`},
	} {
		v, err := pyParse(tc.in)
		if err != nil {
			t.Errorf("pyParse(%q): %v", tc.in, err)
			continue
		}
		if got := jsonText(v); got != tc.want {
			t.Errorf("pyParse(%q) = %s, want %s", tc.in, got, tc.want)
		}
	}
	for _, bad := range []string{`{'a': }`, `[1 2]`, `{'a': 1`, `'open`, `Truest`, `{1, 'a': 2}`, `{'a': 1, 2}`, `[1] x`, strings.Repeat("[", 2000), `1+2j`, `-`} {
		if v, err := pyParse(bad); err == nil {
			t.Errorf("pyParse(%q) = %v, want an error", bad, v)
		}
	}
}

// FuzzJSONFind checks that the finder never panics, and that what it finds
// is a value the grader compares equal to itself and finds again in its
// own JSON text.
func FuzzJSONFind(f *testing.F) {
	for _, s := range []string{
		`{"a": 1}`, "```json\n[1, 2]\n```", `text {"a": [1, {"b": null}]} more`, `{'Q': 1, 'x': (1, 'y')}`,
		`[[[[`, `{"a": "\u00e9"}`, "```\n{'a': True}\n```", `{"a": 1e999}`, `["\ud800"]`, `{"a":1,"a":2}`,
	} {
		f.Add(s)
	}
	opt, _ := jsonOptionsOf(nil)
	f.Fuzz(func(t *testing.T, s string) {
		v, how, ok := jsonFind(s)
		if !ok {
			return
		}
		if d := opt.diff("$", v, v); d != "" {
			t.Fatalf("jsonFind(%q) (%s) = %v, unequal to itself: %s", s, how, v, d)
		}
		text := jsonText(v)
		if strings.HasSuffix(text, "...") || !utf8.ValidString(s) {
			return // clipped, or invalid bytes written again as U+FFFD
		}
		again, _, ok := jsonFind(text)
		if !ok {
			t.Fatalf("jsonFind(%q) (%s) = %s, which is not found again", s, how, text)
		}
		if d := opt.diff("$", again, v); d != "" {
			t.Fatalf("jsonFind(%q) = %s, found again unequal: %s", s, text, d)
		}
	})
}
