// Package score is what reads InfiAgent-DABench's answers: the "dabench"
// grader (eval_closed_form.py's @name[value] rule) and the script's
// figures (ABQ, PSAQ, UASQ, per concept) in agg's report. Its sheets carry
// "benchmark: dabench" meta (Name) and each question's labels as
// @name[value] lines, a Pair each, written by LabelsText. Package dabench,
// above, converts its data and exports the responses file the script
// scores.
package score

import (
	"github.com/evalmd/evalmd/benchmark"
	"github.com/evalmd/evalmd/grade"
)

// Name is the "benchmark" meta of DABench's sheets.
const Name = "dabench"

// Benchmark returns DABench's graders and metric for the commands'
// registries.
func Benchmark() benchmark.Benchmark {
	return benchmark.Benchmark{
		Title:   "DABench",
		Name:    Name,
		Graders: map[string]grade.Factory{"dabench": func(grade.Options) (grade.Grader, error) { return grader{}, nil }},
		Metric:  metric{},
		// What its converter writes besides settings and known keys.
		MetaKeys: []string{"table", "concepts", "level"},
	}
}
