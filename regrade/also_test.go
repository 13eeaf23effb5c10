package regrade

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/evalmd/evalmd/grade"
	"github.com/evalmd/evalmd/result"
)

// The also_grade meta's graders record their verdicts beside the grade,
// which stays the grader's; they take the accepted answers too, and an
// also_grade run cannot honour is refused before the run at its line.
func TestAlsoGrade(t *testing.T) {
	s := func(x string) *string { return &x }
	f := &result.File{Sheet: result.Sheet{Name: "S", MetaData: map[string]string{"also_grade": "json"}}}
	for _, tc := range []struct {
		truth, answer string
		accepted      []string
		grade         bool
		also          string // fmtGrade of the json verdict
		detail        string
	}{
		{`{'Q': 1, 'n': 'x'}`, `{"n": "X", "Q": 1}`, nil, false, "true", "json (whole): equal to the truth"},
		{`{'Q': 1}`, `{'Q': 1}`, nil, true, "true", "json (Python literal at byte 0): equal to the truth"},
		{`{'Q': 1}`, `The answer: {"Q": 2}`, nil, false, "false", "json (at byte 12): $.Q: 2 != 1"},
		{`{'Q': 1}`, `{"Q": 2}`, []string{`{"Q": 2}`}, true, "true", `accepted answer 1 "{\"Q\": 2}": json (whole): equal to the truth`},
	} {
		q := &result.Question{Name: "Q", MetaData: map[string]string{"grader": "exact"}, GroundTruth: s(tc.truth), Completion: s(tc.answer), Accepted: tc.accepted}
		g := NewGraders(nil, grade.Options{}, "")
		if err := g.CheckIn(q, &f.Sheet); err != nil {
			t.Fatalf("CheckIn: %v", err)
		}
		if _, err := GradeQuestion(context.Background(), f, q, g, Verdicts{}); err != nil {
			t.Fatal(err)
		}
		if q.Grade == nil || *q.Grade != tc.grade || q.Grader != "exact" || len(q.AlsoGraded) != 1 {
			t.Fatalf("%s: grade %v by %s, also %+v", tc.answer, q.Grade, q.Grader, q.AlsoGraded)
		}
		a := q.AlsoGraded[0]
		if a.Grader != "json" || fmtGrade(a.Grade) != tc.also || a.Detail != tc.detail {
			t.Errorf("%s: also %s %s %q, want %s %q", tc.answer, a.Grader, fmtGrade(a.Grade), a.Detail, tc.also, tc.detail)
		}
	}
	for meta, want := range map[string]string{
		"jsn":  `also_grade jsn: unknown grader "jsn"`,
		"json": `also_grade json: json: ground truth "Paris" is not JSON`,
	} {
		q := &result.Question{Name: "Q", MetaData: map[string]string{"also_grade": meta}, GroundTruth: s("Paris")}
		err := NewGraders(nil, grade.Options{}, "").CheckIn(q, &result.Sheet{})
		var me *grade.MetaError
		if err == nil || !strings.HasPrefix(err.Error(), want) || !errors.As(err, &me) || me.Key != "also_grade" {
			t.Errorf("also_grade %s: %v, want %q at the also_grade line", meta, err, want)
		}
	}
}
