package schema

import (
	"strings"
	"testing"

	"github.com/evalmd/evalmd/internal/testkit/shared"
)

func TestDefault(t *testing.T) {
	s := Default()
	if s.Sheet.MdHeader != 1 || s.Question.MdHeader != 2 || s.Question.Children.MdHeader != 4 {
		t.Fatalf("default schema headers: %+v", s)
	}
	for _, o := range []string{"meta", "answer", "templates", "question", "system", "context", "files"} {
		if !s.Question.Has(o) {
			t.Errorf("question lacks %q", o)
		}
	}
	if s.Sheet.Has("answer") {
		t.Error("sheet level should not have answer")
	}
}

// LIME's own schema file loads as it is.
func TestLIMESchema(t *testing.T) {
	s, err := Load(shared.Path(t, "corpora", "lime", "md-schema.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if s.Sheet.Has("system") || !s.Question.Has("answer") {
		t.Errorf("LIME schema options: %+v", s)
	}
}

func TestParseErrors(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"", "x.yaml:1: empty schema"},
		{"sheet:\n  md_header: 1\n  colour: red\n", "x.yaml:3: invalid schema: unknown key \"colour\""},
		{"sheet: [\n", "x.yaml:1: invalid schema: did not find expected node content"},
		{"sheet:\n  md_header: one\n", "x.yaml:2: invalid schema: cannot unmarshal !!str `one` into int"},
		{"sheet:\n  md_header: x\n  bogus: 1\nfoo: 2\n", "x.yaml:2: invalid schema: cannot unmarshal !!str `x` into int (and 2 more errors)"},
		{"sheet: {md_header: 1, children: {md_header: 4}}\nquestion: {md_header: 1, children: {md_header: 4, options: [question]}}\n", "x.yaml:2: sheet and question use the same md_header"},
		{"sheet: {md_header: 1, children: {md_header: 4}}\nquestion: {md_header: 2, children: {md_header: 4, options: [meta]}}\n", "x.yaml:2: question.children.options must list \"question\""},
		{"sheet:\n  children: {md_header: 4}\n  md_header: 9\n", "x.yaml:3: sheet.md_header must be 1 to 6"},
	} {
		_, err := parse("x.yaml", []byte(tc.in))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("parse(%q) = %v, want %q", tc.in, err, tc.want)
		}
		if err != nil && strings.Contains(err.Error(), "\n") {
			t.Errorf("parse(%q): error is more than one line: %q", tc.in, err)
		}
	}
}
