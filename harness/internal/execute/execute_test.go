package execute

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/evalmd/evalmd/model"
	"github.com/evalmd/evalmd/runner"
)

// TestRunAsksAndWrites: every question of every output is asked once, in
// the order of the outputs (sheet by sheet, each on every model), graded
// and written; the step counts them, says one line an output, and keeps
// the journal only while some question failed.
func TestRunAsksAndWrites(t *testing.T) {
	replay := filepath.Join(t.TempDir(), "answers.jsonl")
	if err := os.WriteFile(replay, []byte(`{"name":"A","response":"a"}`+"\n"+`{"name":"B","response":"x"}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		models func(t *testing.T) []model.Model
		sheets int
		// asked are the questions each scripted model is asked, in order.
		asked     []string
		correct   []int // each output's, in the order of the outputs
		failed    int
		firstErr  string
		say       []string // lines the console must hold
		keepsJour bool
	}{
		{name: "two sheets on two models", sheets: 2,
			models: func(*testing.T) []model.Model { return []model.Model{&scripted{name: "m1"}, &scripted{name: "m2"}} },
			asked:  []string{"A", "B", "C", "A", "B", "C"}, correct: []int{3, 3, 3, 3},
			say: []string{"m1 on input-s1.md: 3/3 correct, 3 answered, 0 errors, 0 unanswered, 3 calls (0 cached, 0 resumed), tokens 9 in / 3 out, $15.0000",
				"m2 on input-s2.md: 3/3 correct"}},
		{name: "a failed question keeps the journal", sheets: 1,
			models: func(*testing.T) []model.Model {
				return []model.Model{&scripted{name: "m1", fail: map[string]bool{"B": true}}}
			},
			asked: []string{"A", "B", "C"}, correct: []int{2}, failed: 1, firstErr: `question "B": the server broke`,
			say:       []string{`m1 on input-s1.md: 2/3 correct, 2 answered, 1 errors (first: model m1, question "B": the server broke`},
			keepsJour: true},
		{name: "mock answers its reply", sheets: 1,
			models:  func(t *testing.T) []model.Model { return []model.Model{builtinModel(t, "mock")} },
			correct: []int{0}, say: []string{"mock on input-s1.md: 0/3 correct, 3 answered, 0 errors, 0 unanswered, 3 calls", "$0.0000"}},
		{name: "replay leaves what its file lacks unanswered", sheets: 1,
			models:  func(t *testing.T) []model.Model { return []model.Model{builtinModel(t, "replay:"+replay)} },
			correct: []int{1}, say: []string{"1/3 correct, 2 answered, 0 errors, 1 unanswered"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var sheets []string
			for i := range tt.sheets {
				sheets = append(sheets, "input-s"+string(rune('1'+i))+".md", threeQuestions)
			}
			models := tt.models(t)
			b := newBench(t, models, sheets...)
			res, outs, err := b.run(context.Background(), runner.Options{})
			if err != nil {
				t.Fatal(err)
			}
			for _, m := range models {
				if s, ok := m.(*scripted); ok && !slices.Equal(s.questions(), tt.asked) {
					t.Errorf("%s asked %v, want %v", s.name, s.questions(), tt.asked)
				}
			}
			if len(res.Files) != len(outs) || res.Questions != 3*len(outs) || res.Failed != tt.failed {
				t.Errorf("%d files, %d questions, %d failed; want %d, %d, %d", len(res.Files), res.Questions, res.Failed, len(outs), 3*len(outs), tt.failed)
			}
			if !strings.Contains(res.FirstError, tt.firstErr) || (tt.firstErr == "") != (res.FirstError == "") {
				t.Errorf("first error %q, want one holding %q", res.FirstError, tt.firstErr)
			}
			for i, o := range outs {
				f := readOutput(t, o.OutPath)
				if f.Sheet.Totals == nil || f.Sheet.Totals.Questions != 3 || f.Sheet.Totals.Errors != tt.failed {
					t.Errorf("%s: totals %+v", o.OutPath, f.Sheet.Totals)
				}
				if res.Files[i].Path != o.OutPath || res.Files[i].Tally.Correct != tt.correct[i] {
					t.Errorf("file %d: %s with %d correct, want %s with %d", i, res.Files[i].Path, res.Files[i].Tally.Correct, o.OutPath, tt.correct[i])
				}
			}
			for _, line := range tt.say {
				if !strings.Contains(b.console.String(), line) {
					t.Errorf("console lacks %q:\n%s", line, b.console.String())
				}
			}
			if _, err := os.Stat(b.journal()); (err == nil) != tt.keepsJour {
				t.Errorf("journal kept: %v, want %v", err == nil, tt.keepsJour)
			}
		})
	}
}

// TestRunStops: a run that cannot finish says how far it went and where
// its answers are kept, writes no output after the stop, and keeps its
// journal for the rerun: a context cancelled before the first question
// or after the first answer, an output that cannot be written.
func TestRunStops(t *testing.T) {
	tests := []struct {
		name string
		// cancelAfter cancels the run after the answer to this question;
		// "-" before the run starts.
		cancelAfter string
		failWrite   bool
		want        []string // what the error says
		wantIs      error
		asked       int
	}{
		{name: "cancelled before", cancelAfter: "-", want: []string{"stopped with 0 of 3 questions answered", "answers so far are kept in"}},
		{name: "cancelled after the first answer", cancelAfter: "A", asked: 1,
			want: []string{"stopped with 1 of 3 questions answered", "rerun the same command to go on"}},
		{name: "an output that cannot be written", failWrite: true, asked: 3, wantIs: errDiskFull,
			want: []string{"no space left on device (answers so far are kept in"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			m := &scripted{name: "m1"}
			if tt.cancelAfter != "" && tt.cancelAfter != "-" {
				m.after = func(q string) {
					if q == tt.cancelAfter {
						cancel()
					}
				}
			}
			b := newBench(t, []model.Model{m}, "input-s1.md", threeQuestions)
			fw := &failingWriter{}
			if tt.failWrite {
				b.writer = fw
			}
			outs := b.outputs(context.Background(), "r1")
			if tt.cancelAfter == "-" {
				cancel()
			}
			res, _, err := b.run(ctx, runner.Options{})
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q, want it to say %q", err, w)
				}
			}
			if !strings.Contains(err.Error(), b.journal()) {
				t.Errorf("error %q does not name the journal", err)
			}
			if tt.wantIs != nil && !errors.Is(err, tt.wantIs) {
				t.Errorf("error %v is not %v", err, tt.wantIs)
			}
			if got := len(m.questions()); got != tt.asked {
				t.Errorf("%d questions asked, want %d", got, tt.asked)
			}
			if len(res.Files) != 0 {
				t.Errorf("files %v reported written", res.Files)
			}
			if _, err := os.Stat(outs[0].OutPath); err == nil {
				t.Errorf("%s written after the stop", outs[0].OutPath)
			}
			if _, err := os.Stat(b.journal()); err != nil && tt.cancelAfter != "-" {
				t.Errorf("journal: %v, want it kept for the rerun", err)
			}
		})
	}
}
