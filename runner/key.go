package runner

import (
	"crypto/sha256"
	"encoding/hex"
	"hash"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"

	"github.com/evalmd/evalmd/model"
)

// keyVersion is hashed into every key, so a change to what a key covers
// invalidates old cache entries instead of silently matching them. v2: the
// base URL is always the model's real server (Info().BaseURL); v1 keys
// held it only when --base-url was given. v3: the key is the canonical
// encoding of the request (keyEncoder), which covers every field unless
// keyLeftOut names it; a model.Task, which holds the request and what
// travels beside it, encodes to the same bytes as the request did.
const keyVersion = "evalmd-request-v3"

// journalVersion is written in every journal record; records of an older
// version (v1 had none, v2 fingerprints were made before v3 keys, v3 ones
// covered the question for every model) are asked again, with one warning.
const journalVersion = 4

// keyLeftOut lists the fields of model.Task (by path, as "Field.Field";
// the embedded Request's fields without "Request.") that a RequestKey
// leaves out, and why, for a model that answers from what it is sent. A
// model that answers from what travels beside the request too
// (Info.FromQuestion: oracle, replay, random) has every field keyed. Every
// other field is covered, a new one included, without code here: a field
// missing from a key would serve a stale answer.
var keyLeftOut = map[string]string{
	// Not sent, and the cache is shared by questions: two questions with
	// one prompt share a cache entry, and an edited answer does not ask a
	// model again that never sees it.
	"Question": "not sent: names the question for the models that answer from it",
	// Where the shared prefix ends changes how a request is sent (a
	// cache breakpoint), not what the model reads, nor its answer: a
	// run with --prompt-cache off reuses the answers of one with it.
	"Prefix": "not read: marks the prefix a prompt cache keeps",
}

// truthLeftOut is what the key of a model that answers from the question
// but never reads its ground truth (Info.TruthBlind) leaves out.
var truthLeftOut = map[string]string{"Question.GroundTruth": "not read: a truth-blind model answers from the question's name, id and sheet"}

// keyBaseName lists the string fields whose values are keyed by base
// name: the code sees a question's files under their base names, and
// random picks by the sheet's file name, so the folder a sheet is run from
// does not change its key.
var keyBaseName = map[string]bool{"Solve.Files": true, "Question.Sheet": true}

// RequestKey is the content address of a task put to a model, used by the
// cache, the run journal and batches: the hex sha256 of the key version,
// the model name (provider/model), the server's base URL (info.BaseURL),
// the endpoint when not the provider's usual one (info.Endpoint: the same
// task sent as a text completion is another request) and the canonical
// encoding of the task (keyEncoder): the request and
// its Solve, and the question when info.FromQuestion (else keyLeftOut
// leaves it out). It never covers credentials, which are not part of a
// task: the cache directory may be shared or committed, and a key must not
// change when an API key is rotated.
func RequestKey(modelName string, info model.Info, t model.Task) string {
	leftOut := keyLeftOut
	switch {
	case info.FromQuestion && info.TruthBlind:
		leftOut = truthLeftOut
	case info.FromQuestion:
		leftOut = nil
	}
	e := keyEncoder{h: sha256.New(), buf: make([]byte, 0, 512), path: make([]byte, 0, 64), leftOut: leftOut}
	e.str(keyVersion)
	e.str(modelName)
	e.str(info.BaseURL)
	if info.Endpoint != "" {
		// Only when set, so the keys of chat requests stay as they were.
		e.str("endpoint")
		e.str(info.Endpoint)
	}
	e.value(reflect.ValueOf(t))
	e.h.Write(e.buf)
	var sum [sha256.Size]byte
	return hex.EncodeToString(e.h.Sum(sum[:0]))
}

// keyEncoder writes the canonical encoding of a value into a hash. The
// encoding is a deterministic, unambiguous text: a struct is "{" its
// non-zero fields, each as name=value;, in declaration order "}" (a zero
// field is left out, so adding a field keeps the keys of requests that do
// not set it); a string or byte slice is its length, ":" and its bytes; a
// number is its decimal text (floats shortest, NaN and infinities
// included); a pointer is what it points to; a slice is "[" its elements
// "]"; a map is its entries sorted by encoded key. Renaming or reordering
// fields of model.Task changes every key: bump keyVersion then.
type keyEncoder struct {
	h   hash.Hash // nil while a map's entries are encoded apart
	buf []byte
	// path is the field being encoded, as "Field.Field" (slice and map
	// elements are not named); a []byte, so looking it up costs nothing.
	path    []byte
	leftOut map[string]string
}

