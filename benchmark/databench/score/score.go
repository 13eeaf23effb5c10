// Package score is what reads DataBench's answers: the "databench" and
// "databench-semeval" graders (databench_eval's default_compare, versions
// 4.0.1 and 3.0.0). Package databench, above, converts its data and
// exports the files the task's scorer reads.
package score

import (
	"github.com/evalmd/evalmd/benchmark"

	"github.com/evalmd/evalmd/grade"
)

// Name is the "benchmark" meta of DataBench's sheets.
const Name = "databench"

// Benchmark returns DataBench's graders for the commands' registries.
func Benchmark() benchmark.Benchmark {
	return benchmark.Benchmark{
		Title: "DataBench",
		Name:  Name,
		// What its converter writes besides settings and known keys
		// (semantic is the QA table's type column, which type names).
		MetaKeys: []string{"dataset", "lite", "semantic", "type"},
		Graders: map[string]grade.Factory{
			"databench":         func(grade.Options) (grade.Grader, error) { return newGrader(false), nil },
			"databench-semeval": func(grade.Options) (grade.Grader, error) { return newGrader(true), nil },
		},
	}
}
