package dsbench

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/evalmd/evalmd/benchmark"
)

// entry is one line of data.json: a competition's metadata, its question
// file names and their answers, index-matched.
type entry struct {
	ID        string   // "00000001": the folder under data/
	Name      string   // the competition's slug
	URL       string   // where the case was published
	Year      int      // publication year; 0 when absent
	Questions []string // question file names without ".txt", in order
	Answers   []answer // Answers[i] answers Questions[i]
}

// answerKind says what JSON value an answer is.
type answerKind int

// The kinds of answer data.json holds (letters and short texts are strings;
// competition 00000009 has objects).
const (
	kindString answerKind = iota
	kindNumber
	kindObject
	kindArray
)

// String names the kind as the sheets' answer_kind meta writes it.
func (k answerKind) String() string {
	switch k {
	case kindString:
		return "string"
	case kindNumber:
		return "number"
	case kindObject:
		return "object"
	case kindArray:
		return "array"
	}
	return fmt.Sprintf("answerKind(%d)", int(k))
}

// answer is a ground truth as data.json writes it. JSON keeps the value's
// exact JSON text, compacted (white space outside strings removed; key
// order, number spelling and string escapes as written), so 1661626 stays
// 1661626 and 0.25 stays 0.25 rather than passing through a float.
type answer struct {
	Kind answerKind
	JSON string
}

// Python is str(answer) in Python for the value the notebook's eval() made
// of the line: what DSBench's compute_answer.py puts after "The true answer
// is" in its judge prompt. It differs from JSON for objects ({'Q': 1, ...})
// and floats (1e-05, 100000.0).
func (a answer) Python() string {
	v, err := decodeOrdered([]byte(a.JSON))
	if err != nil {
		return a.JSON // cannot happen for an answer made by parseLine
	}
	if s, ok := v.(string); ok {
		return s // str() of a str is itself, unquoted
	}
	return pyRepr(v)
}

// errNotEval marks JSON that Python's eval() would not read as the same
// value: the notebook reads data.json with eval(line), not json.loads.
var errNotEval = errors.New("eval() would not read this as JSON reads it")

// parseLine parses one line of data.json. The file is JSON Lines (despite
// its name) read by the notebook with eval(line.strip()); every real line is
// plain JSON, so JSON is what is accepted, minus the two places where eval
// would differ: the literals true, false and null (a NameError in Python)
// and the string escape \/ (which Python keeps as a backslash). id and
// questions are required, and answers must match questions one to one.
func parseLine(line []byte) (entry, error) {
	if err := checkEvalSafe(line); err != nil {
		return entry{}, err
	}
	var raw struct {
		ID        *string           `json:"id"`
		Name      string            `json:"name"`
		URL       string            `json:"url"`
		Year      int               `json:"year"`
		Questions *[]string         `json:"questions"`
		Answers   []json.RawMessage `json:"answers"`
	}
	dec := json.NewDecoder(bytes.NewReader(line))
	if err := dec.Decode(&raw); err != nil {
		return entry{}, fmt.Errorf("not a data.json entry: %w", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return entry{}, errors.New("text after the JSON object")
	}
	if raw.ID == nil {
		return entry{}, errors.New(`no "id"`)
	}
	if err := checkID(*raw.ID); err != nil {
		return entry{}, err
	}
	if raw.Questions == nil {
		return entry{}, fmt.Errorf(`competition %s: no "questions"`, *raw.ID)
	}
	if len(raw.Answers) != len(*raw.Questions) {
		return entry{}, fmt.Errorf("competition %s: %d questions but %d answers", *raw.ID, len(*raw.Questions), len(raw.Answers))
	}
	e := entry{ID: *raw.ID, Name: raw.Name, URL: raw.URL, Year: raw.Year, Questions: *raw.Questions}
	for i, q := range e.Questions {
		if err := benchmark.CheckName(q); err != nil {
			return entry{}, fmt.Errorf("competition %s: question %d: %w", e.ID, i+1, err)
		}
	}
	for i, r := range raw.Answers {
		a, err := newAnswer(r)
		if err != nil {
			return entry{}, fmt.Errorf("competition %s: answer %d: %w", e.ID, i+1, err)
		}
		e.Answers = append(e.Answers, a)
	}
	return e, nil
}

// checkID accepts an id that names one folder under data/ and one under
// the output folder.
func checkID(id string) error {
	if err := benchmark.CheckName(id); err != nil {
		return fmt.Errorf("id %w", err)
	}
	return nil
}

func newAnswer(raw json.RawMessage) (answer, error) {
	var buf bytes.Buffer
	if err := json.Compact(&buf, raw); err != nil {
		return answer{}, err
	}
	a := answer{JSON: buf.String()}
	switch buf.Bytes()[0] {
	case '"':
		a.Kind = kindString
	case '{':
		a.Kind = kindObject
	case '[':
		a.Kind = kindArray
	default:
		a.Kind = kindNumber // literals were refused by checkEvalSafe
	}
	return a, nil
}

// checkEvalSafe walks the JSON tokens of line and refuses what eval() reads
// differently. Malformed JSON is left for the decoder to report.
func checkEvalSafe(line []byte) error {
	if hasSlashEscape(line) {
		return fmt.Errorf(`%w: the escape \/ is two characters in Python`, errNotEval)
	}
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.UseNumber()
	for {
		tok, err := dec.Token()
		if err != nil {
			return nil
		}
		switch tok.(type) {
		case bool, nil:
			return fmt.Errorf("%w: the literal %s is not Python (NameError)", errNotEval, jsonLiteral(tok))
		}
	}
}

func jsonLiteral(tok json.Token) string {
	if tok == nil {
		return "null"
	}
	return fmt.Sprint(tok)
}

// hasSlashEscape reports whether a JSON string in line holds the escape \/
// (a backslash that is itself escaped, as in "\\/", does not count).
func hasSlashEscape(line []byte) bool {
	inString := false
	for i := 0; i < len(line); i++ {
		switch c := line[i]; {
		case c == '"':
			inString = !inString
		case c == '\\' && inString:
			if i+1 < len(line) && line[i+1] == '/' {
				return true
			}
			i++ // skip the escaped character
		}
	}
	return false
}
