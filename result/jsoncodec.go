package result

// This file is how an output file's JSON is decoded and encoded: a
// token walk that keeps unknown members, and the types' own methods.

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"sort"
)

// fields holds the JSON members a struct does not know, kept for rewriting.
type fields map[string]json.RawMessage

// decodeObject walks a JSON object's members once: member decodes the
// members it knows from the decoder and reports false for the others,
// which are kept raw. One walk matters: output files run to hundreds of
// megabytes, and decoding twice (once more to find unknown members)
// doubled the time of every grade and export.
func decodeObject(data []byte, member func(name string, dec *json.Decoder) (bool, error)) (fields, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	tok, err := dec.Token()
	if err != nil {
		return nil, unexpected(err)
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, fmt.Errorf("want a JSON object, found %s", describe(tok))
	}
	var ex fields
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		name, _ := tok.(string)
		at := valueStart(data, int(dec.InputOffset()))
		ok, err := member(name, dec)
		if err != nil {
			return nil, atOffset(at, fmt.Errorf("%s: %w", name, err))
		}
		if !ok {
			var raw json.RawMessage
			if err := dec.Decode(&raw); err != nil {
				return nil, unexpected(err)
			}
			if ex == nil {
				ex = fields{}
			}
			ex[name] = raw
		}
	}
	if _, err := dec.Token(); err != nil { // the closing brace
		return nil, unexpected(err)
	}
	// Nothing may follow the object (agg's scanner refuses it too).
	if tok, err := dec.Token(); err != io.EOF {
		if err == nil {
			err = fmt.Errorf("data after the top-level object: %s", describe(tok))
		}
		return nil, err
	}
	return ex, nil
}

// unexpected says io.EOF, the decoder's word for a file that ends inside
// a value, as "unexpected EOF".
func unexpected(err error) error {
	if err == io.EOF {
		return io.ErrUnexpectedEOF
	}
	return err
}

// memberError is an error in a member's value at offset, counted from the
// start of the data being decoded: each enclosing object adds the offset
// of its own value, so Parse can name the file's line.
type memberError struct {
	offset int
	err    error
}

func (e *memberError) Error() string { return e.err.Error() }
func (e *memberError) Unwrap() error { return e.err }

// atOffset moves err to offset at: an inner memberError's offset counts
// from the value at at; any other error is placed at at.
func atOffset(at int, err error) error {
	var me *memberError
	if errors.As(err, &me) {
		return &memberError{offset: at + me.offset, err: err}
	}
	return &memberError{offset: at, err: err}
}

// valueStart returns the offset of the value after a member's name, which
// ends at off: past white space and the colon.
func valueStart(data []byte, off int) int {
	for off < len(data) {
		switch data[off] {
		case ' ', '\t', '\r', '\n', ':':
			off++
		default:
			return off
		}
	}
	return off
}

// decodeName decodes a string member whose null would lose what LIME's
// agg.py reads (pandas drops a null sheet, model, run or question name from
// its groups, where an empty string is a value): neither LIME nor this tool
// writes one, so it is refused rather than read as "".
func decodeName(dec *json.Decoder, v *string) error {
	var raw json.RawMessage
	if err := dec.Decode(&raw); err != nil {
		return err
	}
	if string(raw) == "null" {
		return errors.New("null, want a string")
	}
	return json.Unmarshal(raw, v)
}

// describe names a JSON token for an error message.
func describe(tok json.Token) string {
	switch v := tok.(type) {
	case nil:
		return "null"
	case json.Delim:
		if v == '[' {
			return "an array"
		}
		return string(v)
	case string:
		return "a string"
	case bool:
		return "a boolean"
	}
	return "a number"
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

// decodeQuestions reads the questions array one element at a time, so
// each question's bytes are scanned once by the decoder and once by its
// walk (a plain Decode would skip over each element first).
func decodeQuestions(dec *json.Decoder, qs *[]Question) error {
	tok, err := dec.Token()
	if err != nil {
		return unexpected(err)
	}
	if tok == nil {
		// No questions: evalmd wrote null for a sheet without questions
		// before it wrote [], and such files exist (agg reads them too).
		*qs = []Question{}
		return nil
	}
	if d, ok := tok.(json.Delim); !ok || d != '[' {
		return fmt.Errorf("want an array, found %s", describe(tok))
	}
	start := int(dec.InputOffset()) - 1 // the "["
	out := []Question{}
	for dec.More() {
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return unexpected(err)
		}
		var q Question
		if err := q.walk(raw); err != nil {
			// Offsets count from the array (the member's value).
			at := int(dec.InputOffset()) - len(raw) - start
			return atOffset(at, fmt.Errorf("question %d: %w", len(out)+1, err))
		}
		out = append(out, q)
	}
	if _, err := dec.Token(); err != nil {
		return unexpected(err)
	}
	*qs = out
	return nil
}

type fileAlias File
type sheetAlias Sheet
type questionAlias Question

// UnmarshalJSON keeps unknown members.
func (f *File) UnmarshalJSON(data []byte) error {
	_, err := f.decode(data)
	return err
}

// decode is UnmarshalJSON, also saying whether the file had a "sheet"
// (which must be an object).
func (f *File) decode(data []byte) (haveSheet bool, err error) {
	ex, err := decodeObject(data, func(name string, dec *json.Decoder) (bool, error) {
		switch name {
		case "sheet":
			haveSheet = true
			return true, dec.Decode(&f.Sheet)
		case "questions":
			return true, decodeQuestions(dec, &f.Questions)
		}
		return false, nil
	})
	f.extra = ex
	return haveSheet, err
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
	ex, err := sheetRecord.walk(data, reflect.ValueOf(s).Elem())
	s.extra = ex
	if err == nil {
		err = CheckEpoch(s.Epoch, s.Epochs)
	}
	if err == nil {
		err = CheckShard(s.Shard, s.Shards)
	}
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

// UnmarshalJSON keeps unknown members (LIME's "question_sys"). It is
// decodeQuestion, the decoder of every reader.
func (q *Question) UnmarshalJSON(data []byte) error {
	var err error
	*q, err = decodeQuestion(data)
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

func marshalNoEscape(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(buf.Bytes(), "\n"), nil
}
