// Package export writes the submission files benchmark scorers read, from
// output files: DABench's responses file (JSON Lines of {"id", "response"},
// which InfiAgent-DABench's eval_closed_form.py scores) and SemEval 2025
// Task 8's predictions.txt (one answer a line, which databench_eval's
// Evaluator.eval reads).
package export

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
func DABenchResponses(w io.Writer, files []*result.File) error {
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
			if q.Completion == nil || *q.Completion == "" {
				continue
			}
			key, raw, err := dabenchID(&q)
			if err != nil {
				return fmt.Errorf("output file of %q: %w", f.Sheet.Name, err)
			}
			if _, ok := kept[key]; ok {
				continue
			}
			kept[key] = entry{raw, *q.Completion}
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

// lineBreaks are the characters Python's str.splitlines breaks at, which
// databench_eval uses to read predictions.txt back; "\r\n" is one break.
var lineBreaks = strings.NewReplacer(
	"\r\n", " ", "\n", " ", "\r", " ", "\v", " ", "\f", " ",
	"\x1c", " ", "\x1d", " ", "\x1e", " ", "\u0085", " ", "\u2028", " ", "\u2029", " ",
)

// SemEvalPredictions writes a SemEval 2025 Task 8 predictions file from an
// output file: one answer a line, in question order (the order of the
// task's QA set, which the sheet keeps), each completion with its line
// breaks turned into spaces so that line n stays question n, and an empty
// line for a question without a completion. databench_eval reads the file
// with str.splitlines and compares line n with answer n.
func SemEvalPredictions(w io.Writer, f *result.File) error {
	if f == nil {
		return fmt.Errorf("semeval predictions: no output file")
	}
	bw := bufio.NewWriter(w)
	for _, q := range f.Questions {
		if q.Completion != nil {
			bw.WriteString(lineBreaks.Replace(*q.Completion))
		}
		bw.WriteByte('\n')
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("semeval predictions for %q: %w", f.Sheet.Name, err)
	}
	return nil
}
