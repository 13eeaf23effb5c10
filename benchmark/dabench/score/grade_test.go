package score

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
	"github.com/evalmd/evalmd/internal/testkit/shared"
)

func TestDABenchExtract(t *testing.T) {
	tests := []struct {
		in   string
		want []Pair
	}{
		{"", nil},
		{"@a[1]", []Pair{{"a", "1"}}},
		{"x @a[1] y @b[two words] @a[3]", []Pair{{"a", "3"}, {"b", "two words"}}},
		{"@a[[]", []Pair{{"a", "["}}},               // lazy up to the first ']'
		{"@a[x]]", []Pair{{"a", "x"}}},              // first ']' ends it
		{"@a[x\ny]", nil},                           // '.' stops at a newline
		{"@a-b[1]", nil},                            // '-' is not a word character
		{"@émoji_1[ok]", []Pair{{"émoji_1", "ok"}}}, // Python's \w is Unicode
		{"@@a[1]", []Pair{{"a", "1"}}},
		{"@a []", nil},
	}
	for _, tc := range tests {
		got := extract(tc.in)
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("extract(%q) = %v, want %v", tc.in, got, tc.want)
		}
	}
}

func TestDABenchEqual(t *testing.T) {
	tests := []struct {
		got, want string
		ok        bool
	}{
		{"a", "a", true},
		{"", "", true},
		{"1.0", "1", true},
		{"0.1234565", "0.123456", true}, // 5e-7 < 1e-6: equal
		{"0.12345", "0.12346", false},
		{"1_000", "1000", true}, // Python float() takes underscores
		{"1__000", "1000", false},
		{" 2.5 ", "2.5", true},
		{"0x10", "16", false}, // Python float() takes no hex
		{"nan", "nan", true},  // equal as strings
		{"nan", "NaN", false}, // nan - nan is nan
		{"inf", "Infinity", false},
		{"1e400", "inf", false},
		{"١٢", "12", true}, // Arabic-Indic digits
		{"Yes", "yes", false},
	}
	for _, tc := range tests {
		if got := valuesEqual(tc.got, tc.want); got != tc.ok {
			t.Errorf("valuesEqual(%q, %q) = %v, want %v", tc.got, tc.want, got, tc.ok)
		}
	}
}

