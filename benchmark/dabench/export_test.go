package dabench

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/evalmd/evalmd/internal/testkit/shared"
	"github.com/evalmd/evalmd/result"
)

// jsonLines decodes each line of a JSON Lines file as a JSON value with
// numbers kept as written.
func jsonLines(t *testing.T, data []byte) []any {
	t.Helper()
	var out []any
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 16<<20)
	for n := 1; sc.Scan(); n++ {
		if len(bytes.TrimSpace(sc.Bytes())) == 0 {
			continue
		}
		dec := json.NewDecoder(bytes.NewReader(sc.Bytes()))
		dec.UseNumber()
		var v any
		if err := dec.Decode(&v); err != nil {
			t.Fatalf("line %d: %v", n, err)
		}
		out = append(out, v)
	}
	return out
}

// dabenchOutputs builds output files answering DABench with the given
// responses: one question per DABench id, with the id, concepts and level
// meta the converter sets, the completion being the response. The
// questions are split over two files, and a decoy file after them answers
// every answered id differently (the first answer must win); an empty
// completion before the real one must be skipped.
func dabenchOutputs(questions []Question, responses map[int]string) []*result.File {
	s := func(v string) *string { return &v }
	mk := func(name string) *result.File {
		return &result.File{Sheet: result.Sheet{Name: name, RunID: "r1", ModelName: "replay"}}
	}
	a, b, decoy := mk("dabench-a"), mk("dabench-b"), mk("decoy")
	for i, q := range questions {
		meta := map[string]string{
			"id": fmt.Sprint(q.ID), "concepts": strings.Join(q.Concepts, ", "), "level": q.Level, "grader": "dabench",
		}
		qr := result.Question{Name: fmt.Sprintf("dabench-%d", q.ID), MetaData: meta, Question: "q", ModelName: "replay"}
		if r, ok := responses[q.ID]; ok {
			qr.Completion = s(r)
		}
		target := a
		if i >= len(questions)/2 {
			target = b
		}
		if i%7 == 0 {
			empty := qr
			empty.Completion = s("")
			target.Questions = append(target.Questions, empty)
		}
		target.Questions = append(target.Questions, qr)
		if qr.Completion != nil {
			other := qr
			other.Completion = s("@decoy[1]")
			decoy.Questions = append(decoy.Questions, other)
		}
	}
	return []*result.File{a, b, decoy}
}

// TestWriteResponses exports the reference response sets from output
// files and checks the exported file equals the responses given, line by
// line as JSON values: so it scores as the script scored them, which
// score's TestDABenchReference checks for these files.
func TestWriteResponses(t *testing.T) {
	corpus := shared.Path(t, "corpora", "dabench")
	ref := shared.Path(t, "reference", "dabench")
	questions, errs := Load(corpus)
	if len(errs) > 0 || len(questions) != 257 {
		t.Fatalf("%d questions, errors %v; want 257", len(questions), errs)
	}
	// none_scored is left out: its ids are partly strings ("6"), which the
	// script never matches, while an export writes the integer id.
	for _, name := range []string{"half", "perfect"} {
		t.Run(name, func(t *testing.T) {
			respPath := filepath.Join(ref, name+".responses.jsonl")
			in, err := os.ReadFile(respPath)
			if err != nil {
				t.Fatal(err)
			}
			responses := map[int]string{}
			for n, line := range bytes.Split(bytes.TrimSpace(in), []byte("\n")) {
				var r struct {
					ID       int    `json:"id"`
					Response string `json:"response"`
				}
				if err := json.Unmarshal(line, &r); err != nil {
					t.Fatalf("%s:%d: %v", respPath, n+1, err)
				}
				if _, ok := responses[r.ID]; !ok && r.Response != "" {
					responses[r.ID] = r.Response
				}
			}
			var buf bytes.Buffer
			if err := writeResponses(&buf, dabenchOutputs(questions, responses)); err != nil {
				t.Fatal(err)
			}
			got, want := jsonLines(t, buf.Bytes()), jsonLines(t, in)
			if len(got) != len(want) {
				t.Fatalf("%d lines exported, %d in %s", len(got), len(want), respPath)
			}
			for i := range want {
				if !reflect.DeepEqual(got[i], want[i]) {
					t.Errorf("line %d: got %v, want %v", i+1, got[i], want[i])
				}
			}
		})
	}
}

func TestDABenchResponsesIDs(t *testing.T) {
	s := func(v string) *string { return &v }
	f := &result.File{Sheet: result.Sheet{Name: "ids"}, Questions: []result.Question{
		{Name: "a", MetaData: map[string]string{"id": "7"}, Completion: s("@x[1]")},
		{Name: "b", MetaData: map[string]string{"id": "007"}, Completion: s("dup of 7")},
		{Name: "c", MetaData: map[string]string{"id": "q-9"}, Completion: s("<a & b>")},
		{Name: "d", Completion: s("no id meta")},
		{Name: "e", MetaData: map[string]string{"id": "8"}},
		{Name: "f", MetaData: map[string]string{"id": "8"}, Completion: s("")},
	}}
	var buf bytes.Buffer
	if err := writeResponses(&buf, []*result.File{nil, f}); err != nil {
		t.Fatal(err)
	}
	want := `{"id":7,"response":"@x[1]"}` + "\n" +
		`{"id":"q-9","response":"<a & b>"}` + "\n" +
		`{"id":"d","response":"no id meta"}` + "\n"
	if buf.String() != want {
		t.Errorf("got\n%s\nwant\n%s", buf.String(), want)
	}
}
