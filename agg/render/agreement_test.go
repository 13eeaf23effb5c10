package render

import (
	"slices"
	"strings"
	"testing"

	"github.com/evalmd/evalmd/agg/stats"
)

// The summary has a row per grader, kappa n/a where it is undefined and
// its interval where its standard error is 0; a grader people never
// contradicted has no list; a list is capped.
func TestAgreementTables(t *testing.T) {
	if got := AgreementTables(nil, 0); got != nil {
		t.Errorf("tables without graders: %+v", got)
	}
	differ := [][]string{{"S", "q1", "m", "r", "right", "wrong"}, {"S", "q2", "m", "r", "wrong", "right"}, {"S", "q3", "m", "r", "right", "wrong"}}
	tables := AgreementTables([]GraderAgreement{
		{Grader: "a|b", Counts: stats.Agreement{BothRight: 3, OnlyA: 2, OnlyB: 1, BothWrong: 4}, Differ: differ},
		{Grader: "exact", Counts: stats.Agreement{BothWrong: 2}},
		{Grader: "one", Counts: stats.Agreement{OnlyB: 1}, Differ: differ[1:2]},
		{Grader: "same", Counts: stats.Agreement{BothRight: 2, BothWrong: 3}},
	}, 2)
	if len(tables) != 3 {
		t.Fatalf("%d tables, want the summary and the lists of a and one", len(tables))
	}
	// One answer the grader said wrong and a person right: pe 0, kappa 0
	// and a standard error of 0; graded alike throughout: kappa 1, error 0.
	if got := tables[0].Rows[2][7:]; !slices.Equal(got, []string{"0.000", "n/a"}) {
		t.Errorf("one's kappa and interval %q", got)
	}
	if got := tables[0].Rows[3][7:]; !slices.Equal(got, []string{"1.000", "n/a"}) {
		t.Errorf("same's kappa and interval %q", got)
	}
	if got := tables[0].Rows[1]; !slices.Equal(got, []string{"exact", "2", "1.000", "0", "0", "0", "2", "n/a", "n/a"}) {
		t.Errorf("exact's row %q", got)
	}
	if got := tables[0].Rows[0][:8]; !slices.Equal(got, []string{"a|b", "10", "0.700", "3", "2", "1", "4", "0.400"}) {
		// grader right .5, wrong .5; person right .4, wrong .6;
		// po .7, pe .5*.4 + .5*.6 = .5: kappa (.7 - .5) / (1 - .5) = .4.
		t.Errorf("a's row %q", got)
	}
	list := tables[1]
	if !strings.Contains(list.Title, `a\|b`) || len(list.Rows) != 2 || list.More != 1 || list.Note != "3 of 10 answers." {
		t.Errorf("a's list: %+v", list)
	}
}
