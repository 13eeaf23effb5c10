package grade

import (
	"context"
	"strings"
	"testing"
)

// Check says before any answer what Grade would leave null, in Grade's
// words: a question it refuses gets a null grade whose detail (or
// error) ends with Check's error, whatever the completion.
func TestCheck(t *testing.T) {
	s := func(x string) *string { return &x }
	for _, tc := range []struct {
		grader string
		truth  *string
		meta   map[string]string
		want   string // Check's error, "" for none
	}{
		{"lime", s("Paris"), nil, ""},
		{"lime", nil, nil, "no ground truth"},
		{"lime", s(""), nil, "no ground truth"},
		{"exact", s("  \n"), nil, "no ground truth"},
		{"exact", s("2019-03"), nil, ""},
		{"choice", s("B) 6"), nil, ""},
		{"choice", s("maybe"), nil, `ground truth "maybe" names no option letter`},
		{"numeric", s("3"), map[string]string{"tolerance": "0.5"}, ""},
		{"numeric", s("3"), map[string]string{"tolerance": "abc"}, `numeric: meta tolerance "abc" is not a non-negative number`},
		{"numeric", s("3"), map[string]string{"rel_tolerance": "-1"}, `numeric: meta rel_tolerance "-1" is not a non-negative number`},
		{"numeric", s(" "), nil, "no ground truth"}, // no number: the exact grader's rule
		{"json", s(`{"a": [1]}`), nil, ""},
		{"json", s(`{'a': (1,)}`), nil, ""},
		{"json", s("Paris"), nil, `json: ground truth "Paris" is not JSON (invalid character 'P' looking for beginning of value) nor a Python literal`},
		{"json", s("[1]"), map[string]string{"json_arrays": "bag"}, `json: meta json_arrays "bag" is not order or set`},
		{"regex", s("x"), map[string]string{"pattern": `\d+`}, ""},
		{"regex", s("x"), map[string]string{"pattern": `(`}, "regex: meta pattern \"(\" does not compile: error parsing regexp: missing closing ): `(`"},
		{"regex", s("x"), nil, "regex: no pattern meta"},
		{"script", s("x"), nil, "script: no script meta"},
		{"script", s("x"), map[string]string{"script": "g.py"}, "script g.py: the sheet's folder is not known (the output names no sheet_file)"},
		{"judge", nil, nil, "no ground truth"},
		{"judge", s("x"), nil, ""}, // a judge reads any truth
	} {
		g, err := NewRegistry().New(tc.grader, Options{})
		if err != nil {
			t.Fatal(err)
		}
		in := Input{Meta: tc.meta, Question: "Which?\nA) 4\nB) 6"}
		err = Check(g, tc.truth, in)
		if got := errText(err); got != tc.want {
			t.Errorf("%s, truth %v, meta %v: Check %q, want %q", tc.grader, tc.truth, tc.meta, got, tc.want)
		}
		if tc.want == "" || tc.grader == "judge" {
			continue
		}
		c := "B"
		v, gerr := Nullable(context.Background(), g, tc.truth, &c, in)
		if v.Correct != nil || !strings.HasSuffix(v.Detail, tc.want) && errText(gerr) != tc.want {
			t.Errorf("%s, truth %v, meta %v: Grade %v %q (%v), want null saying %q", tc.grader, tc.truth, tc.meta, v.Correct, v.Detail, gerr, tc.want)
		}
	}
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
