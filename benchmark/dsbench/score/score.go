// Package score is what reads DSBench's answers: its metric in agg's
// report (task-level and competition-level accuracy). Its sheets are
// graded by the generic "judge" grader with DSBench's own prompt (grade's
// "dsbench" judge template). Package dsbench, above, converts its data.
package score

import "github.com/evalmd/evalmd/benchmark"

// Name is the "benchmark" meta of DSBench's sheets.
const Name = "dsbench"

// Benchmark returns DSBench's metric for the commands' registries.
func Benchmark() benchmark.Benchmark {
	return benchmark.Benchmark{
		Title:  "DSBench",
		Name:   Name,
		Metric: metric{},
		// DSBench's compute_answer.py judges with its own prompt.
		JudgeTemplate: "dsbench",
		// What its converter writes besides settings and known keys.
		MetaKeys: []string{"competition", "name", "url", "year", "answer_kind", "answer_json"},
	}
}
