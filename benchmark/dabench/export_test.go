package dabench

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/evalmd/evalmd/grade"
	"github.com/evalmd/evalmd/internal/shared"
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
func dabenchOutputs(questions []dabenchQuestion, responses map[int]string) []*result.File {
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

// TestDABenchResponses exports the reference response sets from output
// files, checks the exported file equals the responses given, then scores
// it as eval_closed_form.py does and compares with the script's report.
func TestWriteResponses(t *testing.T) {
	corpus := shared.Path(t, "corpora", "dabench")
	ref := shared.Path(t, "reference", "dabench")
	questions := readJSONL[dabenchQuestion](t, filepath.Join(corpus, "da-dev-questions.jsonl"))
	labels := readJSONL[dabenchLabelRow](t, filepath.Join(corpus, "da-dev-labels.jsonl"))
	if len(questions) != 257 || len(labels) != 257 {
		t.Fatalf("%d questions, %d labels; want 257", len(questions), len(labels))
	}
	// none_scored is left out: its ids are partly strings ("6"), which the
	// script never matches, while an export writes the integer id.
	for _, name := range []string{"half", "perfect"} {
		t.Run(name, func(t *testing.T) {
			respPath := filepath.Join(ref, name+".responses.jsonl")
			rows := readJSONL[struct {
				ID       int    `json:"id"`
				Response string `json:"response"`
			}](t, respPath)
			responses := map[int]string{}
			for _, r := range rows {
				if _, ok := responses[r.ID]; !ok && r.Response != "" {
					responses[r.ID] = r.Response
				}
			}
			var buf bytes.Buffer
			if err := writeResponses(&buf, dabenchOutputs(questions, responses)); err != nil {
				t.Fatal(err)
			}
			in, err := os.ReadFile(respPath)
			if err != nil {
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
			checkScore(t, buf.Bytes(), questions, labels, filepath.Join(ref, name+".expected.json"))
		})
	}
}

// checkScore grades an exported responses file the way eval_closed_form.py
// does (first non-empty response per label id, the closed-form rule,
// ABQ/PSAQ/UASQ and the concept tables) and compares with its report.
func checkScore(t *testing.T, exported []byte, questions []dabenchQuestion, labels []dabenchLabelRow, expectedPath string) {
	t.Helper()
	var rows []struct {
		ID       json.Number `json:"id"`
		Response string      `json:"response"`
	}
	for _, line := range strings.Split(strings.TrimSpace(string(exported)), "\n") {
		if line == "" {
			continue
		}
		var r struct {
			ID       json.Number `json:"id"`
			Response string      `json:"response"`
		}
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("exported line %q: %v", line, err)
		}
		rows = append(rows, r)
	}
	byID := map[int]dabenchQuestion{}
	for _, q := range questions {
		byID[q.ID] = q
	}
	g := grader{}
	var scored []scoredQuestion
	for _, l := range labels {
		pairs := make([]Pair, len(l.CommonAnswers))
		for i, a := range l.CommonAnswers {
			pairs[i] = Pair{Name: a[0], Value: a[1]}
		}
		truth := labelsText(pairs)
		s := scoredQuestion{ID: fmt.Sprint(l.ID), Level: byID[l.ID].Level}
		if q, ok := byID[l.ID]; ok {
			s.Concepts = append([]string{}, q.Concepts...)
		}
		for _, r := range rows {
			if r.ID.String() != fmt.Sprint(l.ID) || r.Response == "" {
				continue
			}
			v, err := g.Grade(context.Background(), grade.Input{Truth: truth, Completion: r.Response})
			if err != nil {
				t.Fatalf("id %d: %v", l.ID, err)
			}
			s.Parts, s.Answered = v.Parts, true
			break
		}
		scored = append(scored, s)
	}
	gotJSON, err := json.Marshal(scriptMetrics(scored))
	if err != nil {
		t.Fatal(err)
	}
	wantJSON, err := os.ReadFile(expectedPath)
	if err != nil {
		t.Fatal(err)
	}
	got, want := jsonLines(t, bytes.ReplaceAll(gotJSON, []byte("\n"), nil)), jsonLines(t, bytes.Join(bytes.Fields(wantJSON), []byte(" ")))
	if !reflect.DeepEqual(got, want) {
		t.Errorf("score of the exported responses:\n got %s\nwant %s", gotJSON, bytes.Join(bytes.Fields(wantJSON), []byte(" ")))
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
