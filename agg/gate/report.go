package gate

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/evalmd/evalmd/agg/render"
	"github.com/evalmd/evalmd/internal/mdcell"
)

// Marker opens the markdown of a comparison (Comparison.Markdown), so
// that a CI step finds the pull request comment it wrote before and
// edits it instead of adding another.
const Marker = "<!-- evalmd gate -->"

// Markdown is the comparison as a pull request comment or a CI step
// summary: Marker, a heading, the gate's verdict in one line, the
// tables (each at most maxRows rows: 0 means 50, negative all), then link,
// a line linking the HTML report, when not empty.
func (c *Comparison) Markdown(maxRows int, link string) (string, error) {
	var b strings.Builder
	b.WriteString(Marker + "\n## evalmd: ")
	if c.compared {
		b.WriteString("compared with the baseline\n\n")
	} else {
		b.WriteString("accuracy floor\n\n")
	}
	b.WriteString(c.Summary() + "\n\n")
	for _, t := range c.Tables(maxRows) {
		s, err := t.Markdown()
		if err != nil {
			return "", err
		}
		b.WriteString(s)
	}
	if link != "" {
		b.WriteString(link + "\n")
	}
	return b.String(), nil
}

// Summary is the gate's verdict in one line of markdown: failed and why,
// passed and on what, or what was compared when nothing can fail. The
// names in it are text (mdcell.Literal), as in the tables.
func (c *Comparison) Summary() string {
	if f := c.failures(mdcell.Literal); len(f) > 0 {
		return "**Gate failed**: " + strings.Join(f, "; ") + "."
	}
	var checks []string
	if c.Rules.FailOn == FailRegression {
		s := fmt.Sprintf("no model is significantly worse than the baseline (McNemar's p < %g", c.Rules.alpha())
		if c.Rules.MinDrop > 0 {
			s += fmt.Sprintf(" and a drop of %g or more", c.Rules.MinDrop)
		}
		checks = append(checks, s+")")
	}
	if c.Rules.FailUnder > 0 {
		checks = append(checks, fmt.Sprintf("every model's accuracy interval (%s) starts at %g or above", c.level(), c.Rules.FailUnder))
	}
	compared, models := 0, 0
	for _, m := range c.Models {
		if m.Questions > 0 {
			compared += m.Questions
			models++
		}
	}
	what := ""
	if c.compared {
		what = fmt.Sprintf(" %d models compared on %d questions in all, %d questions not compared.", models, compared, len(c.Unpaired))
	}
	if len(checks) == 0 {
		return "Nothing fails the run (`--fail-on regression` or `--fail-under` would)." + what
	}
	return "**Gate passed**: " + strings.Join(checks, ", and ") + "." + what
}

// Lines are the comparison in a line a model, for a CI's log: its
// verdict and numbers with the first questions worse, and the floor's when
// it is below. A model with nothing to say (no baseline, above the floor)
// has no line.
func (c *Comparison) Lines() []string {
	var out []string
	for _, m := range c.Models {
		var parts []string
		switch {
		case !c.compared:
		case m.Questions > 0:
			s := fmt.Sprintf("%s: accuracy %.3f -> %.3f on %d questions (%+.3f), McNemar's p %s, %d worse, %d better",
				m.Verdict, m.Before, m.After, m.Questions, m.Diff, render.PValue(m.P), len(m.Worse), len(m.Better))
			if len(m.Worse) > 0 {
				s += " (worse: " + flipNames(m.Worse, 5, func(s string) string { return s }) + ")"
			}
			parts = append(parts, s)
		default:
			parts = append(parts, m.Verdict)
		}
		if m.BelowFloor {
			parts = append(parts, fmt.Sprintf("below the floor %g: accuracy %.3f, its %s interval from %.3f",
				c.Rules.FailUnder, m.Accuracy, c.level(), m.AccLo))
		}
		if len(parts) > 0 {
			out = append(out, m.Model+": "+strings.Join(parts, "; "))
		}
	}
	return out
}

// Tables are the comparison's tables: the models, then (with a baseline)
// the questions that flipped and those not compared, each at most maxRows
// rows (0 means 50, negative all).
func (c *Comparison) Tables(maxRows int) []render.Table {
	switch {
	case maxRows == 0:
		maxRows = 50
	case maxRows < 0:
		maxRows = math.MaxInt
	}
	if !c.compared {
		return []render.Table{c.floorTable()}
	}
	return []render.Table{c.modelsTable(), c.flipsTable(maxRows), c.unpairedTable(maxRows)}
}

// verdictCell is a model's verdict, with the floor's when it is below.
func (c *Comparison) verdictCell(m ModelChange) string {
	v := m.Verdict
	if c.Rules.FailOn == FailRegression && v == verdictRegression {
		v = "**" + v + "**"
	}
	if m.BelowFloor {
		v = strings.TrimPrefix(v+"; ", "; ") + fmt.Sprintf("**below the floor %g**", c.Rules.FailUnder)
	}
	return v
}

