// Package dabench is InfiAgent-DABench's closed-form validation set as a
// benchmark: the converter (da-dev-questions.jsonl, da-dev-labels.jsonl and
// the da-dev-tables CSVs of examples/DA-Agent/data in InfiAgent/InfiAgent ->
// sheets), the "dabench" grader (eval_closed_form.py's @name[value] rule),
// the script's figures (ABQ, PSAQ, UASQ, per concept) in agg's report, and
// the responses file the script scores.
//
// Benchmark offers these to the commands' registries; its sheets carry
// "benchmark: dabench" meta (Name). Convert with Options writes the sheets,
// agent sheets (ModeAgent) unless Options.Mode is ModeChat; Load reads the
// data folder, a Question per question with its labels (each a Pair), which
// the tests compare with what the sheets give.
package dabench

import (
	"context"

	"github.com/evalmd/evalmd/benchmark"
	"github.com/evalmd/evalmd/grade"
	"github.com/evalmd/evalmd/internal/outfile"
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

// Conversions returns DABench's converter and export for the convert
// command.
func Conversions() benchmark.Conversions {
	return benchmark.Conversions{
		Benchmark: "DABench",
		Converters: []benchmark.Converter{benchmark.NewConverter("dabench", "DABench's data folder -> one sheet per table",
			func(_ context.Context, opt *Options, w outfile.Options) ([]string, []error) {
				opt.Write = w
				return Convert(*opt)
			})},
		Exports: []benchmark.Export{{Name: "dabench-responses", Summary: "output files -> the responses file eval_closed_form.py scores",
			Write: writeResponses}},
	}
}
