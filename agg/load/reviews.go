package load

import (
	"encoding/json"
	"strings"

	"github.com/evalmd/evalmd/result"
)

// Review is a person's verdict on a counted answer (result.Review): the
// row's Grade is the person's, GraderGrade what its grader had given.
// Reviews are kept apart from the rows, which most folders have none of.
type Review struct {
	Row uint32 // the answer's index in Rows
	// Grader is the grader that graded the answer, the judge grader with
	// the model it asked: "judge (openai/gpt-4o)".
	Grader      Str
	GraderGrade int8
}

// Reviews are the counted answers a person's verdict covers, in the
// order of Rows.
func (d *Data) Reviews() []Review { return d.reviews }

// The judge grader's label when the model it asked is not recorded.
const judgeUnknown = "judge (model not recorded)"

// review records the verdict on q, the answer about to be row i.
func (a *adder) review(q *result.Question, i int) {
	name := q.Grader
	switch {
	case name == "":
		name = "(grader not recorded)"
	case name == "judge":
		name = judgeUnknown
		if m := judgeModel(q); m != "" {
			name = "judge (" + m + ")"
		}
	}
	a.d.reviews = append(a.d.reviews, Review{Row: uint32(i), Grader: a.d.strs.id(name), GraderGrade: gradeOf(q.Review.GraderGrade)})
}

// noteJudge notes the model the judge grader asked of q, when q's
// grader is the judge: a file whose judged answers name one model
// (one run's --judge) lends it to those of its reviewed answers that name
// none (an answer identical to the truth is right with no call).
func (a *adder) noteJudge(q *result.Question) {
	if q.Grader != "judge" {
		return
	}
	if m := judgeModel(q); m != "" && a.judge != m {
		a.judges++
		a.judge = m
	}
}

// lendJudge gives the file's reviewed judge answers that name no model
// the one model its others name (noteJudge), when they name one.
func (a *adder) lendJudge() {
	if a.judges != 1 {
		return
	}
	unknown, ok := a.d.strs.ids[judgeUnknown]
	if !ok {
		return
	}
	label := a.d.strs.id("judge (" + a.judge + ")")
	for i := a.reviews; i < len(a.d.reviews); i++ {
		if a.d.reviews[i].Grader == unknown {
			a.d.reviews[i].Grader = label
		}
	}
}

// judgeModel is the model the judge grader asked of q: its judge
// record's "model", else the one its grade_detail names (grade's judge
// writes "judge MODEL (TEMPLATE): ..."); "" when neither names one.
func judgeModel(q *result.Question) string {
	if len(q.Judge) > 0 {
		var j struct {
			Model string `json:"model"`
		}
		if json.Unmarshal(q.Judge, &j) == nil && j.Model != "" {
			return j.Model
		}
	}
	rest, ok := strings.CutPrefix(q.GradeDetail, "judge ")
	if !ok {
		return ""
	}
	m, _, ok := strings.Cut(rest, " (")
	if !ok || m == "" || strings.ContainsAny(m, " :;") {
		return ""
	}
	return m
}
