package sheet

import (
	"strings"
	"testing"
)

// TestCheckComplete: a sheet lacking a question, a question's question
// section or (when graded) its answer section is refused at its line; a
// whole sheet, or one without answers in a dry run, is not.
func TestCheckComplete(t *testing.T) {
	for _, tc := range []struct {
		text   string
		graded bool
		want   string // "" for none
	}{
		{"# S\n## Q\n#### question\nx\n#### answer\ny\n", true, ""},
		{"# S\n## Q\n#### question\nx\n", false, ""},
		{"# S\n## Q\n#### question\nx\n", true, `s.md:2: question "Q" cannot be graded: it has no answer section`},
		{"# S\n\n## Half\n#### answer\nX\n", true, `s.md:3: question "Half" has no question section`},
		{"# S\n\n## Half\n#### answer\nX\n", false, `s.md:3: question "Half" has no question section`},
		{"# S\n#### question\nAnswer only.\n", true, "s.md:1: the sheet has no question"},
		{"# S\n## Q1\n#### question\nx\n#### answer\ny\n## Q2\n#### meta\n- a: b\n", true, `s.md:7: question "Q2" has no question section`},
	} {
		doc, err := Parse("s.md", []byte(tc.text), nil)
		if err != nil {
			t.Fatalf("%q: %v", tc.text, err)
		}
		err = doc.CheckComplete(tc.graded)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%q: %v", tc.text, err)
		case tc.want != "" && (err == nil || !strings.HasPrefix(err.Error(), tc.want)):
			t.Errorf("%q (graded %v): %v, want %s", tc.text, tc.graded, err, tc.want)
		}
	}
}
