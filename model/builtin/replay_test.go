package builtin

import (
	"context"
	"errors"
	"github.com/evalmd/evalmd/model"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func writeFile(t *testing.T, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "responses.jsonl")
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestReplay(t *testing.T) {
	path := writeFile(t, strings.Join([]string{
		`{"name": "q1", "response": "first"}`,
		`{"name": "q1", "response": "second"}`, // first non-empty wins
		``,
		`{"id": 7, "response": ""}`,
		`{"id": 7, "response": "seven"}`, // an empty one does not count
		`{"id": "x-9", "response": "nine"}`,
		`{"name": "both", "id": "b", "response": "by name or id"}`,
		`{"name": "blank", "response": ""}`,
		`  {"name": "spaced", "response": "ok"}  `,
	}, "\n"))
	m, err := newModel("replay:"+path, model.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if m.Name() != "replay:"+path {
		t.Errorf("Name() = %q", m.Name())
	}
	for _, tc := range []struct {
		q    model.QuestionRef
		want string
		none bool
	}{
		{q: model.QuestionRef{Name: "q1"}, want: "first"},
		{q: model.QuestionRef{Name: "other", ID: "7"}, want: "seven"},
		{q: model.QuestionRef{ID: "x-9"}, want: "nine"},
		{q: model.QuestionRef{Name: "both"}, want: "by name or id"},
		{q: model.QuestionRef{Name: "zzz", ID: "b"}, want: "by name or id"},
		{q: model.QuestionRef{Name: "blank"}, none: true}, // empty is no answer (DABench counts only non-empty ones)
		{q: model.QuestionRef{Name: "spaced"}, want: "ok"},
		{q: model.QuestionRef{Name: "missing", ID: "8"}, none: true},
		{q: model.QuestionRef{}, none: true},
	} {
		resp, err := model.Ask(context.Background(), m, ask("question text", tc.q))
		if tc.none {
			if !errors.Is(err, model.ErrNoAnswer) {
				t.Errorf("%+v: %v, want model.ErrNoAnswer", tc.q, err)
			}
			continue
		}
		if err != nil || resp.Text != tc.want {
			t.Errorf("%+v: %q, %v; want %q", tc.q, resp.Text, err, tc.want)
		}
	}
}

func TestReplayErrorsNameFileAndLine(t *testing.T) {
	for _, tc := range []struct {
		content, want string
	}{
		{"{\"name\": \"a\", \"response\": \"x\"}\n\n{not json}\n", ":3: not a JSON object"},
		{"{\"name\": \"a\"}\n", ":1: no \"response\""},
		{"{\"response\": \"x\"}\n", ":1: neither \"name\" nor \"id\""},
		{"{\"id\": [1], \"response\": \"x\"}\n", ":1: \"id\" is neither"},
		{"{\"name\": \"a\", \"response\": \"x\"} {\"name\": \"b\"}\n", ":1: more than one"},
		{"[1, 2]\n", ":1: not a JSON object"},
	} {
		path := writeFile(t, tc.content)
		_, err := newModel("replay:"+path, model.Options{})
		if err == nil || !strings.Contains(err.Error(), path+tc.want) {
			t.Errorf("%q: error %v, want one containing %q", tc.content, err, path+tc.want)
		}
	}
}

// A replay file's errors say where and what was expected, never what the
// file holds (it may not be a replay file at all: a key, /etc/shadow): no
// byte of the line is quoted, not even the first character.
func TestReplayErrorsEchoNothing(t *testing.T) {
	for _, tc := range []struct{ content, want string }{
		{"SECRET-KEY-MATERIAL\n", `:1: not a JSON object {"name" or "id", "response"}`},
		{"root:x:0:0:root:/root:/bin/bash\n", `:1: not a JSON object {"name" or "id", "response"}`},
		{`{"name": "a", "response": SECRET}` + "\n", `:1: not a JSON object {"name" or "id", "response"}`},
		{`{"name": "a", "response": 31415926}` + "\n", `:1: "response" is a number, not a string`},
		{`{"name": "a", "response": {"SECRET": 1}}` + "\n", `:1: "response" is an object, not a string`},
		{`{"id": {"SECRET": 1}, "response": "x"}` + "\n", `:1: "id" is neither a string nor a number, but an object`},
		{`{"name": "a", "response": "x"}SECRET` + "\n", `:1: more than one JSON value on the line`},
	} {
		path := writeFile(t, tc.content)
		_, err := newModel("replay:"+path, model.Options{})
		if err == nil || !strings.Contains(err.Error(), path+tc.want) {
			t.Errorf("%q: error %v, want one containing %q", tc.content, err, path+tc.want)
			continue
		}
		rest := strings.TrimPrefix(err.Error(), `model "replay:`+path+`": `+path)
		for _, leak := range []string{"SECRET", "31415926", "'S'", "'r'", "root"} {
			if strings.Contains(rest, leak) {
				t.Errorf("%q: the error echoes %q: %v", tc.content, leak, err)
			}
		}
	}
}

// With IDIsNumber (DABench), only a JSON number id answers: the string "6"
// does not answer question 6, as in eval_closed_form.py.
func TestReplayNumericIDs(t *testing.T) {
	path := filepath.Join(t.TempDir(), "r.jsonl")
	os.WriteFile(path, []byte(`{"id": "6", "response": "six as text"}`+"\n"+`{"id": 7, "response": "seven"}`+"\n"), 0o644)
	m, err := newModel("replay:"+path, model.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		id     string
		strict bool
		want   string // "" means no answer
	}{
		{"6", false, "six as text"}, {"6", true, ""}, {"7", false, "seven"}, {"7", true, "seven"},
	} {
		r, err := model.Ask(context.Background(), m, model.Task{Question: model.QuestionRef{Name: "q", ID: tc.id, IDIsNumber: tc.strict}})
		if tc.want == "" {
			if !errors.Is(err, model.ErrNoAnswer) {
				t.Errorf("id %s strict %v: %v, want model.ErrNoAnswer", tc.id, tc.strict, err)
			}
		} else if err != nil || r.Text != tc.want {
			t.Errorf("id %s strict %v: %q %v", tc.id, tc.strict, r.Text, err)
		}
	}
}

// Unmatched names the lines no question of the run asks for: by name, by a
// string id, by a number id (a question keyed by number is not answered by
// the string "7").
func TestReplayUnmatched(t *testing.T) {
	path := writeFile(t, strings.Join([]string{
		`{"name": "q1", "response": "a"}`,
		`{"name": "renamed", "response": "b"}`,
		`{"id": 7, "response": "c"}`,
		`{"id": "8", "response": "d"}`,
		`{"id": "9", "response": "e"}`,
		`{"name": "x", "id": "10", "response": "f"}`,
	}, "\n"))
	m, err := newModel("replay:"+path, model.Options{})
	if err != nil {
		t.Fatal(err)
	}
	got := m.(interface {
		Unmatched([]model.QuestionRef) []string
	}).Unmatched([]model.QuestionRef{{Name: "q1"}, {Name: "a", ID: "7", IDIsNumber: true}, {Name: "b", ID: "9", IDIsNumber: true}, {ID: "10"}, {Name: "c", ID: "8"}})
	want := []string{path + `:2 (name "renamed")`, path + `:5 (id "9")`}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("Unmatched = %q, want %q", got, want)
	}
}