func TestDABenchLabels(t *testing.T) {
	got, err := parseLabels("@a[1]\n@b[]\r\n\n@a[2]\n@c[[]")
	if err != nil {
		t.Fatal(err)
	}
	want := []Pair{{"a", "2"}, {"b", ""}, {"c", "["}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
	for _, bad := range []string{"a[1]", "@a1]", "@[1]", "@a[1"} {
		if _, err := parseLabels(bad); err == nil {
			t.Errorf("parseLabels(%q): no error", bad)
		}
	}
}

func TestDABenchGrader(t *testing.T) {
	g := grader{}
	tests := []struct {
		truth, completion string
		correct           bool
		parts             int
	}{
		{"@a[1]\n@b[x]", "@b[x] @a[1.0000001]", true, 2},
		{"@a[1]\n@b[x]", "@b[X] @a[1]", false, 2},
		{"@a[1]\n@b[x]", "@a[1]", false, 2},
		{"", "anything", true, 0}, // all([]) is True
	}
	for _, tc := range tests {
		v, err := g.Grade(context.Background(), grade.Input{Truth: tc.truth, Completion: tc.completion})
		if err != nil {
			t.Fatal(err)
		}
		if *v.Correct != tc.correct || len(v.Parts) != tc.parts {
			t.Errorf("Grade(%q, %q) = %v with %d parts, want %v with %d", tc.truth, tc.completion, *v.Correct, len(v.Parts), tc.correct, tc.parts)
		}
	}
	if _, err := g.Grade(context.Background(), grade.Input{Truth: "not a label"}); err == nil {
		t.Error("bad ground truth: no error")
	}
}

type dabenchQuestion struct {
	ID       int      `json:"id"`
	Concepts []string `json:"concepts"`
	Level    string   `json:"level"`
}

type dabenchLabelRow struct {
	ID            int         `json:"id"`
	CommonAnswers [][2]string `json:"common_answers"`
}

func readJSONL[T any](t testing.TB, path string) []T {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []T
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		if len(bytes.TrimSpace(sc.Bytes())) == 0 {
			continue
		}
		var v T
		if err := json.Unmarshal(sc.Bytes(), &v); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		out = append(out, v)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// dabenchFirstResponse picks the response the script uses for a label id:
// the first line whose id equals it (Python ==: the string "6" is not 6,
// 6.0 is) and whose response is truthy (not null, not "").
func dabenchFirstResponse(rows []map[string]json.RawMessage, id int) (string, bool) {
	for _, r := range rows {
		raw := bytes.TrimSpace(r["id"])
		if len(raw) == 0 || raw[0] == '"' { // json.Number would take "6"
			continue
		}
		var n json.Number
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.UseNumber()
		if err := dec.Decode(&n); err != nil {
			continue
		}
		f, err := n.Float64()
		if err != nil || f != float64(id) {
			continue
		}
		var s *string
		if err := json.Unmarshal(r["response"], &s); err != nil || s == nil || *s == "" {
			continue
		}
		return *s, true
	}
	return "", false
}

func pairsObject(ps []Pair) map[string]any {
	m := map[string]any{}
	for _, p := range ps {
		m[p.Name] = p.Value
	}
	return m
}

func asJSONValue(t testing.TB, v any) any {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var out any
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if err := dec.Decode(&out); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestDABenchReference grades the reference responses through the grader,
// with each ground truth written as sheet text, and checks the per-question
// results and the report against what eval_closed_form.py wrote.
func TestDABenchReference(t *testing.T) {
	corpus := shared.Path(t, "corpora", "dabench")
	ref := shared.Path(t, "reference", "dabench")
	questions := readJSONL[dabenchQuestion](t, filepath.Join(corpus, "da-dev-questions.jsonl"))
	labels := readJSONL[dabenchLabelRow](t, filepath.Join(corpus, "da-dev-labels.jsonl"))
	if len(questions) != 257 || len(labels) != 257 {
		t.Fatalf("corpus: %d questions, %d labels; want 257 each", len(questions), len(labels))
	}
	concepts := map[int]dabenchQuestion{}
	for _, q := range questions {
		concepts[q.ID] = q
	}
	g := grader{}
	for _, name := range []string{"half", "none_scored", "perfect"} {
		t.Run(name, func(t *testing.T) {
			responses := readJSONL[map[string]json.RawMessage](t, filepath.Join(ref, name+".responses.jsonl"))
			wantResults := readJSONL[map[string]any](t, filepath.Join(ref, name+".results.jsonl"))
			var scored []scoredQuestion
			var results []map[string]any
			for _, l := range labels {
				pairs := make([]Pair, len(l.CommonAnswers))
				for i, a := range l.CommonAnswers {
					pairs[i] = Pair{a[0], a[1]}
				}
				truth := LabelsText(pairs)
				resp, ok := dabenchFirstResponse(responses, l.ID)
				q, known := concepts[l.ID]
				s := scoredQuestion{ID: fmt.Sprint(l.ID), Answered: ok, Level: q.Level}
				if known {
					s.Concepts = append([]string{}, q.Concepts...)
				}
				if ok {
					v, err := g.Grade(context.Background(), grade.Input{Truth: truth, Completion: resp})
					if err != nil {
						t.Fatalf("id %d: %v", l.ID, err)
					}
					s.Parts = v.Parts
					lab, _ := parseLabels(truth)
					corr := map[string]any{}
					for _, p := range v.Parts {
						corr[p.Name] = p.Correct
					}
					results = append(results, map[string]any{
						"id": l.ID, "label_answers": pairsObject(lab),
						"predicted_answers": pairsObject(extract(resp)), "correctness": corr,
					})
				}
				scored = append(scored, s)
			}
			if len(results) != len(wantResults) {
				t.Fatalf("%d results, want %d", len(results), len(wantResults))
			}
			same := 0
			for i := range results {
				got := asJSONValue(t, results[i])
				want := asJSONValue(t, wantResults[i])
				if reflect.DeepEqual(got, want) {
					same++
				} else if i-same < 5 {
					t.Errorf("result %d:\n got %v\nwant %v", i, got, want)
				}
			}
			if same != len(results) {
				t.Errorf("%d of %d per-question results differ", len(results)-same, len(results))
			}
			t.Logf("%s: %d/%d per-question results equal", name, same, len(results))

			rep := scriptMetrics(scored)
			gotJSON, err := json.Marshal(rep)
			if err != nil {
				t.Fatal(err)
			}
			wantJSON, err := os.ReadFile(filepath.Join(ref, name+".expected.json"))
			if err != nil {
				t.Fatal(err)
			}
			// Compared as JSON values with numbers kept as written, so 0
			// and 0.0 differ as they do in the script's output.
			if g, w := asJSONValue(t, json.RawMessage(gotJSON)), asJSONValue(t, json.RawMessage(wantJSON)); !reflect.DeepEqual(g, w) {
				t.Errorf("report:\n got %s\nwant %s", gotJSON, strings.Join(strings.Fields(string(wantJSON)), " "))
			}
		})
	}
}

func FuzzDABenchExtract(f *testing.F) {
	for _, s := range []string{"@a[1]", "@a[[]", "x@b_2[3.5]@b_2[4]", "@é[x]\n@a[b"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var want []Pair
		for _, m := range pattern.FindAllStringSubmatch(s, -1) {
			want = append(want, Pair{Name: m[1], Value: m[2]})
		}
		if raw := findAll(s); !reflect.DeepEqual(raw, want) {
			t.Fatalf("findAll(%q) = %v, the regular expression finds %v", s, raw, want)
		}
		got := extract(s)
		seen := map[string]bool{}
		for _, p := range got {
			if seen[p.Name] {
				t.Fatalf("duplicate name %q", p.Name)
			}
			seen[p.Name] = true
			if strings.ContainsAny(p.Value, "]\n") {
				t.Fatalf("value %q holds ']' or newline", p.Value)
			}
			if !strings.Contains(s, "@"+p.Name+"["+p.Value+"]") {
				t.Fatalf("pair %v not in input", p)
			}
		}
		// Labels written as text read back as the same pairs.
		if len(got) > 0 {
			back, err := parseLabels(LabelsText(got))
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(back, got) {
				t.Fatalf("round trip: %v != %v", back, got)
			}
		}
	})
}

func FuzzDABenchLabels(f *testing.F) {
	for _, s := range []string{"@a[1]\n@b[]", "@a[[]", "junk", "@a[1]\r\n@a[2]"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		ls, err := parseLabels(s)
		if err != nil {
			return
		}
		for _, l := range ls {
			if l.Name == "" {
				t.Fatalf("empty name from %q", s)
			}
		}
		_ = valuesEqual(s, s)
	})
}

// BenchmarkDABenchGrade10k grades 10,000 questions per op: the "perfect"
// reference responses against the real labels, cycled.
func BenchmarkDABenchGrade10k(b *testing.B) {
	corpus := shared.Path(b, "corpora", "dabench")
	ref := shared.Path(b, "reference", "dabench")
	labels := readJSONL[dabenchLabelRow](b, filepath.Join(corpus, "da-dev-labels.jsonl"))
	responses := readJSONL[map[string]json.RawMessage](b, filepath.Join(ref, "perfect.responses.jsonl"))
	var ins []grade.Input
	for _, l := range labels {
		pairs := make([]Pair, len(l.CommonAnswers))
		for i, a := range l.CommonAnswers {
			pairs[i] = Pair{a[0], a[1]}
		}
		resp, _ := dabenchFirstResponse(responses, l.ID)
		ins = append(ins, grade.Input{Truth: LabelsText(pairs), Completion: "Some reasoning first.\n" + resp})
	}
	g := grader{}
	ctx := context.Background()
	b.ResetTimer()
	for n := 0; n < b.N; n++ {
		for i := 0; i < 10000; i++ {
			if _, err := g.Grade(ctx, ins[i%len(ins)]); err != nil {
				b.Fatal(err)
			}
		}
	}
}
