package agg

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/evalmd/evalmd/internal/shared"
	"github.com/evalmd/evalmd/result"
)

// TestDecodeMatchesResult checks the one-pass scanner against the shared
// result package (encoding/json) on every real LIME output file.
func TestDecodeMatchesResult(t *testing.T) {
	paths, err := filepath.Glob(shared.Path(t, "corpora", "lime", "results", "output-*.json"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no LIME outputs: %v", err)
	}
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		want, err := result.Parse(data)
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		got, err := decodeOutput(data, nil)
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		if string(got.Sheet.Name) != want.Sheet.Name || string(got.Sheet.ModelName) != want.Sheet.ModelName ||
			string(got.Sheet.RunID) != want.Sheet.RunID || len(got.Questions) != len(want.Questions) {
			t.Fatalf("%s: sheet or question count differs", p)
		}
		for i, q := range want.Questions {
			g := got.Questions[i]
			wantGrade := gradeNull
			if q.Grade != nil {
				wantGrade = gradeFalse
				if *q.Grade {
					wantGrade = gradeTrue
				}
			}
			responded := q.Completion != nil && *q.Completion != ""
			if string(g.Name) != q.Name || g.Grade != wantGrade || g.Errored != (q.Error != nil) ||
				g.Responded != responded || g.HasEvalTime != (q.EvalTime != nil) ||
				(q.EvalTime != nil && g.EvalTime != *q.EvalTime) {
				t.Errorf("%s question %d: got %+v", p, i, g)
			}
		}
	}
}

// TestDecodeTruncated cuts a valid file at every length: a half-written file
// must never decode.
func TestDecodeTruncated(t *testing.T) {
	data, err := os.ReadFile("testdata/bench/output-dabench-m1-0004.json")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := decodeOutput(data, nil); err != nil {
		t.Fatal(err)
	}
	end := bytes.LastIndexByte(data, '}')
	for n := 0; n <= end; n++ {
		if _, err := decodeOutput(data[:n], nil); err == nil {
			t.Fatalf("a file cut at %d of %d bytes decoded", n, len(data))
		}
	}
}

func TestDecodeErrors(t *testing.T) {
	tests := []struct {
		name, doc, want string
	}{
		{"foreign object", `{"hello": 1}`, `no "sheet" object or "questions" array`},
		{"array", `[1, 2]`, `want '{'`},
		{"question not an object", `{"sheet": {}, "questions": [1]}`, "question 1 is not an object"},
		{"missing comma", `{"sheet": {} "questions": []}`, "want ',' or '}'"},
		{"bad literal", `{"sheet": {"name": nul}, "questions": []}`, "bad literal"},
		{"trailing data", `{"sheet": {}, "questions": []} x`, "data after"},
		{"unterminated string", `{"sheet": {"name": "abc`, "unexpected end"},
		// What encoding/json (result.Parse) refuses, agg refuses.
		{"control character", "{\"sheet\": {}, \"questions\": [{\"completion\": \"a\x01b\"}]}", `invalid character '\x01' in string literal`},
		{"control character in a long string", "{\"sheet\": {}, \"questions\": [{\"completion\": \"" + strings.Repeat("x", 21) + "\tb\"}]}", `invalid character '\t'`},
		{"bad escape", `{"sheet": {}, "questions": [{"completion": "a\qb"}]}`, `invalid escape "\\q"`},
		{"short unicode escape", `{"sheet": {}, "questions": [{"completion": "a\u12"}]}`, `\u without four hex digits`},
		{"bad number", `{"sheet": {}, "questions": [{"cost": 01}]}`, `bad number "01"`},
		{"number without digits after the point", `{"sheet": {}, "questions": [{"x": 1.}]}`, `bad number "1."`},
		// What result.Parse refuses of the epoch members, agg refuses.
		{"epoch past epochs", `{"sheet": {"epoch": 4, "epochs": 3}, "questions": []}`, `epoch 4 of 3`},
		{"epoch without epochs", `{"sheet": {"epoch": 2}, "questions": []}`, `epoch 2 without epochs`},
		{"epoch not whole", `{"sheet": {"epoch": 1.5, "epochs": 3}, "questions": []}`, `epoch is not a whole number`},
		{"epochs a string", `{"sheet": {"epoch": 1, "epochs": "3"}, "questions": []}`, `epochs is not a whole number`},
	}
	for _, tt := range tests {
		_, err := decodeOutput([]byte(tt.doc), nil)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: got %v, want an error containing %q", tt.name, err, tt.want)
		}
	}
}

// A sheet without questions: "questions": [] as evalmd writes it, and
// null as it wrote it before (such files exist), are both output files.
func TestDecodeNoQuestions(t *testing.T) {
	for _, doc := range []string{`{"sheet": {"name": "S"}, "questions": []}`, `{"sheet": {"name": "S"}, "questions": null}`} {
		f, err := decodeOutput([]byte(doc), nil)
		if err != nil {
			t.Errorf("%s: %v", doc, err)
			continue
		}
		if string(f.Sheet.Name) != "S" || len(f.Questions) != 0 {
			t.Errorf("%s: %+v", doc, f)
		}
	}
}

func TestDecodeValues(t *testing.T) {
	doc := `{"questions": [{"name": "a\"b", "grade": true, "error": {"x": 1}, "completion": "",
	  "eval_time": 2.5, "cost": 0, "input_tokens": 7, "unanswered": true, "limit": "max_turns",
	  "meta_data": {"concepts": "A, B", "level": "hard", "other": [1]},
	  "sub_answers": [{"correct": true}, {"correct": false}, {"name": "x"}]},
	  {"name": null, "grade": null, "completion": "x", "error": null, "limit": ""}],
	  "sheet": {"name": "S", "run_id": 12, "model_name": "m", "meta_data": {"benchmark": "DSBench"}}}`
	f, err := decodeOutput([]byte(doc), map[string]uint8{"benchmark": 0, "level": 1, "concepts": 2})
	if err != nil {
		t.Fatal(err)
	}
	q := f.Questions[0]
	if string(q.Name) != `a"b` || q.Grade != gradeTrue || !q.Errored || q.Responded ||
		!q.HasEvalTime || q.EvalTime != 2.5 || !q.HasCost || q.InputTokens != 7 || !q.Unanswered || !q.Limited ||
		len(q.Meta) != 2 || q.Meta[0].key != 2 || string(q.Meta[0].val) != "A, B" ||
		q.Meta[1].key != 1 || string(q.Meta[1].val) != "hard" || q.SubTotal != 3 || q.SubCorrect != 1 {
		t.Errorf("question 0: %+v", q)
	}
	q = f.Questions[1]
	if q.Name != nil || q.Grade != gradeNull || q.Errored || !q.Responded || q.Limited {
		t.Errorf("question 1: %+v", q)
	}
	if string(f.Sheet.RunID) != "12" || string(f.Sheet.Benchmark) != "DSBench" {
		t.Errorf("sheet: %+v", f.Sheet)
	}
}
