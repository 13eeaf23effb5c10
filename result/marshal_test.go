package result

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/evalmd/evalmd/internal/testkit/shared"
)

// encodeWhole is what Marshal must equal: the whole File through one
// Encoder, indented by two spaces, without HTML escaping.
func encodeWhole(t *testing.T, f *File) []byte {
	t.Helper()
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(f); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// Marshal builds the file a member at a time; its bytes are those of
// encoding the whole file at once, for every shape a file takes.
func TestMarshalEqualsWholeEncoding(t *testing.T) {
	withExtra, err := Parse([]byte(`{"sheet": {"name": "s", "type": "x", "sub_sections": [ 1, {"a" : "<&>"} ]},
 "questions": [{"name": "q", "question_sys": {"k": [ ]}, "completion": "a <b> & c\u2028"}],
 "zeta": {"n": [1, 2.50, {}]}, "alpha": "x", "<key>": []}`))
	if err != nil {
		t.Fatal(err)
	}
	cases := map[string]*File{
		"nil questions":   {Sheet: Sheet{Name: "s"}},
		"no questions":    {Sheet: Sheet{Name: "s", MetaData: map[string]string{}}, Questions: []Question{}},
		"unknown members": withExtra,
	}
	big, err := Parse(bigFile(50))
	if err != nil {
		t.Fatal(err)
	}
	cases["50 questions"] = big
	for name, f := range cases {
		checkMarshal(t, name, f)
	}
	t.Run("LIME's results", func(t *testing.T) {
		paths, _ := filepath.Glob(shared.Path(t, "corpora", "lime", "results", "output-*.json"))
		if len(paths) == 0 {
			t.Fatal("no LIME output files")
		}
		for _, p := range paths {
			f, err := Read(p)
			if err != nil {
				t.Fatal(err)
			}
			checkMarshal(t, filepath.Base(p), f)
		}
	})
}

func checkMarshal(t *testing.T, name string, f *File) {
	t.Helper()
	got, err := f.Marshal()
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	want := encodeWhole(t, f)
	// Questions encoded beforehand, every one or every other one, give
	// the same bytes.
	for _, step := range []int{1, 2} {
		encoded := make([][]byte, len(f.Questions))
		for i := 0; i < len(f.Questions); i += step {
			if encoded[i], err = EncodeQuestion(&f.Questions[i]); err != nil {
				t.Fatal(err)
			}
		}
		pre, err := f.MarshalEncoded(encoded)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(pre, want) {
			t.Errorf("%s: MarshalEncoded with every %d question(s) encoded differs from encoding the whole file", name, step)
		}
	}
	if !bytes.Equal(got, want) {
		i := 0
		for i < min(len(got), len(want)) && got[i] == want[i] {
			i++
		}
		t.Errorf("%s: Marshal differs from encoding the whole file at byte %d:\ngot  %.80q\nwant %.80q", name, i, got[i:], want[i:])
	}
}
