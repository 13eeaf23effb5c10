package render

import (
	"fmt"
	"strconv"

	"github.com/evalmd/evalmd/agg/stats"
	"github.com/evalmd/evalmd/internal/mdcell"
)

// GraderAgreement is one grader's grades beside people's, for
// AgreementTables: its label, the counts (A: the grader, B: the people),
// and the answers they graded otherwise, each as text cells: sheet,
// question, model, run, the grader's grade, the person's.
type GraderAgreement struct {
	Grader string
	Counts stats.Agreement
	Differ [][]string
}

// AgreementTables are the tables of graders measured against people: one
// row per grader of gs, then per grader that people contradicted the
// first limit (all when limit <= 0) of the answers they graded otherwise.
// None without gs.
func AgreementTables(gs []GraderAgreement, limit int) []Table {
	if len(gs) == 0 {
		return nil
	}
	sum := Table{
		Title: "Graders against people: agreement with people's verdicts",
		Note: "on the answers a person's verdict covers (review) that the grader had graded too (review.grader_grade not null), " +
			"each answer once however many files carry it; agreement: the share graded alike; " +
			"kappa: Cohen's, its 95% CI from the large-sample standard error of Fleiss, Cohen and Everitt (1969), " +
			"kappa n/a where the expected agreement is 1 (grader and people gave every answer the one same grade), " +
			"its interval n/a where the standard error is 0 (they agree on every answer or on none, or one side gave every answer one grade).",
		Columns: Cols("grader", "#answers", "#agreement", "#grader right, person right", "#grader right, person wrong",
			"#grader wrong, person right", "#grader wrong, person wrong", "#kappa", "95% CI"),
	}
	tables := []Table{sum}
	for _, g := range gs {
		c := g.Counts
		kappa, ci := "n/a", "n/a"
		if k, se, lo, hi, ok := c.Kappa(stats.Z95); ok {
			kappa = fmt.Sprintf("%.3f", k)
			// A standard error of 0 (agreement on every answer or on
			// none, or one side giving every answer one grade) is the
			// large-sample formula failing, not certainty.
			if se > 1e-12 {
				ci = fmt.Sprintf("[%.3f, %.3f]", lo, hi)
			}
		}
		tables[0].Rows = append(tables[0].Rows, []string{g.Grader, strconv.Itoa(c.N()), fmt.Sprintf("%.3f", c.Observed()),
			strconv.Itoa(c.BothRight), strconv.Itoa(c.OnlyA), strconv.Itoa(c.OnlyB), strconv.Itoa(c.BothWrong), kappa, ci})
		if len(g.Differ) == 0 {
			continue
		}
		differ := g.Differ
		if limit > 0 && len(differ) > limit {
			differ = differ[:limit]
		}
		tables = append(tables, Table{
			// A title is markdown: the grader's name in it is made text, as a cell's.
			Title:   "Grader " + mdcell.Literal(g.Grader) + " against people: the answers graded otherwise",
			Note:    fmt.Sprintf("%d of %d answers.", len(g.Differ), c.N()),
			Columns: Cols("input_name", "name", "model", "run", "grader", "person"),
			Rows:    differ,
			More:    len(g.Differ) - len(differ),
		})
	}
	return tables
}
