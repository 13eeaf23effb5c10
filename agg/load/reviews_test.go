package load

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/evalmd/evalmd/result"
)

// reviewedQ is a question graded by grader with detail, its grade a person's
// verdict over the grader's g (nil: the grader gave none).
func reviewedQ(name, grader, detail string, g *bool) result.Question {
	right := true
	return result.Question{Name: name, Grade: &right, Grader: grader, GradeDetail: detail,
		Review: &result.Review{By: "ana", At: "2026-11-30T10:00:00Z", GraderGrade: g}}
}

// Each review is labelled by its grader, the judge's by the model it
// asked: from its judge record, else its grade_detail, else the one
// model the file's other judged answers name.
func TestReviewGraderLabels(t *testing.T) {
	no := false
	called := func(m string) string { return "judge " + m + " (inspect): GRADE: I; reply: \"GRADE: I\"" }
	const identical = "identical to the ground truth (white space trimmed): right, no judge call made"
	withRecord := reviewedQ("r", "judge", "", &no)
	withRecord.Judge = json.RawMessage(`{"model": "x/rec", "reply": "GRADE: C"}`)
	unreviewed := result.Question{Name: "u", Grader: "judge", GradeDetail: called("m/two")}
	tests := []struct {
		name string
		qs   []result.Question
		want []string
	}{
		{"generic graders", []result.Question{reviewedQ("a", "exact", "", &no), reviewedQ("b", "", "", &no)},
			[]string{"exact", "(grader not recorded)"}},
		{"judge by detail and record", []result.Question{reviewedQ("a", "judge", called("openai/gpt-4o"), &no), withRecord},
			[]string{"judge (openai/gpt-4o)", "judge (x/rec)"}},
		{"no call: the run's one judge", []result.Question{reviewedQ("a", "judge", identical, &no), reviewedQ("b", "judge", called("m/one"), &no)},
			[]string{"judge (m/one)", "judge (m/one)"}},
		{"no call: the run's one judge, named by an answer not reviewed", []result.Question{reviewedQ("a", "judge", identical, &no), unreviewed},
			[]string{"judge (m/two)"}},
		{"no call, two judges in the run", []result.Question{reviewedQ("a", "judge", identical, &no), reviewedQ("b", "judge", called("m/one"), &no), unreviewed},
			[]string{"judge (model not recorded)", "judge (m/one)"}},
		{"details naming no model", []result.Question{reviewedQ("a", "judge", grade0, &no), reviewedQ("b", "judge", "judge error: timeout", &no), reviewedQ("c", "judge", "judge : x", &no)},
			[]string{"judge (model not recorded)", "judge (model not recorded)", "judge (model not recorded)"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, err := NewData(nil)
			if err != nil {
				t.Fatal(err)
			}
			d.Add(&result.File{Sheet: result.Sheet{Name: "S", ModelName: "m", RunID: "r"}, Questions: tt.qs})
			var got []string
			for _, rv := range d.Reviews() {
				got = append(got, d.Str(rv.Grader))
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("labels %q, want %q", got, tt.want)
			}
		})
	}
}

// grade0 is grade's detail of a judge question left without a judge.
const grade0 = "not graded: no judge model given (--judge MODEL)"

// A verdict over no grader's grade is a person's grade all the same.
func TestReviewWithoutGraderGrade(t *testing.T) {
	d, err := NewData(nil)
	if err != nil {
		t.Fatal(err)
	}
	yes := true
	d.Add(&result.File{Sheet: result.Sheet{Name: "S", ModelName: "m", RunID: "r"}, Questions: []result.Question{
		reviewedQ("a", "exact", "", nil), reviewedQ("b", "exact", "", &yes), {Name: "c", Grade: &yes}}})
	if got := d.PeopleGrades(); !slices.Equal(got, []string{"sheet S, model m: 2 of 3 grades are a person's verdict (review), counted in place of the grader's"}) {
		t.Errorf("PeopleGrades %q", got)
	}
}
