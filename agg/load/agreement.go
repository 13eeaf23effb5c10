package load

import (
	"sort"
	"strconv"

	"github.com/evalmd/evalmd/agg/stats"
)

// Agreement is one grader's grades beside people's, on the answers both
// graded (the grader's grade is not null).
type Agreement struct {
	Grader string
	Counts stats.Agreement // A: the grader, B: the person
	// Differ are the answers they graded otherwise, by sheet, question
	// (and its occurrence), model, run and epoch.
	Differ []Differ
}

// Differ is an answer a person graded otherwise than its grader.
type Differ struct {
	Sheet, Name, Model, Run string
	Occ, Epoch              int // Occ: the questions of its name before it in its file
	Person                  bool
}

// Agreements are the graders' agreements with people, by grader label;
// nil when no verdict covers an answer a grader graded.
func (d *Data) Agreements() []Agreement {
	by := map[Str]*Agreement{}
	for _, rv := range d.reviews {
		r := &d.rows[rv.Row]
		if rv.GraderGrade == GradeNull || r.Grade == GradeNull {
			continue
		}
		a := by[rv.Grader]
		if a == nil {
			a = &Agreement{Grader: d.Str(rv.Grader)}
			by[rv.Grader] = a
		}
		g, p := rv.GraderGrade == GradeTrue, r.Grade == GradeTrue
		c := &a.Counts
		switch {
		case g && p:
			c.BothRight++
		case g:
			c.OnlyA++
		case p:
			c.OnlyB++
		default:
			c.BothWrong++
		}
		if g != p {
			a.Differ = append(a.Differ, Differ{Sheet: d.Str(r.Sheet), Name: d.Str(r.Name), Model: d.Str(r.Model),
				Run: d.Str(r.Run), Occ: int(r.Occ), Epoch: int(r.Epoch), Person: p})
		}
	}
	out := make([]Agreement, 0, len(by))
	for _, a := range by {
		sort.Slice(a.Differ, func(i, j int) bool { return a.Differ[i].less(a.Differ[j]) })
		out = append(out, *a)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Grader < out[j].Grader })
	return out
}

// RunLabel is the answer's run id, with its epoch after the first, as
// LIME's report types name an epoch's run: "ab12 (epoch 2)".
func (x Differ) RunLabel() string {
	if x.Epoch > 1 {
		return x.Run + " (epoch " + strconv.Itoa(x.Epoch) + ")"
	}
	return x.Run
}

func (x Differ) less(y Differ) bool {
	for _, c := range [...][2]string{{x.Sheet, y.Sheet}, {x.Name, y.Name}, {x.Model, y.Model}, {x.Run, y.Run}} {
		if c[0] != c[1] {
			return c[0] < c[1]
		}
	}
	if x.Occ != y.Occ {
		return x.Occ < y.Occ
	}
	return x.Epoch < y.Epoch
}
