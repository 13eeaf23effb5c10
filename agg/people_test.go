package agg

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/evalmd/evalmd/internal/testkit/outputs"
	"github.com/evalmd/evalmd/result"
)

// reviewed is a question of a crafted output: the grader's grade and,
// when person is not nil, a person's verdict over it.
type reviewed struct {
	name, detail, from string
	grader             bool
	person             *bool
}

// writeReviewed writes an output of sheet on model under run whose
// questions grader graded as qs say, each with a request key.
func writeReviewed(t *testing.T, dir, sheet, model, run, grader string, qs []reviewed) {
	t.Helper()
	f := &result.File{Sheet: result.Sheet{Name: sheet, RunID: run, ModelName: model}}
	for _, r := range qs {
		truth, c := "truth of "+r.name, "an answer to "+r.name
		q := result.Question{Name: r.name, Question: "ask " + r.name, GroundTruth: &truth, Completion: &c, ModelName: model,
			Grader: grader, GradeDetail: r.detail, RequestKey: "key of " + r.name, ReusedFrom: r.from}
		g := r.grader
		q.Grade = &g
		if r.person != nil {
			p := *r.person
			q.Grade = &p
			q.Review = &result.Review{By: "ana", At: "2026-11-30T10:00:00Z", GraderGrade: &g}
		}
		f.Questions = append(f.Questions, q)
	}
	outputs.WriteInto(t, dir, f)
}

// reviewedRun is n questions named prefix01... graded grader, the person
// saying person (nil: not reviewed), numbered from first.
func reviewedRun(prefix string, first, n int, grader bool, person *bool) []reviewed {
	var out []reviewed
	for i := first; i < first+n; i++ {
		out = append(out, reviewed{name: fmt.Sprintf("%s%02d", prefix, i), grader: grader, person: person})
	}
	return out
}

// The Models table says how many of each model's grades are people's,
// and stderr how many of each Leaderboard cell's, as for liberal grades;
// an answer a rerun carries again counts once.
func TestPeopleGrades(t *testing.T) {
	dir := t.TempDir()
	yes, no := true, false
	writeReviewed(t, dir, "S", "m1", "r1", "exact", append(reviewedRun("q", 1, 3, true, &no), reviewedRun("q", 4, 2, true, nil)...))
	writeReviewed(t, dir, "T", "m1", "r2", "exact", reviewedRun("t", 1, 2, false, &yes))
	writeReviewed(t, dir, "S", "m2", "r3", "exact", reviewedRun("q", 1, 4, true, nil))
	first := result.FileName("input-S.md", "m1", "r1")
	writeReviewed(t, dir, "S", "m1", "r4", "exact", []reviewed{{name: "q01", from: first, grader: true, person: &no}, {name: "q09", grader: true}})
	var stdout, stderr bytes.Buffer
	if err := runTo(&stdout, &stderr, Options{Dir: dir, Out: "-"}); err != nil {
		t.Fatal(err)
	}
	md := stdout.String()
	// m1: 3 + 2 of its 5 + 2 + 1 grades; m2: none of 4.
	for _, s := range []string{"| model | graded | correct | wrong | accuracy | 95% CI         | stderr | people's grades |",
		"| 5 of 8          |", "| 0 of 4          |", "people's grades: how many of the grades are a person's verdict (review)"} {
		if !strings.Contains(md, s) {
			t.Errorf("the report lacks %q:\n%s", s, md)
		}
	}
	want := "agg: sheet S, model m1: 3 of 6 grades are a person's verdict (review), counted in place of the grader's\n" +
		"agg: sheet T, model m1: 2 of 2 grades are a person's verdict (review), counted in place of the grader's\n"
	if !strings.Contains(stderr.String(), want) || strings.Contains(stderr.String(), "model m2: ") {
		t.Errorf("stderr:\n%s\nwant the lines\n%s", stderr.String(), want)
	}
}

// Without any review, the report mentions no people: no column, no
// table, no line on stderr.
func TestNoReviewsNoPeople(t *testing.T) {
	dir := t.TempDir()
	writeReviewed(t, dir, "S", "m1", "r1", "exact", reviewedRun("q", 1, 4, true, nil))
	var stdout, stderr bytes.Buffer
	if err := runTo(&stdout, &stderr, Options{Dir: dir, Out: "-"}); err != nil {
		t.Fatal(err)
	}
	if s := stdout.String() + stderr.String(); strings.Contains(s, "people") || strings.Contains(s, "person") {
		t.Errorf("a folder without reviews mentions people:\n%s", s)
	}
}
