// Package result reads and writes output files: the JSON a run writes for
// one sheet and one model (LIME's format, with this tool's additions), and
// the readable markdown beside it. LIME's own files load as they are, and a
// file rewritten without changes keeps every field and value, including
// fields this package does not know.
package result

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/google/renameio/v2"
)

// File is one output file.
type File struct {
	Sheet     Sheet      `json:"sheet"`
	Questions []Question `json:"questions"`

	extra fields
}

// Sheet is the sheet-level record of an output file.
type Sheet struct {
	Name      string            `json:"name"`
	RunID     string            `json:"run_id"`
	ModelName string            `json:"model_name"`
	MetaData  map[string]string `json:"meta_data"`
	Question  *string           `json:"question"` // the raw sheet-level question text, null when absent

	// This tool's additions (absent from LIME's files).
	SheetFile string  `json:"sheet_file,omitempty"` // path of the sheet the run read
	Created   string  `json:"created,omitempty"`    // RFC 3339 time the run started
	Totals    *Totals `json:"totals,omitempty"`

	extra fields
}

// Totals sums a run's usage.
type Totals struct {
	Questions    int     `json:"questions"`
	Answered     int     `json:"answered"`
	Errors       int     `json:"errors"`
	InputTokens  int     `json:"input_tokens"`
	OutputTokens int     `json:"output_tokens"`
	Cost         float64 `json:"cost"`
	WallSeconds  float64 `json:"wall_seconds"`
}

// Question is one question's record.
type Question struct {
	Name        string            `json:"name"`
	MetaData    map[string]string `json:"meta_data"`    // null when the question has no meta section (as LIME)
	GroundTruth *string           `json:"ground_truth"` // null when the question has no answer
	Question    string            `json:"question"`     // the exact user message sent
	Completion  *string           `json:"completion"`
	Error       *string           `json:"error"`
	ModelName   string            `json:"model_name"`
	EvalTime    *float64          `json:"eval_time"`
	Grade       *bool             `json:"grade"`

	// This tool's additions (absent from LIME's files).
	QuestionUsr  string          `json:"question_usr,omitempty"` // the question's own text (LIME's name), for judges
	System       *string         `json:"system,omitempty"`       // the system message sent
	InputTokens  int             `json:"input_tokens,omitempty"`
	OutputTokens int             `json:"output_tokens,omitempty"`
	Cost         *float64        `json:"cost,omitempty"`
	Grader       string          `json:"grader,omitempty"`
	GradeDetail  string          `json:"grade_detail,omitempty"`
	SubAnswers   []SubAnswer     `json:"sub_answers,omitempty"`
	Unanswered   bool            `json:"unanswered,omitempty"` // the model had no answer (replay), not a wrong one
	Judge        json.RawMessage `json:"judge,omitempty"`      // an LLM judge's reply and verdict

	extra fields
}

// SubAnswer is one part of a question with several answers (DABench's
// @name[value] pairs).
type SubAnswer struct {
	Name    string `json:"name"`
	Want    string `json:"want"`
	Got     string `json:"got"`
	Found   bool   `json:"found"`
	Correct bool   `json:"correct"`
}

// ID returns the question's benchmark id (its "id" meta), or "".
func (q *Question) ID() string { return q.MetaData["id"] }

// Read loads an output file. Errors name the file and, for malformed JSON,
// the line.
func Read(path string) (*File, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	f, err := Parse(data)
	if err != nil {
		return nil, fmt.Errorf("%s%w", path, err)
	}
	return f, nil
}

// Parse decodes an output file's bytes. Its errors start with ":line: " so
// the caller can put the file name in front.
func Parse(data []byte) (*File, error) {
	var f File
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, fmt.Errorf(":%d: not an output file: %w", errLine(data, err), err)
	}
	if f.Questions == nil && f.Sheet.Name == "" {
		return nil, fmt.Errorf(":1: not an output file: no \"sheet\" or \"questions\"")
	}
	return &f, nil
}

// errLine finds the line of a JSON decoding error.
func errLine(data []byte, err error) int {
	var off int64
	switch e := err.(type) {
	case *json.SyntaxError:
		off = e.Offset
	case *json.UnmarshalTypeError:
		off = e.Offset
	default:
		return 1
	}
	if off > int64(len(data)) {
		off = int64(len(data))
	}
	return bytes.Count(data[:off], []byte("\n")) + 1
}

