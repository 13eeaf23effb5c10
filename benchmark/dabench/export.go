package dabench

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/evalmd/evalmd/result"
)

// dabenchLine is one line of a DABench responses file.
type dabenchLine struct {
	ID       json.RawMessage `json:"id"`
	Response string          `json:"response"`
}

// DABenchResponses writes the responses of the output files as DABench's
// responses file: one {"id", "response"} line per question id, in the order
// the ids first appear, holding the first non-empty completion given for
// that id (questions without one are left out: the script counts a missing
// id as unanswered). The id is the question's "id" meta, written as a JSON
// integer when it is one, because eval_closed_form.py matches it against
// the integer ids of da-dev-questions.jsonl; a question without an id meta
// is keyed by its name, as a string.
func writeResponses(w io.Writer, files []*result.File) error {
	type entry struct {
		id       json.RawMessage
		response string
	}
	var order []string
	kept := map[string]entry{}
	for _, f := range files {
		if f == nil {
			continue
		}
		for _, q := range f.Questions {
			// The text graded: a reformatted answer (run --reformat) is
			// the response reformat.py would have written.
			resp := q.Graded()
			if resp == nil || *resp == "" {
				continue
			}
			key, raw, err := dabenchID(&q)
			if err != nil {
				return fmt.Errorf("output file of %q: %w", f.Sheet.Name, err)
			}
			if _, ok := kept[key]; ok {
				continue
			}
			kept[key] = entry{raw, *resp}
			order = append(order, key)
		}
	}
	bw := bufio.NewWriter(w)
	for _, key := range order {
		e := kept[key]
		data, err := marshalLine(dabenchLine{ID: e.id, Response: e.response})
		if err != nil {
			return fmt.Errorf("dabench responses: id %s: %w", key, err)
		}
		bw.Write(data)
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("dabench responses: %w", err)
	}
	return nil
}

// dabenchID returns a question's key (which tells ids apart: integer 6 and
// string "6" are one id, as the script compares numbers) and its JSON id.
func dabenchID(q *result.Question) (string, json.RawMessage, error) {
	id := strings.TrimSpace(q.ID())
	if id == "" {
		raw, err := json.Marshal(q.Name)
		return "name:" + q.Name, raw, err
	}
	if n, err := strconv.ParseInt(id, 10, 64); err == nil {
		s := strconv.FormatInt(n, 10)
		return "id:" + s, json.RawMessage(s), nil
	}
	raw, err := json.Marshal(id)
	return "id:" + id, raw, err
}

// marshalLine encodes one JSON Lines record without HTML escaping, as
// Python's json.dumps writes it (apart from its ", " separators, which a
// JSON reader does not see).
func marshalLine(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
