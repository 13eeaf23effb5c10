package execute

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/evalmd/evalmd/model"
	"github.com/evalmd/evalmd/result"
	"github.com/evalmd/evalmd/runner"
)

// TestRerunReusesAnswers: a new run of a sheet asks only the questions
// whose request changed since an earlier output answered them, grades
// the reused answers as the sheet is now, and writes nothing when the
// earlier output already holds what it would (current); an output that
// holds every answer the earlier one gave to the sheet as it is now puts
// it aside (superseded).
func TestRerunReusesAnswers(t *testing.T) {
	const added = threeQuestions + "## D\n#### question\nsay d\n#### answer\nd\n"
	tests := []struct {
		name, sheet string // the sheet the second run reads
		asked       []string
		current     bool // nothing written: the earlier output holds it
		correct     int
		superseded  bool // the earlier output put aside
		say         string
	}{
		{name: "nothing changed", sheet: threeQuestions, current: true, correct: 3,
			say: "m1 on input-s1.md: 3/3 correct, nothing asked: current, output-s1-m1-r1.json holds these answers graded alike; nothing written"},
		{name: "a question added", sheet: added, asked: []string{"D"}, correct: 4, superseded: true,
			say: "m1 on input-s1.md: 4/4 correct, 1 asked, 3 reused (unchanged since output-s1-m1-r1.json)"},
		{name: "a prompt edited", sheet: strings.Replace(threeQuestions, "say b", "tell b", 1), asked: []string{"B"}, correct: 3, superseded: true,
			say: "3/3 correct, 1 asked, 2 reused"},
		{name: "a truth edited", sheet: strings.Replace(threeQuestions, "#### answer\nb", "#### answer\nz", 1), correct: 2, superseded: true,
			say: "2/3 correct, 0 asked, 3 reused"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := newBench(t, []model.Model{&scripted{name: "m1"}}, "input-s1.md", threeQuestions)
			b.reuse = true
			if _, _, err := b.run(context.Background(), runner.Options{}); err != nil {
				t.Fatal(err)
			}
			first := filepath.Join(b.dir, "output-s1-m1-r1.json")
			if err := os.WriteFile(b.sheets[0], []byte(tt.sheet), 0o644); err != nil {
				t.Fatal(err)
			}
			m := &scripted{name: "m1"}
			b.models, b.runID = []model.Model{m}, "r2"
			b.console.Reset()
			res, outs, err := b.run(context.Background(), runner.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if got := m.questions(); !slices.Equal(got, tt.asked) {
				t.Errorf("asked %v, want %v", got, tt.asked)
			}
			if !strings.Contains(b.console.String(), tt.say) {
				t.Errorf("console lacks %q:\n%s", tt.say, b.console.String())
			}
			if len(res.Files) != 1 || res.Files[0].Current != tt.current || res.Files[0].Tally.Correct != tt.correct {
				t.Fatalf("files %+v, want one, current %v, %d correct", res.Files, tt.current, tt.correct)
			}
			_, err = os.Stat(outs[0].OutPath)
			if written := err == nil; written == tt.current {
				t.Errorf("%s written: %v, want %v", outs[0].OutPath, written, !tt.current)
			}
			if tt.current && res.Files[0].Path != first {
				t.Errorf("current file %s, want %s", res.Files[0].Path, first)
			}
			_, err = os.Stat(filepath.Join(b.dir, result.Superseded, filepath.Base(first)))
			if aside := err == nil; aside != tt.superseded {
				t.Errorf("%s put aside: %v, want %v\n%s", first, aside, tt.superseded, b.console.String())
			}
		})
	}
}
