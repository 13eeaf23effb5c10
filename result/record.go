package result

// This file is the one description of how a record of an output file
// (File, Sheet, Question) is decoded, derived from its struct tags, and
// the one decoder of a question that every reader uses: Parse's fast
// path and its walk, Scan, ScanFile and QuestionAt. A field added to a
// struct is decoded everywhere without another edit.

import (
	"encoding/json"
	"reflect"
	"slices"
	"strings"
)

// record is a struct type's members as the decoders see them, numbered
// from 0 in field order (the bits of scanObject's seen members).
type record struct {
	index   map[string]int // member name -> its number
	field   []int          // number -> the index of its struct field
	notNull []bool         // number -> a string decodeName refuses null for
}

// The records of an output file. The names that refuse null are those
// LIME's agg.py groups by (see decodeName).
var (
	fileRecord     = newRecord(reflect.TypeFor[File]())
	sheetRecord    = newRecord(reflect.TypeFor[Sheet](), "name", "run_id", "model_name")
	questionRecord = newRecord(reflect.TypeFor[Question](), "name")
)

// maxMembers bounds the members of a record scanObject tells apart
// (TestRecords).
const maxMembers = 128

// newRecord reads the members of the struct type t from its json tags, as
// encoding/json names them; notNull are the string members refusing null.
func newRecord(t reflect.Type, notNull ...string) *record {
	r := &record{index: map[string]int{}}
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if !f.IsExported() || name == "-" {
			continue
		}
		if name == "" {
			name = f.Name
		}
		r.index[name] = len(r.field)
		r.field = append(r.field, i)
		r.notNull = append(r.notNull, f.Type.Kind() == reflect.String && slices.Contains(notNull, name))
	}
	return r
}

// refusesNull says whether the member at data[v] of number n is a null
// the walk refuses.
func (r *record) refusesNull(n int, data []byte, v int) bool {
	return r.notNull[n] && data[v] == 'n'
}

// walk decodes the JSON object data into v, a struct of r's type, by
// decodeObject's walk, and returns the members r does not name.
func (r *record) walk(data []byte, v reflect.Value) (fields, error) {
	return decodeObject(data, func(name string, dec *json.Decoder) (bool, error) {
		n, ok := r.index[name]
		if !ok {
			return false, nil
		}
		p := v.Field(r.field[n]).Addr().Interface()
		if s, ok := p.(*string); ok && r.notNull[n] {
			return true, decodeName(dec, s)
		}
		return true, dec.Decode(p)
	})
}

// decodeQuestion decodes the JSON of one question: json.Unmarshal into its
// fields (many times faster than the walk), finished by settle.
func decodeQuestion(raw []byte) (Question, error) {
	var q Question
	if json.Unmarshal(raw, (*questionAlias)(&q)) == nil {
		if at := skipSpace(raw, 0); raw[at] == '{' {
			err := q.settle(raw, at)
			return q, err
		}
	}
	// Unmarshal may have set fields before it failed.
	q = Question{}
	err := q.walk(raw)
	return q, err
}

// settle finishes q, which json.Unmarshal decoded from the JSON object at
// data[at] (valid JSON): a scan of its bytes finds the members no field
// names, kept raw. Where the scan finds what Unmarshal reads otherwise
// than the walk (a null name, a member repeated, a key with escapes or
// differing from a field's only in case), the walk decodes the question
// instead and its error, if any, is the question's.
func (q *Question) settle(data []byte, at int) error {
	if ex, ok := scanObject(data, at, questionRecord, nil); ok {
		q.extra = ex
		return nil
	}
	*q = Question{}
	return q.walk(data[at:skipValue(data, at)])
}

// walk decodes the JSON object data into q by decodeObject's walk, which
// places an error at its offset.
func (q *Question) walk(data []byte) error {
	ex, err := questionRecord.walk(data, reflect.ValueOf(q).Elem())
	q.extra = ex
	return err
}
