package result

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/evalmd/evalmd/internal/testkit/shared"
)

// scanned is what scan hands over of data: the sheet and the questions,
// as a File without the members scan skips. Each question is read again
// at its Span (QuestionAt), which must give it as scan did.
func scanned(data []byte) (*File, error) {
	f := &File{}
	err := scan(bytes.NewReader(data), func(s *Sheet) error { f.Sheet = *s; return nil }, func(dec *json.Decoder) error {
		return scanQuestions(dec, func(q *Question, at Span) error {
			again, err := QuestionAt(bytes.NewReader(data), at)
			if err != nil || !reflect.DeepEqual(again, *q) {
				return fmt.Errorf("question %d read again at %+v: %v", len(f.Questions), at, err)
			}
			f.Questions = append(f.Questions, *q)
			return nil
		})
	})
	if f.Questions == nil {
		f.Questions = []Question{}
	}
	return f, err
}

// scan reads each file as Parse does, LIME's 26 results and a file of
// every shape included; what it cannot read a question at a time it says
// (errScan), for the reader to read it whole.
func TestScanReadsAsParse(t *testing.T) {
	files := map[string][]byte{
		"50 questions":  bigFile(50),
		"no questions":  []byte(`{"sheet": {"name": "s"}, "questions": []}`),
		"null":          []byte(`{"sheet": {"name": "s"}, "questions": null}`),
		"members after": []byte(`{"sheet": {"name": "s", "x": 1}, "questions": [{"name": "q", "y": [2]}], "zeta": {"n": 1}}`),
		// Questions the fast decoding doubts are walked, as Parse walks them.
		"walked": []byte(`{"sheet": {"name": "s"}, "questions": [{"name": "q", "name": "r"}, {"NAME": "x", "n\u0061me": "y"}]}`),
	}
	paths, _ := filepath.Glob(shared.Path(t, "corpora", "lime", "results", "output-*.json"))
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		files[filepath.Base(p)] = data
	}
	for name, data := range files {
		want, err := Parse(data)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		want.extra = nil // scan skips the file's own members
		got, err := scanned(data)
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("%s: Scan differs from Parse (%v)", name, err)
		}
	}
	for _, data := range []string{
		`{"questions": [], "sheet": {"name": "s"}}`,
		`{"sheet": {"name": "s"}, "sheet": {"name": "t"}, "questions": []}`,
		`{"sheet": {"name": "s"}, "questions": [{"name": null}]}`,
		`{"sheet": {"name": "s"}, "questions": [{"name": "q", "grade": "yes"}]}`,
		`{"sheet": {"name": "s"}, "questions": [1]}`,
		`{"sheet": {"name": "s"}, "questions": []} {}`,
		`{"sheet": {"name": "s", "epoch": 3, "epochs": 2}, "questions": []}`,
		`{"sheet": {"name": "s"}}`,
		`{"sheet": {"name": "s"}, "questions": [{"name": "q"}`,
	} {
		if _, err := scanned([]byte(data)); !errors.Is(err, errScan) {
			t.Errorf("Scan(%s): %v, want errScan", data, err)
		}
	}
}

// FuzzScan: scan takes only what Parse takes, and hands over what Parse
// decodes.
func FuzzScan(f *testing.F) {
	for _, s := range shared.Seeds(f, 1<<14, "corpora", "lime", "results", "output-*.json") {
		f.Add(s)
	}
	f.Add(bigFile(3))
	f.Add([]byte(`{"sheet":{"name":"s","epoch":2,"epochs":3},"questions":[{"name":"q","grade":true,"x":{}}],"z":0}`))
	// Planted totals, which once sized a rerun's index.
	f.Add([]byte(`{"sheet":{"name":"s","totals":{"questions":-1}},"questions":[{"name":"q"}]}`))
	f.Add([]byte(`{"sheet":{"name":"s","totals":{"questions":1000000000000}},"questions":[{"name":"q"}]}`))
	f.Add([]byte(`{"sheet":{"totals":{"questions":3}},"questions":[{},{},{}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		got, err := scanned(data)
		if err != nil {
			if !errors.Is(err, errScan) && !errors.Is(err, ErrLongString) || strings.Contains(err.Error(), "\n") {
				t.Fatalf("Scan: %q", err)
			}
			return
		}
		checkHint(t, got, int64(len(data)))
		want, err := Parse(data)
		if err != nil {
			t.Fatalf("Scan took what Parse refuses: %v", err)
		}
		want.extra = nil
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("Scan and Parse differ:\n%#v\n%#v", got, want)
		}
	})
}

// FuzzPositionOf: where positionOf reads a question's position, Go's
// decoder reads the same one.
func FuzzPositionOf(f *testing.F) {
	for _, s := range []string{`{"name": "q", "position": 3}`, `{"position": null}`, `{}`, `{"position": 1.5}`, `{"Position": 2}`,
		`{"position": 1, "position": 2}`, `{"a": {"position": 9}, "position": -4}`, `{"p\u006fsition": 5}`, ` { "position" : 7 } `, `[1]`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		if !json.Valid(raw) {
			return
		}
		pos, ok := positionOf(raw)
		if !ok {
			return
		}
		var q struct {
			Position int `json:"position"`
		}
		if err := json.Unmarshal(raw, &q); err != nil || q.Position != pos {
			t.Fatalf("positionOf(%s) = %d; the decoder: %d, %v", raw, pos, q.Position, err)
		}
	})
}

// checkHint: the room a reader makes for a file's questions is never
// less than none nor more than its size could hold, and is what an
// honest file's totals say.
func checkHint(t *testing.T, f *File, size int64) {
	t.Helper()
	h := f.Sheet.QuestionsHint(size)
	if h < 0 || int64(h) > size/minQuestionBytes {
		t.Fatalf("QuestionsHint of a file of %d bytes: %d", size, h)
	}
	if tt := f.Sheet.Totals; tt != nil && tt.Questions == len(f.Questions) && h != tt.Questions {
		t.Fatalf("QuestionsHint of a file of %d questions that says so: %d", tt.Questions, h)
	}
}
