package agg

import "github.com/evalmd/evalmd/agg/render"

// agreementTables measure each grader against people's verdicts, where
// some cover answers it graded (load.Data.Agreements); limit caps each
// list of the answers graded otherwise.
func (d *Data) agreementTables(limit int) []render.Table {
	right := map[bool]string{true: "right", false: "wrong"}
	var gs []render.GraderAgreement
	for _, a := range d.Agreements() {
		g := render.GraderAgreement{Grader: a.Grader, Counts: a.Counts}
		for _, x := range a.Differ {
			g.Differ = append(g.Differ, []string{x.Sheet, x.Name, x.Model, x.RunLabel(), right[!x.Person], right[x.Person]})
		}
		gs = append(gs, g)
	}
	return render.AgreementTables(gs, limit)
}