// Marshal encodes the file as indented JSON (LIME writes indent 2).
func (f *File) Marshal() ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(f); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// Write writes the file atomically: a reader sees the old file or the new
// one, never half of one.
func (f *File) Write(path string) error {
	data, err := f.Marshal()
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if err := renameio.WriteFile(path, data, 0o644); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

// FileName is the output file name for a sheet file, a model and a run id:
// output-<sheet>-<model>-<run_id>.json, where <sheet> is the sheet's file
// name without "input" and ".md" (LIME: input-rules-qa-1.md -> rules-qa-1)
// and the model name is made file-safe.
//
// With an empty run id the name ends at the model, as LIME's -u 0 does.
func FileName(sheetPath, modelName, runID string) string {
	base := filepath.Base(sheetPath)
	base = strings.TrimSuffix(base, ".md")
	base = strings.TrimPrefix(base, "input")
	base = strings.TrimLeft(base, "-_")
	name := "output-" + base + "-" + SafeName(modelName)
	if runID != "" {
		name += "-" + runID
	}
	return name + ".json"
}

// SafeName makes a model name usable in a file name: "/" and ":" and other
// path-hostile characters become "_".
func SafeName(s string) string {
	return strings.Map(func(r rune) rune {
		switch r {
		case '/', '\\', ':', '*', '?', '"', '<', '>', '|', ' ':
			return '_'
		}
		return r
	}, s)
}

// fields holds the JSON members a struct does not know, kept for rewriting.
type fields map[string]json.RawMessage

// known lists the JSON names of a struct's fields.
func known(v any) map[string]bool {
	// Derived from the encoding of the zero value with every omitempty field
	// forced present is overkill; the lists are small and fixed.
	switch v.(type) {
	case *File:
		return map[string]bool{"sheet": true, "questions": true}
	case *Sheet:
		return map[string]bool{"name": true, "run_id": true, "model_name": true, "meta_data": true,
			"question": true, "sheet_file": true, "created": true, "totals": true}
	case *Question:
		return map[string]bool{"name": true, "meta_data": true, "ground_truth": true, "question": true,
			"completion": true, "error": true, "model_name": true, "eval_time": true, "grade": true,
			"question_usr": true, "system": true, "input_tokens": true, "output_tokens": true, "cost": true, "grader": true,
			"grade_detail": true, "sub_answers": true, "unanswered": true, "judge": true}
	}
	return nil
}

// splitExtra returns the members of a JSON object that v does not know.
func splitExtra(data []byte, v any) (fields, error) {
	var all map[string]json.RawMessage
	if err := json.Unmarshal(data, &all); err != nil {
		return nil, err
	}
	k := known(v)
	var ex fields
	for name, raw := range all {
		if !k[name] {
			if ex == nil {
				ex = fields{}
			}
			ex[name] = raw
		}
	}
	return ex, nil
}

// joinExtra appends extra members to an encoded JSON object.
func joinExtra(obj []byte, ex fields) ([]byte, error) {
	if len(ex) == 0 {
		return obj, nil
	}
	names := make([]string, 0, len(ex))
	for n := range ex {
		names = append(names, n)
	}
	sort.Strings(names)
	var buf bytes.Buffer
	buf.Write(obj[:len(obj)-1]) // drop '}'
	for i, n := range names {
		if i > 0 || len(obj) > 2 {
			buf.WriteByte(',')
		}
		key, _ := json.Marshal(n)
		buf.Write(key)
		buf.WriteByte(':')
		buf.Write(ex[n])
	}
	buf.WriteByte('}')
	return buf.Bytes(), nil
}

type fileAlias File
type sheetAlias Sheet
type questionAlias Question

// UnmarshalJSON keeps unknown members.
func (f *File) UnmarshalJSON(data []byte) error {
	if err := json.Unmarshal(data, (*fileAlias)(f)); err != nil {
		return err
	}
	ex, err := splitExtra(data, f)
	f.extra = ex
	return err
}

// MarshalJSON writes unknown members back after the known ones.
func (f File) MarshalJSON() ([]byte, error) {
	obj, err := marshalNoEscape((fileAlias)(f))
	if err != nil {
		return nil, err
	}
	return joinExtra(obj, f.extra)
}

// UnmarshalJSON keeps unknown members (LIME's "type", "sub_sections").
func (s *Sheet) UnmarshalJSON(data []byte) error {
	if err := json.Unmarshal(data, (*sheetAlias)(s)); err != nil {
		return err
	}
	ex, err := splitExtra(data, s)
	s.extra = ex
	return err
}

// MarshalJSON writes unknown members back after the known ones.
func (s Sheet) MarshalJSON() ([]byte, error) {
	obj, err := marshalNoEscape((sheetAlias)(s))
	if err != nil {
		return nil, err
	}
	return joinExtra(obj, s.extra)
}

// UnmarshalJSON keeps unknown members (LIME's "question_sys", "question_usr").
func (q *Question) UnmarshalJSON(data []byte) error {
	if err := json.Unmarshal(data, (*questionAlias)(q)); err != nil {
		return err
	}
	ex, err := splitExtra(data, q)
	q.extra = ex
	return err
}

// MarshalJSON writes unknown members back after the known ones.
func (q Question) MarshalJSON() ([]byte, error) {
	obj, err := marshalNoEscape((questionAlias)(q))
	if err != nil {
		return nil, err
	}
	return joinExtra(obj, q.extra)
}

// Extra returns an unknown member's raw JSON, or nil.
func (q *Question) Extra(name string) json.RawMessage { return q.extra[name] }

func marshalNoEscape(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(buf.Bytes(), "\n"), nil
}
