package dsbench

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzParseLine feeds arbitrary lines to the data.json line parser. It must
// never panic, and what it accepts must be consistent: one answer per
// question, each answer's JSON valid, compact and of its kind, and the
// Python and Text forms defined.
func FuzzParseLine(f *testing.F) {
	for _, s := range []string{
		`{"id": "00000001", "name": "n", "url": "u", "txt": "", "questions": ["question6", "question7"], "answers": ["D", 1661626], "year": 2016}`,
		`{"id": "9", "questions": ["q"], "answers": [{"Q": 1, "# of words": 7, "Xth word": "ALIBI"}]}`,
		`{"id": "1", "questions": ["q"], "answers": [0.25]}`,
		`{"id": "1", "questions": ["q"], "answers": [null]}`,
		`{"id": "1", "questions": ["q"], "answers": ["a\/b"]}`,
		`{'id': '1'}`,
		`{"id": "1", "questions": ["q", "r"], "answers": [[1, "x"], "é\u00a0"]}`,
		``,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		e, err := parseLine(line)
		if err != nil {
			return
		}
		if len(e.Answers) != len(e.Questions) {
			t.Fatalf("%d answers for %d questions", len(e.Answers), len(e.Questions))
		}
		if e.ID == "" || strings.ContainsAny(e.ID, `/\`) {
			t.Fatalf("accepted id %q", e.ID)
		}
		for _, a := range e.Answers {
			if !json.Valid([]byte(a.JSON)) {
				t.Fatalf("answer JSON %q is not valid", a.JSON)
			}
			var compact bytes.Buffer
			if err := json.Compact(&compact, []byte(a.JSON)); err != nil || compact.String() != a.JSON {
				t.Fatalf("answer JSON %q is not compact", a.JSON)
			}
			first := a.JSON[0]
			ok := map[answerKind]bool{
				kindString: first == '"',
				kindObject: first == '{',
				kindArray:  first == '[',
				kindNumber: first == '-' || first >= '0' && first <= '9',
			}[a.Kind]
			if !ok {
				t.Fatalf("answer %s has kind %v", a.JSON, a.Kind)
			}
			if p := a.Python(); !utf8.ValidString(p) {
				t.Fatalf("Python() of %s is not valid UTF-8: %q", a.JSON, p)
			}
			if a.Kind != kindString && a.Text() != a.JSON {
				t.Fatalf("Text() of %s is %q", a.JSON, a.Text())
			}
		}
	})
}
