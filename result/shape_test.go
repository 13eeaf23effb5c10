package result

import (
	"strings"
	"testing"
)

// "questions": null is a sheet without questions, as evalmd wrote it
// before it wrote [] (such files exist): read, as agg's scanner reads it,
// and written back as [].
func TestParseNullQuestions(t *testing.T) {
	f, err := Parse([]byte(`{"sheet":{"name":"s"},"questions":null}`))
	if err != nil {
		t.Fatal(err)
	}
	if f.Questions == nil || len(f.Questions) != 0 {
		t.Errorf("questions %#v, want none", f.Questions)
	}
	data, err := f.Marshal()
	if err != nil || !strings.Contains(string(data), `"questions": []`) {
		t.Errorf("written back as:\n%s (%v)", data, err)
	}
}

// A JSON document of the wrong shape is one line saying what is wrong,
// never a recovered panic; Python's NaN names the field holding it.
func TestParseWrongShape(t *testing.T) {
	for _, tc := range []struct {
		data, want string
	}{
		{`[1,2]`, ":1: not an output file: want a JSON object, found an array"},
		{`null`, ":1: not an output file: want a JSON object, found null"},
		{`"x"`, ":1: not an output file: want a JSON object, found a string"},
		{`{"sheet":null}`, ":1: not an output file: sheet: want a JSON object, found null"},
		{`{"sheet":[]}`, ":1: not an output file: sheet: want a JSON object, found an array"},
		{`{"sheet":{"name":"s"},"questions":{}}`, ":1: not an output file: questions: want an array, found {"},
		{`{"sheet":{"name":"s"},"questions":[null]}`, ":1: not an output file: questions: question 1: want a JSON object, found null"},
		{`{"sheet":{"name":"s"},"questions":[{"name":"q","grade":"yes"}]}`, `questions: question 1: grade: json: cannot unmarshal string`},
		{"{\"sheet\": {\"name\": \"s\"},\n \"questions\": [{\"name\": \"q\",\n \"eval_time\": NaN}]}",
			`:3: not an output file: field "eval_time" holds NaN or Infinity, which is not a JSON number`},
		{"{\"sheet\": {\"name\": \"s\"}, \"questions\": [{\"cost\": -Infinity}]}", `field "cost" holds NaN or Infinity`},
		{`{}`, `:1: not an output file: no "sheet" object or "questions" array`},
		{`{"sheet":{"name":"s"},"questions":[]} x`, `invalid character 'x' looking for beginning of value`},
		{`{"sheet":{"name":"s"},"questions":[]} {}`, `data after the top-level object: {`},
		// agg's scanner does not count these either (FuzzDecodeAgreesWithParse).
		{`{"sheet":{"name":"s"}}`, `:1: not an output file: no "sheet" object or "questions" array`},
		{`{"questions":[]}`, `:1: not an output file: no "sheet" object or "questions" array`},
	} {
		_, err := Parse([]byte(tc.data))
		if err == nil {
			t.Errorf("%s: no error", tc.data)
			continue
		}
		msg := err.Error()
		if !strings.Contains(msg, tc.want) || strings.Contains(msg, "PANIC") || strings.Contains(msg, "\n") {
			t.Errorf("%s:\n got %q\nwant %q", tc.data, msg, tc.want)
		}
	}
}

// A run id is never a path: CheckRunID refuses one, and FileName keeps
// any run id inside the output's folder.
func TestRunIDNotAPath(t *testing.T) {
	for _, id := range []string{"x/../../../trav", "..", "../x", `a\b`, ".hidden", "a b", strings.Repeat("a", 65)} {
		if CheckRunID(id) == nil {
			t.Errorf("CheckRunID(%q) accepted it", id)
		}
		if name := FileName("input-s.md", "m", id); strings.ContainsAny(name, `/\`) || strings.Contains(name, "..") {
			t.Errorf("FileName with run id %q = %q", id, name)
		}
	}
	for _, id := range []string{"", "09fa", "run-1_b.2"} {
		if err := CheckRunID(id); err != nil {
			t.Errorf("CheckRunID(%q): %v", id, err)
		}
	}
	if got := FileName("input-s.md", "m", "09fa"); got != "output-s-m-09fa.json" {
		t.Errorf("FileName = %q", got)
	}
}