// str encodes a string. Its bytes go to the hash through buf, a chunk at a
// time, so a long prompt costs no buffer of its size.
func (e *keyEncoder) str(s string) {
	e.buf = strconv.AppendInt(e.buf, int64(len(s)), 10)
	e.buf = append(e.buf, ':')
	if e.h == nil {
		e.buf = append(e.buf, s...)
		return
	}
	for len(s) > 0 {
		if len(e.buf) == cap(e.buf) {
			e.h.Write(e.buf)
			e.buf = e.buf[:0]
		}
		n := copy(e.buf[len(e.buf):cap(e.buf)], s)
		e.buf, s = e.buf[:len(e.buf)+n], s[n:]
	}
}

// value encodes v, found at e.path.
func (e *keyEncoder) value(v reflect.Value) {
	switch v.Kind() {
	case reflect.Struct:
		e.buf = append(e.buf, '{')
		e.fields(v)
		e.buf = append(e.buf, '}')
	case reflect.String:
		s := v.String()
		if keyBaseName[string(e.path)] {
			s = filepath.Base(s)
		}
		e.str(s)
	case reflect.Slice, reflect.Array:
		if v.Type().Elem().Kind() == reflect.Uint8 && v.Kind() == reflect.Slice {
			e.str(string(v.Bytes()))
			return
		}
		e.buf = append(e.buf, '[')
		for i := range v.Len() {
			e.value(v.Index(i))
			e.buf = append(e.buf, ',')
		}
		e.buf = append(e.buf, ']')
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			e.buf = append(e.buf, '~')
			return
		}
		if v.Kind() == reflect.Interface {
			e.str(v.Elem().Type().String())
		}
		e.value(v.Elem())
	case reflect.Map:
		type entry struct{ k, v []byte }
		entries := make([]entry, 0, v.Len())
		for it := v.MapRange(); it.Next(); {
			sub := keyEncoder{path: e.path, leftOut: e.leftOut}
			sub.value(it.Key())
			k := sub.buf
			sub.buf = nil
			sub.value(it.Value())
			entries = append(entries, entry{k, sub.buf})
		}
		slices.SortFunc(entries, func(a, b entry) int { return slices.Compare(a.k, b.k) })
		e.buf = append(e.buf, '<')
		for _, en := range entries {
			e.buf = append(append(append(e.buf, en.k...), '='), en.v...)
			e.buf = append(e.buf, ',')
		}
		e.buf = append(e.buf, '>')
	case reflect.Bool:
		e.buf = strconv.AppendBool(e.buf, v.Bool())
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		e.buf = strconv.AppendInt(e.buf, v.Int(), 10)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		e.buf = strconv.AppendUint(e.buf, v.Uint(), 10)
	case reflect.Float32, reflect.Float64:
		e.buf = strconv.AppendFloat(e.buf, v.Float(), 'g', -1, 64)
	case reflect.Complex64, reflect.Complex128:
		c := v.Complex()
		e.buf = strconv.AppendFloat(e.buf, real(c), 'g', -1, 64)
		e.buf = append(e.buf, 'i')
		e.buf = strconv.AppendFloat(e.buf, imag(c), 'g', -1, 64)
	default:
		// A channel or function is not data a request can send; keyed by
		// its type alone. TestKeyCoversEveryField fails on such a field.
		e.str(v.Type().String())
	}
}

// fields encodes the non-zero fields of the struct v, found at e.path. An
// embedded struct's fields are encoded as the outer struct's own (Task's
// Request), so a Task is keyed as the request with Solve and Question
// beside it.
func (e *keyEncoder) fields(v reflect.Value) {
	t := v.Type()
	parent := len(e.path)
	for i := range t.NumField() {
		fv := v.Field(i)
		if isZero(fv) {
			continue
		}
		f := t.Field(i)
		if f.Anonymous && fv.Kind() == reflect.Struct {
			e.fields(fv)
			continue
		}
		if parent > 0 {
			e.path = append(e.path, '.')
		}
		e.path = append(e.path, f.Name...)
		if _, out := e.leftOut[string(e.path)]; !out && f.IsExported() {
			e.buf = append(e.buf, f.Name...)
			e.buf = append(e.buf, '=')
			e.value(fv)
			e.buf = append(e.buf, ';')
		}
		e.path = e.path[:parent]
	}
}

// isZero reports whether a field is left out of the encoding: its zero
// value, or an empty slice or map (nil or not, as encoding/json's
// omitempty).
func isZero(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.Slice, reflect.Map:
		return v.Len() == 0
	}
	return v.IsZero()
}
