package builtin

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/evalmd/evalmd/internal/readfile"
	"github.com/evalmd/evalmd/model"
)

// replayModel answers from a JSON Lines file of responses made elsewhere,
// so they are graded and aggregated here. Each line is an object with a
// "response" and a "name" (matching the question name) or an "id" (matching
// the question's id meta; a string or a number). For each key the first
// non-empty response counts, as DABench's own evaluation does; a key whose
// responses are all empty answers "".
type replayModel struct {
	name   string
	path   string
	byName map[string]string
	byID   map[string]string
	byNum  map[string]string // ids that were JSON numbers, for IDIsNumber
	lines  []replayKey       // every line's keys, for Unmatched
}

// replayKey is what one line of a replay file answers.
type replayKey struct {
	line  int
	name  string
	id    string
	idNum bool // the id was a JSON number
}

// replayLine is one line of a replay file.
type replayLine struct {
	Name     *string         `json:"name"`
	ID       json.RawMessage `json:"id"`
	Response json.RawMessage `json:"response"`
}

// maxReplayLine bounds one line of a replay file; responses may be long.
const maxReplayLine = 64 << 20

func newReplay(name, path string) (*replayModel, error) {
	if path == "" {
		return nil, fmt.Errorf("model %q: want replay:FILE.jsonl", name)
	}
	f, err := readfile.Open(path)
	if err != nil {
		return nil, fmt.Errorf("model %q: %w", name, err)
	}
	defer f.Close()
	m, err := readReplay(f, path)
	if err != nil {
		return nil, fmt.Errorf("model %q: %w", name, err)
	}
	m.name = name
	return m, nil
}

// readReplay reads a replay file; errors name path:line.
func readReplay(r io.Reader, path string) (*replayModel, error) {
	m := &replayModel{path: path, byName: map[string]string{}, byID: map[string]string{}, byNum: map[string]string{}}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), maxReplayLine)
	for n := 1; sc.Scan(); n++ {
		line := bytes.TrimSpace(sc.Bytes())
		if n == 1 {
			line = bytes.TrimPrefix(line, []byte("\ufeff")) // a BOM from Windows editors
		}
		if len(line) == 0 {
			continue
		}
		// Errors say what was expected and never quote the line: the
		// file may be any file (a key, /etc/shadow), and would be shown.
		var l replayLine
		dec := json.NewDecoder(bytes.NewReader(line))
		if err := dec.Decode(&l); err != nil {
			var te *json.UnmarshalTypeError
			if errors.As(err, &te) && te.Field != "" {
				return nil, fmt.Errorf("%s:%d: %q is %s, not a string", path, n, te.Field, article(te.Value))
			}
			return nil, fmt.Errorf("%s:%d: not a JSON object {\"name\" or \"id\", \"response\"}", path, n)
		}
		if dec.More() {
			return nil, fmt.Errorf("%s:%d: more than one JSON value on the line", path, n)
		}
		// A null response is no answer, as DABench's script reads it; a
		// line without the key is a mistake.
		if len(l.Response) == 0 {
			return nil, fmt.Errorf("%s:%d: no \"response\"", path, n)
		}
		var resp string
		if string(l.Response) != "null" {
			if err := json.Unmarshal(l.Response, &resp); err != nil {
				return nil, fmt.Errorf("%s:%d: \"response\" is %s, not a string", path, n, jsonKind(l.Response))
			}
		}
		id, err := replayID(l.ID)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %w", path, n, err)
		}
		if (l.Name == nil || *l.Name == "") && id == "" {
			return nil, fmt.Errorf("%s:%d: neither \"name\" nor \"id\"", path, n)
		}
		key := replayKey{line: n, id: id, idNum: id != "" && !bytes.HasPrefix(bytes.TrimSpace(l.ID), []byte(`"`))}
		if l.Name != nil {
			key.name = *l.Name
		}
		m.lines = append(m.lines, key)
		if key.name != "" {
			keepFirstNonEmpty(m.byName, key.name, resp)
		}
		if id != "" {
			keepFirstNonEmpty(m.byID, id, resp)
			if key.idNum {
				keepFirstNonEmpty(m.byNum, id, resp)
			}
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return m, nil
}

