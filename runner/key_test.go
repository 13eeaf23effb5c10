package runner

import (
	"crypto/sha256"
	"encoding/hex"
	"reflect"
	"strings"
	"testing"

	"github.com/evalmd/evalmd/model"
)

// keyField is one field of model.Task, found by walking its type, and how
// to give it a non-zero value in a task where it is zero.
type keyField struct {
	path string
	set  func(req reflect.Value) // req is an addressable model.Request; nil for a struct
}

// requestFields walks t (model.Task) recursively: into nested structs,
// the struct a pointer points to and a slice's first element. A container
// (pointer, slice) is a field of its own, set by making it non-empty; an
// embedded struct's fields are the outer struct's, as the key encodes them.
func requestFields(t *testing.T, typ reflect.Type, path string, at func(reflect.Value) reflect.Value) []keyField {
	var out []keyField
	for i := range typ.NumField() {
		f := typ.Field(i)
		p := f.Name
		if path != "" {
			p = path + "." + f.Name
		}
		field := func(r reflect.Value) reflect.Value { return at(r).Field(i) }
		ft := f.Type
		switch {
		case f.Anonymous && ft.Kind() == reflect.Struct:
			out = append(out, requestFields(t, ft, path, field)...)
		case ft.Kind() == reflect.Struct:
			out = append(out, keyField{path: p}) // named, set through its fields
			out = append(out, requestFields(t, ft, p, field)...)
		case ft.Kind() == reflect.Pointer && ft.Elem().Kind() == reflect.Struct:
			elem := func(r reflect.Value) reflect.Value {
				v := field(r)
				if v.IsNil() {
					v.Set(reflect.New(ft.Elem()))
				}
				return v.Elem()
			}
			out = append(out, keyField{p, func(r reflect.Value) { elem(r) }})
			out = append(out, requestFields(t, ft.Elem(), p, elem)...)
		case ft.Kind() == reflect.Slice && ft.Elem().Kind() == reflect.Struct:
			first := func(r reflect.Value) reflect.Value {
				v := field(r)
				if v.Len() == 0 {
					v.Set(reflect.MakeSlice(ft, 1, 1))
				}
				return v.Index(0)
			}
			out = append(out, keyField{p, func(r reflect.Value) { first(r) }})
			out = append(out, requestFields(t, ft.Elem(), p, first)...)
		default:
			v, ok := nonZero(ft)
			if !ok {
				t.Errorf("model.Task field %s is a %s, which a request key cannot encode as data", p, ft)
				continue
			}
			out = append(out, keyField{p, func(r reflect.Value) { field(r).Set(v) }})
		}
	}
	return out
}

// nonZero is a non-zero value of a type that is not a struct.
func nonZero(t reflect.Type) (reflect.Value, bool) {
	v := reflect.New(t).Elem()
	switch t.Kind() {
	case reflect.String:
		v.SetString("x")
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		v.SetInt(3)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		v.SetUint(3)
	case reflect.Float32, reflect.Float64:
		v.SetFloat(0.5)
	case reflect.Pointer:
		e, ok := nonZero(t.Elem())
		if !ok {
			return v, false
		}
		v = reflect.New(t.Elem())
		v.Elem().Set(e)
	case reflect.Slice:
		e, ok := nonZero(t.Elem())
		if !ok {
			return v, false
		}
		v = reflect.Append(v, e)
	case reflect.Map:
		k, ok1 := nonZero(t.Key())
		e, ok2 := nonZero(t.Elem())
		if !ok1 || !ok2 {
			return v, false
		}
		v = reflect.MakeMap(t)
		v.SetMapIndex(k, e)
	default: // interfaces, channels, functions
		return v, false
	}
	return v, true
}

// leftOut reports whether path is, or is inside, a field keyLeftOut names.
func leftOut(path string) bool {
	for p := range keyLeftOut {
		if path == p || strings.HasPrefix(path, p+".") {
			return true
		}
	}
	return false
}

