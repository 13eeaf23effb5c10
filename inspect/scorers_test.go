package inspect

import (
	"slices"
	"testing"

	"github.com/evalmd/evalmd/result"
)

// eval.scorers names each scorer of the results, in their order, with the
// metrics the results hold under Inspect's registry names, so Inspect's
// recompute_metrics computes the same table again; nothing scored, no
// scorers.
func TestEvalScorers(t *testing.T) {
	b := func(v bool) *bool { return &v }
	s := func(v string) *string { return &v }
	q := func(name, grader string, grade *bool) result.Question {
		return result.Question{Name: name, Question: name, GroundTruth: s("1"), Completion: s("1"), Grader: grader, Grade: grade}
	}
	cases := []struct {
		name      string
		questions []result.Question
		dry       bool
		want      []string
	}{
		{"one grader", []result.Question{q("a", "exact", b(true)), q("b", "exact", b(false))}, false, []string{"exact"}},
		{"LIME's", []result.Question{q("a", "", b(true))}, false, []string{"lime"}},
		{"several, in the results' order", []result.Question{q("a", "numeric", b(true)), q("b", "exact", b(false)), q("c", "numeric", nil)},
			false, []string{"numeric", "exact"}},
		{"none graded", []result.Question{q("a", "exact", nil)}, false, nil},
		{"dry run", []result.Question{q("a", "exact", nil)}, true, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := &result.File{Sheet: result.Sheet{Name: "S", RunID: "r1", ModelName: "m", Created: "2025-01-02T03:04:05Z", DryRun: tc.dry},
				Questions: tc.questions}
			_, lg := writeRead(t, f, LogOptions{})
			var names []string
			for _, sc := range lg.Eval.Scorers {
				names = append(names, sc.Name)
				var metrics []string
				for _, m := range sc.Metrics {
					metrics = append(metrics, m.Name)
					if m.Options == nil {
						t.Errorf("%s: metric %s: options null, want {} as Inspect records a metric's arguments", sc.Name, m.Name)
					}
				}
				if !slices.Equal(metrics, []string{"inspect_ai/accuracy", "inspect_ai/stderr"}) {
					t.Errorf("%s: metrics %v, want Inspect's accuracy and stderr", sc.Name, metrics)
				}
				if sc.Options == nil || sc.Metadata == nil {
					t.Errorf("%s: options %v metadata %v, want {} each", sc.Name, sc.Options, sc.Metadata)
				}
			}
			if !slices.Equal(names, tc.want) {
				t.Errorf("eval.scorers %v, want %v", names, tc.want)
			}
			var results []string
			if lg.Results != nil {
				for _, sc := range lg.Results.Scores {
					results = append(results, sc.Name)
				}
			}
			if !slices.Equal(results, names) {
				t.Errorf("results.scores %v, want the scorers' order %v", results, names)
			}
		})
	}
}
