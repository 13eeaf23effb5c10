package result

import (
	"bytes"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// TestRecords: each record names every exported field by its tag, tells
// them apart in scanObject's bits, and refuses null for exactly the names
// LIME's agg.py groups by.
func TestRecords(t *testing.T) {
	for _, tc := range []struct {
		r       *record
		t       reflect.Type
		notNull []string
	}{
		{fileRecord, reflect.TypeFor[File](), nil},
		{sheetRecord, reflect.TypeFor[Sheet](), []string{"model_name", "name", "run_id"}},
		{questionRecord, reflect.TypeFor[Question](), []string{"name"}},
	} {
		if len(tc.r.field) > maxMembers {
			t.Fatalf("%s: %d members: raise maxMembers", tc.t.Name(), len(tc.r.field))
		}
		var exported int
		for i := range tc.t.NumField() {
			if tc.t.Field(i).IsExported() {
				exported++
			}
		}
		var notNull []string
		for name, n := range tc.r.index {
			f := tc.t.Field(tc.r.field[n])
			if tag, _, _ := strings.Cut(f.Tag.Get("json"), ","); tag != name {
				t.Errorf("%s: member %q is field %s tagged %q", tc.t.Name(), name, f.Name, tag)
			}
			if tc.r.notNull[n] {
				notNull = append(notNull, name)
			}
		}
		slices.Sort(notNull)
		if len(tc.r.index) != exported || !slices.Equal(notNull, tc.notNull) {
			t.Errorf("%s: %d members of %d fields, refusing null %v, want %v", tc.t.Name(), len(tc.r.index), exported, notNull, tc.notNull)
		}
	}
}

// TestDecodeQuestion: the one decoder of a question gives what the walk
// gives, decoding fast or walking; what the walk refuses it refuses with
// the walk's words.
func TestDecodeQuestion(t *testing.T) {
	for _, tc := range []struct{ name, raw, err string }{
		{"plain", `{"name":"q","grade":true,"completion":"B"}`, ""},
		{"unknown kept", ` {"name":"q","question_sys":null,"x":[1,"\""]}`, ""},
		{"repeated member", `{"name":"a","meta_data":{"a":"1"},"meta_data":{"b":"2"}}`, ""},
		{"other case", `{"name":"q","Grade":true}`, ""},
		{"escaped key", `{"n\u0061me":"q"}`, ""},
		{"other case of a wrong type", `{"name":"q","GRADE":"yes"}`, ""},
		{"empty", `{}`, ""},
		{"null name", `{"name":null}`, "name: null, want a string"},
		{"wrong type", `{"name":"q","grade":"yes"}`, "grade: json: cannot unmarshal string"},
		{"null", `null`, "want a JSON object, found null"},
		{"array", `[1]`, "want a JSON object, found an array"},
		{"cut", `{"name":"q"`, "unexpected EOF"},
	} {
		got, err := decodeQuestion([]byte(tc.raw))
		var want Question
		werr := want.walk([]byte(tc.raw))
		switch {
		case tc.err != "":
			if err == nil || !strings.Contains(err.Error(), tc.err) || werr == nil || err.Error() != werr.Error() {
				t.Errorf("%s: %v (walk: %v), want %q", tc.name, err, werr, tc.err)
			}
		case err != nil || werr != nil || !reflect.DeepEqual(got, want):
			t.Errorf("%s: %+v, %v; the walk: %+v, %v", tc.name, got, err, want, werr)
		}
	}
}

// FuzzDecodeQuestion: whatever the bytes, the one decoder of a question
// never panics and gives the walk's question or the walk's error.
func FuzzDecodeQuestion(f *testing.F) {
	for _, s := range []string{`{"name":"q","grade":true,"meta_data":{"id":"7"},"x":{}}`, `{"name":null}`, `{"Name":"a","name":"b"}`,
		`{"grade":"yes"}`, `{"n\u0061me":"q"}`, `[]`, `{"eval_time":NaN}`, ` {"judge":{"a":[1,2]}} `, `{"position":3,"position":4}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		got, err := decodeQuestion(raw)
		var want Question
		werr := want.walk(raw)
		if (err == nil) != (werr == nil) || err != nil && err.Error() != werr.Error() {
			t.Fatalf("decodeQuestion: %v; the walk: %v", err, werr)
		}
		if err == nil && !reflect.DeepEqual(got, want) {
			t.Fatalf("decodeQuestion and the walk differ:\n%#v\n%#v", got, want)
		}
		if err == nil {
			// Written back, it decodes to itself (unknown members kept).
			enc, err := EncodeQuestion(&got)
			if err != nil {
				t.Fatal(err)
			}
			again, err := decodeQuestion(enc)
			if err != nil {
				t.Fatalf("written back, it does not decode: %v\n%s", err, enc)
			}
			enc2, _ := EncodeQuestion(&again)
			if !bytes.Equal(enc, enc2) {
				t.Fatalf("written twice, it differs:\n%s\n%s", enc, enc2)
			}
		}
	})
}
