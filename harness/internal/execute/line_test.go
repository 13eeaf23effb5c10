package execute

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/evalmd/evalmd/internal/aimd"
	"github.com/evalmd/evalmd/model"
	"github.com/evalmd/evalmd/runner"
	"github.com/evalmd/evalmd/verdict"
)

// TestSheetLine: an output's console line says what a reader of the run
// must know of its answers: the prompt cache's tokens, the reasoning
// tokens, the refusals and replies without text, and, on a line of its
// own, the answers max_tokens cut while the model reasoned.
func TestSheetLine(t *testing.T) {
	tests := []struct {
		name    string
		replies map[string]model.Response
		say     []string
		not     string // what the console must not say
	}{
		{name: "plain answers", say: []string{"tokens 9 in / 3 out, $15.0000"}, not: "warning"},
		{name: "the prompt cache", replies: map[string]model.Response{"A": {Text: "a", InputTokens: 3, CacheReadTokens: 2}, "B": {Text: "b", InputTokens: 3, CacheWriteTokens: 3}},
			say: []string{"tokens 9 in (2 cache read, 3 cache write) / 1 out"}},
		{name: "reasoning tokens", replies: map[string]model.Response{"A": {Text: "a", OutputTokens: 5, ReasoningTokens: 4}},
			say: []string{"/ 7 out (4 reasoning)"}},
		{name: "a refusal", replies: map[string]model.Response{"A": {Text: "no", FinishReason: model.FinishRefusal}},
			say: []string{"2/3 correct", "3 answered, 1 refused or without text (see their note)"}},
		{name: "cut while reasoning", replies: map[string]model.Response{"C": {Text: "<think>first", FinishReason: "length"}},
			say: []string{"2/3 correct", "2 answered, 0 errors",
				"warning: m1 on input-s1.md: 1 of 3 answers are empty, cut by max_tokens while the model was reasoning"},
			not: "refused or without text"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := &scripted{name: "m1", responses: tt.replies}
			b := newBench(t, []model.Model{m}, "input-s1.md", threeQuestions)
			if _, _, err := b.run(context.Background(), runner.Options{}); err != nil {
				t.Fatal(err)
			}
			for _, s := range tt.say {
				if !strings.Contains(b.console.String(), s) {
					t.Errorf("console lacks %q:\n%s", s, b.console.String())
				}
			}
			if tt.not != "" && strings.Contains(b.console.String(), tt.not) {
				t.Errorf("console says %q:\n%s", tt.not, b.console.String())
			}
		})
	}
}

