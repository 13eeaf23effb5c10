package regrade

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/evalmd/evalmd/benchmark/dabench/score"
	"github.com/evalmd/evalmd/grade"
	"github.com/evalmd/evalmd/internal/outfile"
	"github.com/evalmd/evalmd/model"
	"github.com/evalmd/evalmd/result"
)

// countingJudge says every answer is wrong, and counts its calls.
type countingJudge struct{ calls atomic.Int32 }

func (*countingJudge) Name() string     { return "fake/judge" }
func (*countingJudge) Info() model.Info { return model.Info{Provider: "fake"} }
func (j *countingJudge) Complete(context.Context, model.Request) (model.Response, error) {
	j.calls.Add(1)
	return model.Response{Text: "GRADE: I"}, nil
}

// An answer wrong against the ground truth is right by any accepted
// answer, with every grader that compares with a truth; the detail names
// the one matched. The judge is asked once, not once per accepted answer.
func TestAcceptedGrades(t *testing.T) {
	reg := grade.NewRegistry()
	for name, f := range score.Benchmark().Graders {
		if err := reg.Add(name, f); err != nil {
			t.Fatal(err)
		}
	}
	const options = "How many?\nA) 5\nB) 6\nC) six\n"
	for _, tc := range []struct {
		name, grader, truth string
		accepted            []string
		completion          string
		grade               string // true, false or null
		detail              string // substring of the grade detail
		parts               int    // sub-answers recorded
	}{
		{"lime", "lime", "B) 6", []string{"seven", "six guesses"}, "(b) six guesses", "true", `accepted answer 2 "six guesses": `, 0},
		{"lime, none matches", "lime", "B) 6", []string{"seven"}, "eight", "false", "", 0},
		{"lime, the truth matches", "lime", "B) 6", []string{"B"}, "B) 6", "true", "", 0},
		{"exact", "exact", "Paris", []string{"Paris, France"}, "paris,  france", "true", `accepted answer 1 "Paris, France"`, 0},
		{"choice", "choice", "B) 6", []string{"C) six"}, "The answer is C.", "true", `accepted answer 1 "C) six"`, 0},
		{"choice, unreadable accepted answer", "choice", "B) 6", []string{"42"}, "A", "null", `accepted answer 1 "42" cannot be graded`, 0},
		{"numeric", "numeric", "100", []string{"212"}, "It boils at 212 F.", "true", `accepted answer 1 "212"`, 0},
		{"dabench", "dabench", "@mean[1.5]\n@max[3]", []string{"@mean[1.5]\n@max[4]"}, "@mean[1.50] @max[4]", "true", `accepted answer 1 "@mean[1.5]\n@max[4]"`, 2},
		{"judge", "judge", "B) 6", []string{"six"}, "six", "false", "judge fake/judge", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			judge := &countingJudge{}
			g := NewGraders(reg, grade.Options{JudgeOptions: grade.JudgeOptions{Judge: judge}}, "")
			truth, completion := tc.truth, tc.completion
			q := result.Question{Name: "Q", GroundTruth: &truth, Accepted: tc.accepted, Question: options, Completion: &completion, Grader: tc.grader}
			f := &result.File{Sheet: result.Sheet{Name: "S"}}
			if _, err := GradeQuestion(context.Background(), f, &q, g, Verdicts{}); err != nil {
				t.Fatal(err)
			}
			if fmtGrade(q.Grade) != tc.grade || !strings.Contains(q.GradeDetail, tc.detail) ||
				tc.detail == "" && strings.Contains(q.GradeDetail, "accepted answer") {
				t.Errorf("grade %s, detail %q; want %s, %q", fmtGrade(q.Grade), q.GradeDetail, tc.grade, tc.detail)
			}
			if len(q.SubAnswers) != tc.parts {
				t.Errorf("sub-answers %+v, want %d", q.SubAnswers, tc.parts)
			}
			if n := judge.calls.Load(); tc.grader == "judge" && n != 1 {
				t.Errorf("the judge was asked %d times, want once", n)
			}
		})
	}
}

// Run refuses, before asking, a question whose grader cannot read one of
// its accepted answers, naming it.
func TestAcceptedCheck(t *testing.T) {
	truth := "B) 6"
	q := result.Question{Name: "Q", GroundTruth: &truth, Accepted: []string{"C", "42"}, Question: "A) 5\nB) 6\nC) six\n", Grader: "choice"}
	err := NewGraders(nil, grade.Options{}, "").Check(&q, nil)
	if err == nil || !strings.Contains(err.Error(), `accepted answer 2 "42": `) {
		t.Errorf("Check = %v, want the second accepted answer named", err)
	}
	q.Accepted = q.Accepted[:1]
	if err := NewGraders(nil, grade.Options{}, "").Check(&q, nil); err != nil {
		t.Errorf("Check = %v", err)
	}
}

// grade -i takes the sheet's accepted answers into the first question of
// each name, replacing or clearing what the file had, and grades by them.
func TestRegradeSheetAccepted(t *testing.T) {
	s := func(x string) *string { return &x }
	f := &result.File{Sheet: result.Sheet{Name: "S", ModelName: "m"}, Questions: []result.Question{
		{Name: "q1", GroundTruth: s("B) 6"), Completion: s("six guesses"), Accepted: []string{"old"}},
		{Name: "q2", GroundTruth: s("Lyon"), Completion: s("Lyon"), Accepted: []string{"old"}},
		{Name: "q1", GroundTruth: s("B) 6"), Completion: s("six guesses")},
		{Name: "q3", GroundTruth: s("x"), Completion: s("y"), Accepted: []string{"kept"}},
	}}
	path := filepath.Join(t.TempDir(), "output-s-m.json")
	if err := f.Write(path, outfile.Options{}); err != nil {
		t.Fatal(err)
	}
	sheet := &SheetTruths{Path: "input-s.md", Truths: map[string]*string{"q1": s("B) 6"), "q2": s("Lyon")},
		Accepted: map[string][]string{"q1": {"six guesses"}}}
	rep, err := Regrade(context.Background(), []string{path}, Options{Write: true, Sheet: sheet})
	if err != nil {
		t.Fatal(err)
	}
	got, err := result.Read(path)
	if err != nil {
		t.Fatal(err)
	}
	want := [][]string{{"six guesses"}, nil, nil, {"kept"}}
	for i, q := range got.Questions {
		if !reflect.DeepEqual(q.Accepted, want[i]) {
			t.Errorf("question %d: accepted %q, want %q", i+1, q.Accepted, want[i])
		}
	}
	if g := rep.Files[0].New; fmtGrade(g[0]) != "true" || fmtGrade(g[2]) != "false" {
		t.Errorf("grades %s %s, want true false", fmtGrade(g[0]), fmtGrade(g[2]))
	}
	data, _ := os.ReadFile(path)
	if strings.Count(string(data), `"accepted"`) != 2 {
		t.Errorf("the file records accepted answers %d times, want 2", strings.Count(string(data), `"accepted"`))
	}
}
