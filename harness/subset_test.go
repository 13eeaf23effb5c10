package harness

import (
	"reflect"
	"strings"
	"testing"

	"github.com/evalmd/evalmd/sheet"
)

// The subset keeps, in sheet order, the questions whose name or id meta
// matches a glob, then the first Limit of them, and says which globs
// matched.
func TestSubsetChoose(t *testing.T) {
	items := []sheet.Item{
		{Name: "Planet-Count"},
		{Name: "Largest-Planet", Meta: map[string]string{"id": "q-7"}},
		{Name: "Red-Planet", Meta: map[string]string{"level": "easy"}},
		{Name: "Moon-Count", Meta: map[string]string{"id": "q-9"}},
		{Name: "Ring-Planet"},
	}
	for _, tc := range []struct {
		name    string
		sub     Subset
		want    string // names kept, comma-separated
		matched []bool
	}{
		{"all", Subset{}, "Planet-Count,Largest-Planet,Red-Planet,Moon-Count,Ring-Planet", []bool{}},
		{"limit", Subset{Limit: 2}, "Planet-Count,Largest-Planet", []bool{}},
		{"limit over the sheet", Subset{Limit: 9}, "Planet-Count,Largest-Planet,Red-Planet,Moon-Count,Ring-Planet", []bool{}},
		{"glob on names, sheet order", Subset{Questions: []string{"R*", "*Count"}}, "Planet-Count,Red-Planet,Moon-Count,Ring-Planet", []bool{true, true}},
		{"glob on the id meta", Subset{Questions: []string{"q-[0-8]"}}, "Largest-Planet", []bool{true}},
		{"exact id", Subset{Questions: []string{"q-9"}}, "Moon-Count", []bool{true}},
		{"filter, then limit", Subset{Questions: []string{"*Planet"}, Limit: 2}, "Largest-Planet,Red-Planet", []bool{true}},
		{"a glob matching past the limit", Subset{Questions: []string{"P*", "Moon-Count"}, Limit: 1}, "Planet-Count", []bool{true, true}},
		{"a glob matching nothing", Subset{Questions: []string{"Red-Planet", "Sun*"}}, "Red-Planet", []bool{true, false}},
		{"case matters", Subset{Questions: []string{"red-planet"}}, "", []bool{false}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			matched := make([]bool, len(tc.sub.Questions))
			var names []string
			for _, it := range tc.sub.choose(items, matched) {
				names = append(names, it.Name)
			}
			if got := strings.Join(names, ","); got != tc.want {
				t.Errorf("kept %q, want %q", got, tc.want)
			}
			if !reflect.DeepEqual(matched, tc.matched) {
				t.Errorf("matched %v, want %v", matched, tc.matched)
			}
		})
	}
}

func TestSubsetCheck(t *testing.T) {
	for _, tc := range []struct {
		sub  Subset
		want string // "" when valid
	}{
		{Subset{Limit: 3, Questions: []string{"a*", "[bc]?"}}, ""},
		{Subset{Limit: -1}, "--limit -1"},
		{Subset{Questions: []string{"[a"}}, `--questions "[a": syntax error in pattern`},
	} {
		err := tc.sub.Check()
		if (err == nil) != (tc.want == "") || err != nil && !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: %v, want %q", tc.sub, err, tc.want)
		}
	}
}

// Another subset is another run: its journal is its own; no subset keeps
// the journal a run without the flags always had.
func TestSubsetKeysTheJournal(t *testing.T) {
	base := Config{Sheets: []string{"s.md"}, Models: []string{"mock"}, OutDir: "out"}
	whole, _ := ResumeFiles(base)
	seen := map[string]string{whole: "no subset"}
	for _, sub := range []Subset{{Limit: 3}, {Limit: 4}, {Questions: []string{"a*"}}, {Questions: []string{"a*", "b"}}, {Limit: 3, Questions: []string{"a*"}}} {
		cfg := base
		cfg.Subset = sub
		j, _ := ResumeFiles(cfg)
		if prev, ok := seen[j]; ok {
			t.Errorf("%+v shares the journal of %s", sub, prev)
		}
		seen[j] = "the subset " + strings.Join(sub.Questions, ",")
		if again, _ := ResumeFiles(cfg); again != j {
			t.Errorf("%+v: the journal moved between two calls", sub)
		}
	}
}
