package score

import (
	"encoding/json"

	"github.com/evalmd/evalmd/agg"
)

// What the tests of package score_test use of this package's insides:
// they convert DABench's data first, with package dabench, which imports
// this package, so they cannot be in it.

type ScoredQuestion = scoredQuestion

var (
	ConceptsMeta  = conceptsMeta
	ScriptMetrics = scriptMetrics
)

// RunReports is each model run's eval_closed_form.py figures over qs, in
// the order of runs.
func RunReports(qs []agg.Question) []json.Marshaler {
	var out []json.Marshaler
	for _, r := range runs(qs) {
		out = append(out, r.report)
	}
	return out
}
