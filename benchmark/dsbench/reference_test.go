package dsbench

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/evalmd/evalmd/internal/testkit/shared"
)

// refPrompt is one line of reference/dsbench/prompts.jsonl.
type refPrompt struct {
	Competition string          `json:"competition"`
	Question    string          `json:"question"`
	System      string          `json:"system"`
	User        string          `json:"user"`
	Answer      json.RawMessage `json:"answer"`
}

func readRefPrompts(t *testing.T) []refPrompt {
	t.Helper()
	path := shared.Path(t, "reference", "dsbench", "prompts.jsonl")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []refPrompt
	for i, line := range bytes.Split(bytes.TrimSpace(data), []byte("\n")) {
		var p refPrompt
		if err := json.Unmarshal(line, &p); err != nil {
			t.Fatalf("%s:%d: %v", path, i+1, err)
		}
		out = append(out, p)
	}
	return out
}

// TestReferencePrompts builds every question's messages from the real
// corpus and compares them, and the answers, with what a line-by-line
// Python rendition of eval_GPT.ipynb produced.
func TestReferencePrompts(t *testing.T) {
	ref := readRefPrompts(t)
	comps, errs := Load(shared.Path(t, "corpora", "dsbench"))
	for _, err := range errs {
		t.Error(err)
	}
	var got []notebookPrompt
	for i := range comps {
		// The corpus has no workbooks, so no renderer is needed; nil makes
		// any workbook found an error rather than a silent skip.
		ps, err := comps[i].Prompts(nil, "gpt-4-turbo-2024-04-09")
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, ps...)
	}
	if len(comps) != 38 || len(got) != 466 || len(ref) != 466 {
		t.Fatalf("%d competitions, %d prompts, %d reference prompts; want 38, 466, 466", len(comps), len(got), len(ref))
	}
	bad := 0
	for i, r := range ref {
		g := got[i]
		where := r.Competition + "/" + r.Question
		if g.Competition != r.Competition || g.Question != r.Question {
			t.Fatalf("prompt %d is %s/%s, reference has %s", i, g.Competition, g.Question, where)
		}
		if g.System != r.System {
			t.Errorf("%s: system %q, want %q", where, g.System, r.System)
			bad++
		}
		if g.User != r.User {
			t.Errorf("%s: user message differs at byte %d", where, firstDiff(g.User, r.User))
			bad++
		}
		var want bytes.Buffer
		if err := json.Compact(&want, r.Answer); err != nil {
			t.Fatal(err)
		}
		if g.Answer.JSON != want.String() {
			t.Errorf("%s: answer %s, want %s", where, g.Answer.JSON, want.String())
			bad++
		}
		if g.Image != "" {
			t.Errorf("%s: image %q attached; the corpus has none", where, g.Image)
		}
	}
	t.Logf("%d prompts compared over %d competitions, %d differences", len(ref), len(comps), bad)
}

func firstDiff(a, b string) int {
	for i := 0; i < len(a) && i < len(b); i++ {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

// TestAnswersEqualDataJSON reads data.json independently (encoding/json,
// numbers as written) and checks every loaded answer against it: the same
// value, and for numbers the same text as in the file.
func TestAnswersEqualDataJSON(t *testing.T) {
	dir := shared.Path(t, "corpora", "dsbench")
	comps, errs := Load(dir)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	f, err := os.Open(filepath.Join(dir, "data.json"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	byID := map[string]*Competition{}
	for i := range comps {
		byID[comps[i].ID] = &comps[i]
	}
	n, kinds := 0, map[answerKind]int{}
	for sc.Scan() {
		line := sc.Bytes()
		dec := json.NewDecoder(bytes.NewReader(line))
		dec.UseNumber()
		var e struct {
			ID      string
			Answers []any
		}
		if err := dec.Decode(&e); err != nil {
			t.Fatal(err)
		}
		c := byID[e.ID]
		if c == nil || len(c.Questions) != len(e.Answers) {
			t.Fatalf("competition %s: not loaded or wrong question count", e.ID)
		}
		for i, want := range e.Answers {
			a := c.Questions[i].Answer
			kinds[a.Kind]++
			dec := json.NewDecoder(strings.NewReader(a.JSON))
			dec.UseNumber()
			var got any
			if err := dec.Decode(&got); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("%s %s: answer %v, data.json has %v", e.ID, c.Questions[i].Name, got, want)
			}
			if num, ok := want.(json.Number); ok && a.JSON != string(num) {
				t.Errorf("%s %s: number %s, written %s", e.ID, c.Questions[i].Name, a.JSON, num)
			}
			if s, ok := want.(string); ok && a.Text() != s {
				t.Errorf("%s %s: Text() %q, want %q", e.ID, c.Questions[i].Name, a.Text(), s)
			}
			n++
		}
	}
	if n != 466 {
		t.Errorf("%d answers, want 466", n)
	}
	if kinds[kindString] == 0 || kinds[kindNumber] == 0 || kinds[kindObject] == 0 {
		t.Errorf("answer kinds %v: expected strings, numbers and objects in the corpus", kinds)
	}
	t.Logf("%d answers checked: %d strings, %d numbers, %d objects", n, kinds[kindString], kinds[kindNumber], kinds[kindObject])
}
