package agg

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/evalmd/evalmd/agg/stats"
	"github.com/evalmd/evalmd/result"
)

// TestAgreementWithPeople: 20 answers the exact grader graded and people
// reviewed (9 both right, 3 right by the grader only, 1 by the person
// only, 7 both wrong) over two models, and 5 the judge graded that
// people found all right; a rerun carries one reviewed answer again and
// it counts once. The table's figures are checked against kappa worked
// out by hand.
func TestAgreementWithPeople(t *testing.T) {
	dir := t.TempDir()
	yes, no := true, false
	var m1 []reviewed
	m1 = append(m1, reviewedRun("q", 1, 5, true, &yes)...)  // both right
	m1 = append(m1, reviewedRun("q", 6, 2, true, &no)...)   // grader right, person wrong: q06 q07
	m1 = append(m1, reviewedRun("q", 8, 1, false, &yes)...) // grader wrong, person right: q08
	m1 = append(m1, reviewedRun("q", 9, 2, false, &no)...)  // both wrong
	m1 = append(m1, reviewedRun("q", 11, 2, true, nil)...)  // not reviewed
	writeReviewed(t, dir, "S", "m1", "r1", "exact", m1)
	var m2 []reviewed
	m2 = append(m2, reviewedRun("q", 1, 4, true, &yes)...) // both right
	m2 = append(m2, reviewedRun("q", 5, 1, true, &no)...)  // grader right, person wrong: q05
	m2 = append(m2, reviewedRun("q", 6, 5, false, &no)...) // both wrong
	writeReviewed(t, dir, "S", "m2", "r2", "exact", m2)
	// The judge: four calls to one model and one answer identical to the
	// truth (no call), which takes the run's judge model.
	judged := reviewedRun("t", 1, 5, true, &yes)
	for i := range judged[:4] {
		judged[i].detail = `judge openai/gpt-4o (inspect): GRADE: C; reply: "GRADE: C"`
	}
	judged[4].detail = "identical to the ground truth (white space trimmed): right, no judge call made"
	writeReviewed(t, dir, "T", "m1", "r3", "judge", judged)
	// A rerun of m1 on S reused q06 (reviewed, a disagreement) and asked q13.
	first := result.FileName("input-S.md", "m1", "r1")
	writeReviewed(t, dir, "S", "m1", "r4", "exact", []reviewed{{name: "q06", from: first, grader: true, person: &no}, {name: "q13", grader: true}})

	var stdout, stderr bytes.Buffer
	if err := runTo(&stdout, &stderr, Options{Dir: dir, Out: "-"}); err != nil {
		t.Fatal(err)
	}
	d, err := Read(context.Background(), Options{Dir: dir}, nil)
	if err != nil {
		t.Fatal(err)
	}
	ags := d.Agreements()
	if len(ags) != 2 || ags[0].Grader != "exact" || ags[1].Grader != "judge (openai/gpt-4o)" {
		t.Fatalf("agreements %+v, want exact and judge (openai/gpt-4o)", ags)
	}
	if got, want := ags[0].Counts, (stats.Agreement{BothRight: 9, OnlyA: 3, OnlyB: 1, BothWrong: 7}); got != want {
		t.Errorf("exact: %+v, want %+v (the rerun's q06 counted once)", got, want)
	}
	if got, want := ags[1].Counts, (stats.Agreement{BothRight: 5}); got != want {
		t.Errorf("judge: %+v, want %+v", got, want)
	}

	// By hand, n = 20 (grader rows, person columns):
	//   p = [[9 3] [1 7]] / 20; grader right .6, wrong .4; person right .5, wrong .5
	//   po = (9 + 7) / 20 = .8; pe = .6 * .5 + .4 * .5 = .5; kappa = (.8 - .5) / (1 - .5) = .6
	//   A = .45 (1 - (.6 + .5)(1 - .6))^2 + .35 (1 - (.4 + .5)(1 - .6))^2 = .45 * .3136 + .35 * .4096 = .28448
	//   B = (1 - .6)^2 (.15 (.5 + .4)^2 + .05 (.5 + .6)^2) = .16 * .182 = .02912
	//   C = (.6 - .5 (1 - .6))^2 = .16
	//   se = sqrt((A + B - C) / (20 (1 - .5)^2)) = sqrt(.1536 / 5) = .17527; 95% CI .6 -+ 1.96 se
	se := math.Sqrt(0.1536 / 5)
	want := []string{"exact", "20", "0.800", "9", "3", "1", "7", "0.600",
		fmt.Sprintf("[%.3f, %.3f]", 0.6-1.959964*se, 0.6+1.959964*se)}
	if want[8] != "[0.256, 0.944]" {
		t.Fatalf("the hand's interval is %s", want[8])
	}
	tables := d.agreementTables(0)
	if len(tables) != 2 {
		t.Fatalf("%d agreement tables, want a summary and exact's answers graded otherwise (the judge has none)", len(tables))
	}
	if got := tables[0].Rows; len(got) != 2 || !slices.Equal(got[0], want) ||
		!slices.Equal(got[1], []string{"judge (openai/gpt-4o)", "5", "1.000", "5", "0", "0", "0", "n/a", "n/a"}) {
		t.Errorf("summary rows:\n%q\nwant %q and the judge's with n/a", got, want)
	}
	wantDiffer := [][]string{
		{"S", "q05", "m2", "r2", "right", "wrong"},
		{"S", "q06", "m1", "r1", "right", "wrong"},
		{"S", "q07", "m1", "r1", "right", "wrong"},
		{"S", "q08", "m1", "r1", "wrong", "right"},
	}
	if got := tables[1].Rows; !slices.EqualFunc(got, wantDiffer, slices.Equal) {
		t.Errorf("exact's answers graded otherwise:\n%q\nwant %q", got, wantDiffer)
	}

	// The report has the tables, the Models table the people's grades,
	// and stderr names the Leaderboard cells holding them.
	md := stdout.String()
	for _, s := range []string{"### Graders against people: agreement with people's verdicts",
		"| exact                 |      20 |     0.800 |",
		"### Grader exact against people: the answers graded otherwise", "4 of 20 answers.",
		"people's grades", "| 15 of 18        |", "| 10 of 10        |"} {
		if !strings.Contains(md, s) {
			t.Errorf("the report lacks %q:\n%s", s, md)
		}
	}
	for _, s := range []string{
		"agg: sheet S, model m1: 10 of 13 grades are a person's verdict (review), counted in place of the grader's\n",
		"agg: sheet S, model m2: 10 of 10 grades are a person's verdict (review), counted in place of the grader's\n",
		"agg: sheet T, model m1: 5 of 5 grades are a person's verdict (review), counted in place of the grader's\n",
		"1 of its 2 answers are counted from"} {
		if !strings.Contains(stderr.String(), s) {
			t.Errorf("stderr lacks %q:\n%s", s, stderr.String())
		}
	}
}
