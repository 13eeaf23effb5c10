package inspect

import (
	"bytes"
	"encoding/json"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/evalmd/evalmd/result"
)

// TestReductions: a log holds Inspect's reductions, each scorer's score of
// every sample with its epochs reduced by the mean, as Inspect's
// eval_results (_eval/task/results.py) with the mean_score reducer
// (scorer/_reducer/reducer.py) computes them from the same per-epoch
// scores: "C" is 1.0 and "I" 0.0 (value_to_float), the reduced value their
// mean, written as Python writes the float; an epoch its scorer did not
// grade is not in the mean; the answer stays when every epoch gave the
// same; sample_id is the samples' id. Both formats, against Inspect's
// schema (reductions.json in an .eval zip, as its recorder writes it).
func TestReductions(t *testing.T) {
	type question struct {
		name    string
		grades  string // one letter per epoch: C, I, or - for ungraded
		answers string // one letter per epoch: the completion
		want    string // the reduced value as Python writes it
		answer  string // the reduced answer, "" for none
	}
	for _, tc := range []struct {
		name      string
		questions []question
	}{
		{"mixed", []question{
			{"q1", "CCC", "aaa", "1.0", "a"},
			{"q2", "CIC", "aba", "0.6666666666666666", ""},
			{"q3", "IIC", "bbb", "0.3333333333333333", "b"},
		}},
		{"all wrong", []question{
			{"7", "III", "xyz", "0.0", ""},
			{"8", "III", "xxx", "0.0", "x"},
			{"9", "ICI", "xyx", "0.3333333333333333", ""},
		}},
		{"an epoch ungraded", []question{
			{"q1", "C-I", "aaa", "0.5", "a"},
			{"q2", "--C", "abc", "1.0", "c"},
			{"q3", "---", "aaa", "", ""}, // no score: no reduction
		}},
		{"one epoch", []question{
			{"q1", "C", "a", "1.0", "a"},
			{"q2", "I", "b", "0.0", "b"},
			{"q3", "C", "c", "1.0", "c"},
		}},
	} {
		epochs := len(tc.questions[0].grades)
		var files []*result.File
		for k := range epochs {
			f := &result.File{Sheet: result.Sheet{Name: "Reduce", RunID: "r1", ModelName: "m",
				Created: "2025-02-03T04:05:06Z", Epoch: k + 1, Epochs: epochs}}
			if epochs == 1 {
				f.Sheet.Epoch, f.Sheet.Epochs = 0, 0
			}
			for _, q := range tc.questions {
				answer := q.answers[k : k+1]
				rq := result.Question{Name: q.name, Question: "?", GroundTruth: &answer, Completion: &answer,
					ModelName: "m", Grader: "exact"}
				if g := q.grades[k]; g != '-' {
					right := g == 'C'
					rq.Grade = &right
				}
				f.Questions = append(f.Questions, rq)
			}
			files = append(files, f)
		}
		for _, format := range []string{FormatJSON, FormatEval} {
			path, err := WriteRunLog(t.TempDir(), files, LogOptions{Version: "test", Format: format})
			if err != nil {
				t.Fatal(err)
			}
			CheckSchema(t, path)
			reductions := rawReductions(t, path)
			if len(reductions) != 1 {
				t.Fatalf("%s/%s: %d reductions, want 1 (one scorer)", tc.name, format, len(reductions))
			}
			r := reductions[0]
			if r.Scorer != "exact" || r.Reducer != "mean" {
				t.Errorf("%s/%s: scorer %q reducer %q, want exact, mean", tc.name, format, r.Scorer, r.Reducer)
			}
			var want []question
			for _, q := range tc.questions {
				if q.want != "" {
					want = append(want, q)
				}
			}
			if len(r.Samples) != len(want) {
				t.Fatalf("%s/%s: %d reduced samples, want %d", tc.name, format, len(r.Samples), len(want))
			}
			for i, q := range want {
				s := r.Samples[i]
				// sample_id is the samples' id: a string here, even "7".
				if string(s.SampleID) != `"`+q.name+`"` || s.Value.String() != q.want {
					t.Errorf("%s/%s: sample_id %s value %s, want %q %s", tc.name, format, s.SampleID, s.Value, q.name, q.want)
				}
				if got := deref(s.Answer); got != q.answer {
					t.Errorf("%s/%s: %s: answer %q, want %q", tc.name, format, q.name, got, q.answer)
				}
				if s.History == nil || s.Metadata["grader"] != "exact" {
					t.Errorf("%s/%s: %s: history %v metadata %v, want [] and the first epoch's", tc.name, format, q.name, s.History, s.Metadata)
				}
			}
		}
	}
}

// rawReduction is an EvalSampleReductions as written, its numbers as
// their JSON text.
type rawReduction struct {
	Scorer  string `json:"scorer"`
	Reducer string `json:"reducer"`
	Samples []struct {
		Value    json.Number     `json:"value"`
		Answer   *string         `json:"answer"`
		Metadata map[string]any  `json:"metadata"`
		History  []any           `json:"history"`
		SampleID json.RawMessage `json:"sample_id"`
	} `json:"samples"`
}

// rawReductions reads the reductions of a log file as written: a JSON
// log's member, an .eval zip's reductions.json (which its header.json
// must not repeat, as Inspect's recorder writes the header without them).
func rawReductions(t *testing.T, path string) []rawReduction {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []rawReduction
	if !strings.HasSuffix(path, ".eval") {
		var lg struct {
			Reductions []rawReduction `json:"reductions"`
		}
		if err := json.Unmarshal(data, &lg); err != nil {
			t.Fatal(err)
		}
		return lg.Reductions
	}
	for _, m := range evalMembers(t, data) {
		switch m.Name {
		case "reductions.json":
			if err := json.Unmarshal(m.data, &out); err != nil {
				t.Fatal(err)
			}
		case "header.json":
			if bytes.Contains(m.data, []byte(`"reductions"`)) {
				t.Errorf("%s: header.json holds the reductions", path)
			}
		}
	}
	return out
}

// asJSON is v as encoding/json's generic values.
func asJSON(t *testing.T, v any) any {
	t.Helper()
	data, err := marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var out any
	if err := json.Unmarshal(data, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// TestReadReductions: ReadLog gives back the reductions a log holds, in
// both formats, and reads a log without them (Inspect's logs before they
// had them, an eval not scored) with none.
func TestReadReductions(t *testing.T) {
	f := syntheticOutput()
	want, err := buildLog(f, LogOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(want.Reductions) == 0 {
		t.Fatal("the synthetic log has no reductions")
	}
	for _, format := range []string{FormatJSON, FormatEval} {
		path, err := WriteLog(t.TempDir(), f, LogOptions{Format: format})
		if err != nil {
			t.Fatal(err)
		}
		lg, err := ReadLog(path)
		if err != nil {
			t.Fatal(err)
		}
		// As JSON values: read back, 1.0 is the float64 1, metadata a map.
		if got, written := asJSON(t, lg.Reductions), asJSON(t, want.Reductions); !reflect.DeepEqual(got, written) {
			t.Errorf("%s: read reductions\n%v\nwant\n%v", format, got, written)
		}
	}
	without := *want
	without.Reductions = nil
	data, err := marshal(&without)
	if err != nil {
		t.Fatal(err)
	}
	lg, err := parseLog(data)
	if err != nil || lg.Reductions != nil {
		t.Errorf("a log without reductions: %v, reductions %v", err, lg.Reductions)
	}
}
