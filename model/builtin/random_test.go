package builtin

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/evalmd/evalmd/internal/testkit/shared"
	"github.com/evalmd/evalmd/model"
)

// answerLine is an @name[value] answer as DABench's grader reads one
// (`@(\w+)\[(.*?)\]`), its value random's: 0.00 to 0.99.
var answerLine = regexp.MustCompile(`^@([\p{L}\p{N}_]+)\[(0\.[0-9]{2})\]$`)

// random answers a question in the format it asks: DABench's @name[value]
// lines, one per name asked, each once and in order, with a random
// value; a question of options gets one of their letters; any other the
// no-options reply.
func TestRandomFormat(t *testing.T) {
	for _, tc := range []struct {
		name, text string
		names      []string // nil: not an @name[value] answer
		want       string   // when names is nil
	}{
		{"one name", "Calculate the mean fare.\nFormat: @mean_fare[mean_fare_value] where \"mean_fare_value\" is a float.", []string{"mean_fare"}, ""},
		{"two names, one said twice", "Format: @r[r_value]\n@p_value[p]\nwhere @r[r_value] is ...", []string{"r", "p_value"}, ""},
		{"a name in another script", "Format: @größe[wert]", []string{"größe"}, ""},
		{"options", "Pick one.\nA) 3\nB) 4", nil, "A|B"},
		{"free-form", "What is 2+2?", nil, noOptionsReply},
		{"an address is no format", "Write to me@example.org [soon].", nil, noOptionsReply},
	} {
		m, _ := newModel("random", model.Options{Provider: []any{Options{Seed: 5}}})
		resp, err := model.Ask(context.Background(), m, ask(tc.text, model.QuestionRef{Sheet: "s.md", Name: tc.name}))
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if tc.names == nil {
			if !slices.Contains(strings.Split(tc.want, "|"), resp.Text) {
				t.Errorf("%s: random answered %q, want %s", tc.name, resp.Text, tc.want)
			}
			continue
		}
		if got := answeredNames(t, resp.Text); strings.Join(got, ",") != strings.Join(tc.names, ",") {
			t.Errorf("%s: random answered %q, want the names %v", tc.name, resp.Text, tc.names)
		}
	}
}

// answeredNames are the names of text's @name[value] lines; a line that
// is not one fails the test.
func answeredNames(t *testing.T, text string) []string {
	t.Helper()
	var names []string
	for _, l := range strings.Split(text, "\n") {
		m := answerLine.FindStringSubmatch(l)
		if m == nil {
			t.Errorf("%q is no @name[value] line of random's", l)
			continue
		}
		names = append(names, m[1])
	}
	return names
}

// On DABench's questions (the shared corpus), random answers every one
// in its format: each name its format line asks for, none missing.
func TestRandomDABench(t *testing.T) {
	path := shared.Path(t, "corpora", "dabench", "da-dev-questions.jsonl")
	f, err := os.Open(path)
	if err != nil {
		shared.Missing(t, err.Error())
		return
	}
	defer f.Close()
	m, _ := newModel("random", model.Options{})
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	n := 0
	for sc.Scan() {
		var q struct {
			ID                            int
			Question, Constraints, Format string
		}
		if err := json.Unmarshal(sc.Bytes(), &q); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		text := q.Question + "\nConstraints: " + q.Constraints + "\nFormat: " + q.Format
		resp, err := model.Ask(context.Background(), m, ask(text, model.QuestionRef{Sheet: "dabench.md", Name: "q", ID: strconv.Itoa(q.ID)}))
		if err != nil {
			t.Fatal(err)
		}
		want := formatNames(q.Format)
		if got := answeredNames(t, resp.Text); len(want) == 0 || strings.Join(got, ",") != strings.Join(want, ",") {
			t.Errorf("id %d: random answered %q to the format %q", q.ID, resp.Text, q.Format)
		}
		n++
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if n != 257 {
		t.Errorf("%d questions read, want DABench's 257", n)
	}
}