func (c *Comparison) modelsTable() render.Table {
	ci := c.level() + " CI"
	t := render.Table{
		Title: "Compared with the baseline: accuracy before and after, question by question",
		Note: fmt.Sprintf("baseline: `%s`. Compared: the questions both folders have a graded answer to, with the same sheet, "+
			"name and ground truth; before and after: the mean over them of each question's score (its answers, "+
			"epochs and runs, reduced by %s); change: after - before, its %s over questions (paired, clustered "+
			"by question); p: McNemar's exact test on the questions worse and better (with several answers a "+
			"question, the sign test on their scores); regression: p < %g, more questions worse than better%s. "+
			"In this folder, of a sheet and model that has runs the baseline does not hold, only those count.",
			c.Baseline, c.Reducer, ci, c.Rules.alpha(), c.minDropNote()),
		Columns: render.Cols("model", "#questions", "#before", "#after", "#change", ci, "#p", "#worse", "#better", "#not compared", "verdict"),
	}
	if c.Rules.FailUnder > 0 {
		t.Columns = append(t.Columns[:len(t.Columns)-1], render.Cols("accuracy now ("+ci+")", "verdict")...)
	}
	t.Columns[len(t.Columns)-1].Markdown = true // verdictCell's bold
	for _, m := range c.Models {
		row := []string{m.Model, strconv.Itoa(m.Questions), render.Frac(m.Before), render.Frac(m.After), fmtSigned(m.Diff),
			fmtInterval(m.Lo, m.Hi, "%+.3f"), render.PValue(m.P), strconv.Itoa(len(m.Worse)), strconv.Itoa(len(m.Better)), strconv.Itoa(m.Unpaired)}
		if m.Questions == 0 {
			row[6] = "-"
		}
		if c.Rules.FailUnder > 0 {
			row = append(row, render.Frac(m.Accuracy)+" "+fmtInterval(m.AccLo, m.AccHi, "%.3f"))
		}
		t.Rows = append(t.Rows, append(row, c.verdictCell(m)))
	}
	return t
}

func (c *Comparison) minDropNote() string {
	if c.Rules.MinDrop > 0 {
		return fmt.Sprintf(", and a drop of at least %g (--min-drop)", c.Rules.MinDrop)
	}
	return ""
}

// floorTable is the table of a floor checked without a baseline.
func (c *Comparison) floorTable() render.Table {
	ci := c.level() + " CI"
	t := render.Table{
		Title: "Accuracy floor",
		Note: fmt.Sprintf("accuracy: the mean over a model's questions of each one's score (its answers reduced by %s), "+
			"its %s over questions; a model fails when the interval starts below %g (--fail-under).", c.Reducer, ci, c.Rules.FailUnder),
		Columns: render.Cols("model", "#questions", "#accuracy", ci, "verdict"),
	}
	t.Columns[len(t.Columns)-1].Markdown = true // verdictCell's bold
	for _, m := range c.Models {
		v := "above the floor"
		if m.BelowFloor {
			v = c.verdictCell(m)
		}
		t.Rows = append(t.Rows, []string{m.Model, strconv.Itoa(m.AccQuestions), render.Frac(m.Accuracy), fmtInterval(m.AccLo, m.AccHi, "%.3f"), v})
	}
	return t
}

func (c *Comparison) flipsTable(maxRows int) render.Table {
	t := render.Table{
		Title:   "Questions that flipped",
		Note:    "each model's questions worse than in the baseline, then those better; right or wrong, or with several answers a question their score and count.",
		Columns: render.Cols("model", "sheet", "question", "change", "before", "after"),
	}
	n := 0
	for _, m := range c.Models {
		for _, set := range []struct {
			what  string
			flips []Flip
		}{{"worse", m.Worse}, {"better", m.Better}} {
			for _, f := range set.flips {
				if n++; n > maxRows {
					t.More++
					continue
				}
				t.Rows = append(t.Rows, []string{m.Model, f.Sheet, f.nameCell(), set.what,
					fmtScore(f.Before, f.BeforeAnswers), fmtScore(f.After, f.AfterAnswers)})
			}
		}
	}
	return t
}

func (c *Comparison) unpairedTable(maxRows int) render.Table {
	t := render.Table{
		Title: "Questions not compared",
		Note: "a model's questions that only one folder has, that one folder has no grade for (a failed call), or whose ground truth " +
			"differs between them (a question added, removed or renamed, an answer corrected); a model in one folder only is not listed question by question.",
		Columns: render.Cols("model", "sheet", "question", "why"),
	}
	for i, u := range c.Unpaired {
		if i >= maxRows {
			t.More = len(c.Unpaired) - maxRows
			break
		}
		t.Rows = append(t.Rows, []string{u.Model, u.Sheet, u.nameCell(), u.Why})
	}
	return t
}

// nameCell is the question's name, with "(#2)" after a repeated name.
func (q QuestionRef) nameCell() string {
	if q.Occ > 0 {
		return fmt.Sprintf("%s (#%d)", q.Name, q.Occ+1)
	}
	return q.Name
}

// fmtScore is a question's score from n answers: right or wrong for one.
func fmtScore(s float64, n int) string {
	if n == 1 {
		if s == 1 {
			return "right"
		}
		return "wrong"
	}
	return fmt.Sprintf("%.3f (%d answers)", s, n)
}

// fmtSigned is a change, "-" when NaN.
func fmtSigned(x float64) string {
	if math.IsNaN(x) {
		return "-"
	}
	return fmt.Sprintf("%+.3f", x)
}

// fmtInterval is "[lo, hi]" in format f, "-" when NaN.
func fmtInterval(lo, hi float64, f string) string {
	if math.IsNaN(lo) || math.IsNaN(hi) {
		return "-"
	}
	return fmt.Sprintf("["+f+", "+f+"]", lo, hi)
}
