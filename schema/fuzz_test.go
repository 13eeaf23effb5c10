package schema

import (
	"reflect"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/evalmd/evalmd/internal/testkit/shared"
)

// FuzzParse: a schema file never panics the parser; a refusal is one line
// naming the file and a line in it; a schema accepted holds what the
// parser checks (headers 1 to 6, sheet and question apart, a "question"
// section), and written back as YAML it parses to the same schema.
func FuzzParse(f *testing.F) {
	f.Add(defaultYAML)
	for _, s := range shared.Seeds(f, 1<<14, "corpora", "lime", "md-schema.yaml") {
		f.Add(s)
	}
	f.Add([]byte("sheet:\n  md_header: 1\n  children: {md_header: 3, options: [intro]}\nquestion:\n  md_header: 2\n  children: {md_header: 3, options: [question, answer]}\nescape_headers: true\n"))
	f.Add([]byte("sheet: {md_header: 7}\n"))
	f.Add([]byte("sheet:\n  md_headr: 1\n"))
	f.Add([]byte("- a\n- b\n"))
	f.Add([]byte("a: &x [*x]\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := parse("s.yaml", data)
		if err != nil {
			msg := err.Error()
			if !strings.HasPrefix(msg, "s.yaml:") || strings.Contains(msg, "\n") {
				t.Fatalf("refusal is not one line naming the file: %q", msg)
			}
			return
		}
		for _, l := range []Level{s.Sheet, s.Question} {
			if l.MdHeader < 1 || l.MdHeader > 6 || l.Children.MdHeader < 1 || l.Children.MdHeader > 6 {
				t.Fatalf("accepted header depths outside 1-6: %+v", s)
			}
		}
		if s.Sheet.MdHeader == s.Question.MdHeader || !s.Question.Has("question") {
			t.Fatalf("accepted an unusable schema: %+v", s)
		}
		out, err := yaml.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		back, err := parse("back.yaml", out)
		if err == nil {
			// No options and an empty list of them are one schema.
			for _, l := range []*Level{&s.Sheet, &s.Question, &back.Sheet, &back.Question} {
				if len(l.Children.Options) == 0 {
					l.Children.Options = nil
				}
			}
		}
		if err != nil || !reflect.DeepEqual(back, s) {
			t.Fatalf("written back, it reads differently: %v\n%s\n%+v\n%+v", err, out, s, back)
		}
	})
}
