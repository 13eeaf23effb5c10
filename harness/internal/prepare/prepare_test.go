package prepare

import (
	"strings"
	"testing"

	"github.com/evalmd/evalmd/internal/setting"
	"github.com/evalmd/evalmd/schema"
	"github.com/evalmd/evalmd/sheet"
)

// sheetOf parses text as the sheet input-t.md.
func sheetOf(t *testing.T, text string) *Sheet {
	t.Helper()
	doc, err := sheet.Parse("input-t.md", []byte(text), schema.Default())
	if err != nil {
		t.Fatal(err)
	}
	info, items := doc.Resolve()
	return &Sheet{Path: "input-t.md", Info: info, Items: items}
}

// TestSettingsResolvedOnce: Plan resolves each question's settings once
// for the run, the questions without meta of their own sharing one
// resolution, and takes its epochs from them; an epochs value that is not
// one is its error, another setting's is kept for the question's request.
func TestSettingsResolvedOnce(t *testing.T) {
	flags := []setting.Layer{{Source: setting.Flag, Values: map[string]string{"max_tokens": "50"}}}
	tests := []struct {
		name    string
		text    string
		epochs  []int
		shared  [][2]int // questions that share one resolution
		own     [][2]int // questions that do not
		errs    []string // each question's kept error, "" for none
		planErr string
	}{
		{name: "no meta shares", text: "# S\n#### meta\nepochs: 2\n## A\n#### question\na\n## B\n#### question\nb\n## C\n#### meta\nepochs: 3\n#### question\nc\n",
			epochs: []int{2, 2, 3}, shared: [][2]int{{0, 1}}, own: [][2]int{{0, 2}}, errs: []string{"", "", ""}},
		{name: "an error names its question", text: "# S\n#### meta\nmode: nonsense\n## A\n#### question\na\n## B\n#### question\nb\n",
			epochs: []int{0, 0}, own: [][2]int{{0, 1}}, errs: []string{`question "A"`, `question "B"`}},
		{name: "another setting's error is kept", text: "# S\n## A\n#### meta\nmode: nonsense\nepochs: 4\n#### question\na\n",
			epochs: []int{4}, errs: []string{"mode"}},
		{name: "a bad epochs stops the plan", text: "# S\n## A\n#### meta\nmode: nonsense\nepochs: many\n#### question\na\n",
			planErr: "epochs"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := sheetOf(t, tt.text)
			ps, err := s.Plan(flags, nil)
			if tt.planErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.planErr) {
					t.Fatalf("Plan: %v, want an error naming %s", err, tt.planErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			for i, q := range ps.Questions {
				if q.Epochs != tt.epochs[i] {
					t.Errorf("question %d: epochs %d, want %d", i, q.Epochs, tt.epochs[i])
				}
				r := s.settings[i]
				switch {
				case tt.errs[i] == "" && r.Err != nil:
					t.Errorf("question %d: %v", i, r.Err)
				case tt.errs[i] == "" && r.Values.Gen.MaxTokens != 50:
					t.Errorf("question %d: max_tokens %d, want the flag's 50", i, r.Values.Gen.MaxTokens)
				case tt.errs[i] != "" && (r.Err == nil || !strings.Contains(r.Err.Error(), tt.errs[i])):
					t.Errorf("question %d: error %v, want one naming %s", i, r.Err, tt.errs[i])
				}
			}
			for _, p := range tt.shared {
				if s.settings[p[0]] != s.settings[p[1]] {
					t.Errorf("questions %d and %d: resolved apart, want one resolution", p[0], p[1])
				}
			}
			for _, p := range tt.own {
				if s.settings[p[0]] == s.settings[p[1]] {
					t.Errorf("questions %d and %d: one resolution, want each its own", p[0], p[1])
				}
			}
			settings := s.settings
			if s.resolve(nil); &s.settings[0] != &settings[0] {
				t.Error("resolved again")
			}
		})
	}
}