// TestKeyCoversEveryField walks model.Task's fields (the request's and
// what travels beside it) and fails when one is in neither the key nor
// keyLeftOut: for a model that answers from its request, every field
// outside keyLeftOut, set on its own, must change RequestKey and every
// field in it must leave RequestKey alone; for a model that answers from
// the question too (Info.FromQuestion), every field must change it. A
// field added to model.Request or model.Task (a new setting) is covered
// without code in key.go.
func TestKeyCoversEveryField(t *testing.T) {
	fields := requestFields(t, reflect.TypeFor[model.Task](), "", func(r reflect.Value) reflect.Value { return r })
	plain, fromQuestion := model.Info{BaseURL: "u"}, model.Info{BaseURL: "u", FromQuestion: true}
	zero := model.Task{}
	k0, q0 := RequestKey("m", plain, zero), RequestKey("m", fromQuestion, zero)
	if k0 != q0 {
		t.Errorf("the zero task's key depends on Info.FromQuestion")
	}
	seen := map[string]string{k0: "the zero task"}
	seenQ := map[string]string{q0: "the zero task"}
	paths := map[string]bool{}
	for _, f := range fields {
		paths[f.path] = true
		if f.set == nil {
			continue
		}
		var req model.Task
		f.set(reflect.ValueOf(&req).Elem())
		if reflect.DeepEqual(req, zero) {
			t.Errorf("%s: the test could not set it", f.path)
			continue
		}
		k, kq := RequestKey("m", plain, req), RequestKey("m", fromQuestion, req)
		if prev, dup := seenQ[kq]; dup {
			t.Errorf("%s is not in the key of a model that answers from the question (its key is that of %s)", f.path, prev)
		}
		seenQ[kq] = f.path
		if leftOut(f.path) {
			if k != k0 {
				t.Errorf("%s is in keyLeftOut but changes the request key", f.path)
			}
			continue
		}
		if prev, dup := seen[k]; dup {
			t.Errorf("%s is in neither the request key nor keyLeftOut (its key is that of %s)", f.path, prev)
		}
		seen[k] = f.path
	}
	for p := range keyLeftOut {
		if !paths[p] {
			t.Errorf("keyLeftOut names %s, which model.Task does not have", p)
		}
	}
	for p := range keyBaseName {
		if !paths[p] {
			t.Errorf("keyBaseName names %s, which model.Task does not have", p)
		}
	}
	if len(fields) < 30 {
		t.Errorf("walked %d fields of model.Task; the walk is broken", len(fields))
	}
}

// The encoding is pinned: a change to it (or to model.Request's existing
// fields) must bump keyVersion, or old caches and journals would be read
// under keys that mean something else.
func TestRequestKeyStable(t *testing.T) {
	temp := 0.25
	req := model.Task{Request: model.Request{System: "s", Messages: []model.Message{{Role: "user", Content: "q"}},
		Settings: model.Settings{Temperature: &temp, MaxTokens: 10, Stop: []string{"\n"}}},
		Solve:    &model.Solve{Mode: model.ModeCode, Files: []string{"/data/t.csv"}},
		Question: model.QuestionRef{Name: "q1"}}
	const want = "2bada3f5609dba9026ee2cc05db7b468e0dace3ddd8be4595a06960c3a78d0d6"
	if k := RequestKey("openai/gpt-4o", model.Info{BaseURL: "https://api.openai.com/v1"}, req); k != want {
		t.Errorf("RequestKey = %s, want %s (bump keyVersion if the encoding changed on purpose)", k, want)
	}
}

// A long string reaches the hash in chunks; the key is that of the whole
// encoding at once.
func TestRequestKeyChunks(t *testing.T) {
	req := model.Task{Request: model.Request{System: strings.Repeat("s", 5000), Messages: []model.Message{{Role: "user", Content: strings.Repeat("é", 700),
		Images: []model.Image{{MediaType: "image/png", Data: make([]byte, 3000)}}}}}}
	whole := keyEncoder{leftOut: keyLeftOut}
	whole.str(keyVersion)
	whole.str("m")
	whole.str("u")
	whole.value(reflect.ValueOf(req))
	sum := sha256.Sum256(whole.buf)
	if got, want := RequestKey("m", model.Info{BaseURL: "u"}, req), hex.EncodeToString(sum[:]); got != want {
		t.Errorf("RequestKey = %s, the whole encoding hashes to %s", got, want)
	}
}

// A sheet's few-shot turn and its schema are part of the key: a question
// asked with other examples, or for other JSON, is asked again; a
// request with neither keys as before they existed (the pinned key).
func TestRequestKeyConversationAndSchema(t *testing.T) {
	info := model.Info{BaseURL: "u"}
	q := model.Message{Role: "user", Content: "q"}
	base := model.Task{Request: model.Request{Messages: []model.Message{q}}}
	turns := base
	turns.Messages = []model.Message{{Role: "user", Content: "2+2?"}, {Role: "assistant", Content: "4"}, q}
	other := base
	other.Messages = []model.Message{{Role: "user", Content: "2+2?"}, {Role: "assistant", Content: "5"}, q}
	schema := base
	schema.Schema, schema.Settings.ResponseFormat = []byte(`{"type":"object"}`), model.ResponseSchema
	schema2 := schema
	schema2.Schema = []byte(`{"type":"array"}`)
	seen := map[string]string{}
	for name, task := range map[string]model.Task{"plain": base, "turns": turns, "other turns": other, "schema": schema, "other schema": schema2} {
		k := RequestKey("m", info, task)
		if prev, dup := seen[k]; dup {
			t.Errorf("%s keys as %s", name, prev)
		}
		seen[k] = name
	}
}