// TestVerdictsApplied: people's verdicts in the outputs' folder grade the
// answers they are on, said on the output's line; a line of the file
// that is no verdict is a warning naming it, and the others still apply.
func TestVerdictsApplied(t *testing.T) {
	m := &scripted{name: "m1", replies: map[string]string{"B": "bee"}}
	b := newBench(t, []model.Model{m}, "input-s1.md", threeQuestions)
	_, outs, err := b.run(context.Background(), runner.Options{})
	if err != nil {
		t.Fatal(err)
	}
	f := readOutput(t, outs[0].OutPath)
	q := &f.Questions[1]
	if q.Name != "B" || q.Grade == nil || *q.Grade {
		t.Fatalf("question %s graded %v before any verdict, want B wrong", q.Name, q.Grade)
	}
	v := verdict.Verdict{Key: verdict.KeyOf(f, q, 1, q.Graded()), Right: true, By: "ann"}
	path := verdict.PathIn(b.dir)
	if err := os.WriteFile(path, []byte(verdict.Line(v)+"\nnot a verdict\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	b.runID = "r2"
	b.console.Reset()
	res, _, err := b.run(context.Background(), runner.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Files[0].Tally.Correct != 3 || res.Files[0].Tally.Reviewed != 1 {
		t.Errorf("tally %+v, want 3 correct, 1 by a verdict", res.Files[0].Tally)
	}
	for _, s := range []string{"3/3 correct, 1 by people's verdicts", "warning: " + path + ":2: "} {
		if !strings.Contains(b.console.String(), s) {
			t.Errorf("console lacks %q:\n%s", s, b.console.String())
		}
	}
	if n := strings.Count(b.console.String(), "(not applied)"); n != 1 {
		t.Errorf("%d warnings of lines not applied, want 1:\n%s", n, b.console.String())
	}
}

// TestReuseNotes: what an output's line says of its reused answers: how
// many were asked and reused and from where, and how the grading a flag
// gave some of them before changes.
func TestReuseNotes(t *testing.T) {
	tests := []struct {
		name   string
		reused int
		from   []string
		kept   []string // modes a flag gave, kept
		undone [][2]string
		note   string
		say    []string
	}{
		{name: "none reused"},
		{name: "from one file", reused: 2, from: []string{"output-a.json"},
			note: ", 1 asked, 2 reused (unchanged since output-a.json)"},
		{name: "from three files", reused: 3, from: []string{"output-a.json", "output-b.json", "output-c.json"},
			note: ", 0 asked, 3 reused (unchanged since output-a.json and 2 more)"},
		{name: "a liberal grading kept", reused: 3, from: []string{"o.json"}, kept: []string{"liberal", "liberal", "liberal"},
			note: ", 0 asked, 3 reused (unchanged since o.json)",
			say:  []string{"m on input-s.md: 3 reused answers keep the liberal grading a flag gave them (grade -l or --grading); --grading strict grades them strictly"}},
		{name: "a grading undone", reused: 1, from: []string{"o.json"}, undone: [][2]string{{"liberal", "strict by the sheet's meta"}},
			note: ", 2 asked, 1 reused (unchanged since o.json)",
			say:  []string{"m on input-s.md: 1 reused answer graded liberal by a flag before are graded strict by the sheet's meta now"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := newBench(t, []model.Model{&scripted{name: "m"}}, "input-s.md", threeQuestions)
			o := b.outputs(context.Background(), "r1")[0]
			sr := &sheetRun{out: o, reused: tt.reused, reusedFrom: tt.from}
			for _, mode := range tt.kept {
				sr.kept.add(mode, "")
			}
			for _, u := range tt.undone {
				sr.undone.add(u[0], u[1])
			}
			if got := sr.reusedNote(); got != tt.note {
				t.Errorf("note %q, want %q", got, tt.note)
			}
			sr.sayReuse(b.consoleOf())
			got := b.console.String()
			for _, s := range tt.say {
				if !strings.Contains(got, s) {
					t.Errorf("console lacks %q:\n%s", s, got)
				}
			}
			if lines := strings.Count(got, "\n"); lines != len(tt.say) {
				t.Errorf("%d lines said, want %d:\n%s", lines, len(tt.say), got)
			}
		})
	}
}

// TestAdaptiveLimitRecorded: with -c auto, a server that says it is
// overloaded lowers its limit: the decrease is said, and each output of
// its model records the limit's history.
func TestAdaptiveLimitRecorded(t *testing.T) {
	m := &scripted{name: "m1", busy: map[string]int{"A": 1}}
	b := newBench(t, []model.Model{m}, "input-s1.md", threeQuestions)
	ropt := runner.Options{MaxAttempts: 3, Adaptive: &aimd.Config{Initial: 4, Min: 1, Max: 8, IncreaseAfter: 100, Decrease: 0.5}}
	res, outs, err := b.run(context.Background(), ropt)
	if err != nil {
		t.Fatal(err)
	}
	if res.Files[0].Tally.Correct != 3 {
		t.Errorf("%d correct, want 3 once A is asked again", res.Files[0].Tally.Correct)
	}
	if say := "m1: at most 2 requests in flight from now (was 4): "; !strings.Contains(b.console.String(), say) {
		t.Errorf("console lacks %q:\n%s", say, b.console.String())
	}
	limits := readOutput(t, outs[0].OutPath).Sheet.ConnectionLimits
	if len(limits) < 2 || limits[0].Limit != 4 || limits[1].Limit != 2 || limits[1].From != 4 {
		t.Errorf("limit history %+v, want 4 then 2", limits)
	}
}
