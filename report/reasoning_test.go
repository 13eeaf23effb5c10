package report

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/evalmd/evalmd/internal/outfile"
	"github.com/evalmd/evalmd/model"
	"github.com/evalmd/evalmd/result"
)

// A reasoning model's answer carries its reasoning (the page folds it
// under the completion) and its reasoning tokens, and one model at two
// efforts is two runs named as agg names them.
func TestReasoningAnswers(t *testing.T) {
	dir := t.TempDir()
	for _, effort := range []string{"low", "high"} {
		completion, truth, grade := "A) 4", "B) 5", false
		f := &result.File{
			Sheet: result.Sheet{Name: "Think", RunID: effort, ModelName: "openai/o3", Settings: &model.Settings{ReasoningEffort: effort}},
			Questions: []result.Question{{Name: "Q1", Question: "2+2?", GroundTruth: &truth, Completion: &completion, Grade: &grade,
				Reasoning: "B) 5? no: " + effort, ReasoningTokens: 7, InputTokens: 3, OutputTokens: 9}},
		}
		p := filepath.Join(dir, result.FileName("input-think.md", "openai/o3", effort))
		if err := f.Write(p, outfile.Options{}); err != nil {
			t.Fatal(err)
		}
	}
	_, d, err := read(context.Background(), dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Runs) != 2 || d.Runs[0].Model != "openai/o3 · effort high" || d.Runs[1].Model != "openai/o3 · effort low" {
		t.Fatalf("runs %+v, want the two efforts apart", d.Runs)
	}
	for _, a := range d.Questions[0].Answers {
		want := "B) 5? no: " + d.Runs[a.Run].RunID
		if a.Reasoning == nil || textOf(d, *a.Reasoning) != want || textOf(d, a.Completion) != "A) 4" {
			t.Errorf("answer of %s: reasoning %v, want %q beside the completion", d.Runs[a.Run].Model, a.Reasoning, want)
		}
		if !strings.Contains(a.Info, "3 in / 9 out tokens (7 reasoning)") {
			t.Errorf("info %q", a.Info)
		}
	}
}

func textOf(d *Data, id int) string {
	s, _ := d.Text(id)
	return s
}