// replayID reads an id given as a string or a number (DABench ids are
// numbers; a question's id meta is text, so 7 and "7" are the same id).
func replayID(raw json.RawMessage) (string, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return "", nil
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s, nil
	}
	var n json.Number
	if json.Unmarshal(raw, &n) == nil {
		return n.String(), nil
	}
	return "", fmt.Errorf("\"id\" is neither a string nor a number, but %s", jsonKind(raw))
}

// jsonKind names the kind of a JSON value ("an object", "a number"), to
// say what a line holds without quoting it.
func jsonKind(raw json.RawMessage) string {
	b := bytes.TrimSpace(raw)
	if len(b) == 0 {
		return "nothing"
	}
	switch c := b[0]; {
	case c == '{':
		return "an object"
	case c == '[':
		return "an array"
	case c == '"':
		return "a string"
	case c == 't' || c == 'f':
		return "a boolean"
	case c == 'n':
		return "null"
	}
	return "a number"
}

// article is a JSON type's name as json.UnmarshalTypeError gives it
// ("number", "object"), with its article.
func article(kind string) string {
	switch kind {
	case "object", "array":
		return "an " + kind
	}
	return "a " + kind
}

// keepFirstNonEmpty records resp for key unless a non-empty one is there.
func keepFirstNonEmpty(m map[string]string, key, resp string) {
	if old, ok := m[key]; ok && old != "" {
		return
	}
	m[key] = resp
}

// Unmatched lists the lines of the file that answer none of qs (the
// questions of the whole run), as "FILE:LINE (name "x")" or "(id 7)", in
// file order: Complete never asks for them, so without a word they would
// be dropped (a renamed question, a file made for other sheets).
func (m *replayModel) Unmatched(qs []model.QuestionRef) []string {
	names := map[string]bool{}
	textIDs := map[string]bool{} // answered by a string or a number id
	numIDs := map[string]bool{}  // IDIsNumber: answered by a number id only
	for _, q := range qs {
		names[q.Name] = true
		switch {
		case q.ID == "":
		case q.IDIsNumber:
			numIDs[q.ID] = true
		default:
			textIDs[q.ID] = true
		}
	}
	var out []string
	for _, k := range m.lines {
		if (k.name != "" && names[k.name]) || (k.id != "" && (textIDs[k.id] || k.idNum && numIDs[k.id])) {
			continue
		}
		what := fmt.Sprintf("name %q", k.name)
		if k.name == "" {
			what = "id " + k.id
			if !k.idNum {
				what = fmt.Sprintf("id %q", k.id)
			}
		}
		out = append(out, fmt.Sprintf("%s:%d (%s)", m.path, k.line, what))
	}
	return out
}

// Name returns "replay:FILE".
// ReuseBasis is what a replayed answer depends on beyond the task: the
// line that answers q now, so an edited file is asked again (see
// harness/internal/reuse).
func (m *replayModel) ReuseBasis(q model.QuestionRef) string {
	resp, err := m.Answer(context.Background(), model.Task{Question: q})
	if err != nil {
		return "none"
	}
	return "reply " + resp.Text
}

func (m *replayModel) Name() string { return m.name }

// Info says the replay is offline and free.
func (m *replayModel) Info() model.Info { return info("replay", m.name, true) }

// Complete has no question to look up: a request alone names none.
func (m *replayModel) Complete(ctx context.Context, req model.Request) (model.Response, error) {
	return m.Answer(ctx, model.Task{Request: req})
}

// Answer answers the recorded response for the question's name, else for
// its id; model.ErrNoAnswer (wrapped) when the file has neither.
func (m *replayModel) Answer(ctx context.Context, req model.Task) (model.Response, error) {
	if err := ctx.Err(); err != nil {
		return model.Response{}, fmt.Errorf("model %s, question %q: %w", m.name, req.Question.Name, err)
	}
	q := req.Question
	// An empty (or null) response is no answer: DABench counts only the
	// first non-empty response of an id.
	if resp, ok := m.byName[q.Name]; ok && q.Name != "" && resp != "" {
		return model.Response{Text: resp}, nil
	}
	ids := m.byID
	if q.IDIsNumber {
		ids = m.byNum
	}
	if resp, ok := ids[q.ID]; ok && q.ID != "" && resp != "" {
		return model.Response{Text: resp}, nil
	}
	return model.Response{}, fmt.Errorf("model %s, question %q (id %q): %w", m.name, q.Name, q.ID, model.ErrNoAnswer)
}
