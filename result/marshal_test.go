package result

import (
	"bytes"
	"encoding/json"
	"io"
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
	// Written a question at a time from their encodings, as a run writes
	// an output from where it put them, gives the same bytes.
	if f.Questions != nil {
		var streamed bytes.Buffer
		err := f.WriteJSON(&streamed, len(f.Questions), func(w io.Writer, i int) error {
			q, err := EncodeQuestion(&f.Questions[i])
			if err == nil {
				_, err = w.Write(q)
			}
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(streamed.Bytes(), want) {
			t.Errorf("%s: WriteJSON differs from encoding the whole file", name)
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
