// Package dabench is InfiAgent-DABench's closed-form validation set as a
// benchmark's conversions: the converter (da-dev-questions.jsonl,
// da-dev-labels.jsonl and the da-dev-tables CSVs of examples/DA-Agent/data
// in InfiAgent/InfiAgent -> sheets) and the responses file
// eval_closed_form.py scores. Its grader and the script's figures (ABQ,
// PSAQ, UASQ, per concept) in agg's report are in package dabench/score.
//
// Conversions offers these to the convert command. Convert with Options
// writes the sheets, agent sheets (ModeAgent) unless Options.Mode is
// ModeChat; Load reads the data folder, a Question per question with its
// labels, which the tests compare with what the sheets give.
package dabench

import (
	"context"

	"github.com/evalmd/evalmd/benchmark"
	"github.com/evalmd/evalmd/benchmark/dabench/score"
	"github.com/evalmd/evalmd/internal/outfile"
)

// Conversions returns DABench's converter and export for the convert
// command.
func Conversions() benchmark.Conversions {
	return benchmark.Conversions{
		Benchmark: score.Benchmark().Title,
		Converters: []benchmark.Converter{benchmark.NewConverter("dabench", "DABench's data folder -> one sheet per table",
			func(_ context.Context, opt *Options, w outfile.Options) ([]string, []error) {
				opt.Write = w
				return Convert(*opt)
			})},
		Exports: []benchmark.Export{{Name: "dabench-responses", Summary: "output files -> the responses file eval_closed_form.py scores",
			Write: writeResponses}},
	}
}
