// Package databench is DataBench (SemEval 2025 Task 8, "Question Answering
// over Tabular Data") as a benchmark's conversions: the converter (the QA table, its
// answer files and the parquet tables -> sheets) and the predictions.txt
// and predictions_lite.txt files the task's scorer reads. Its graders are
// in package databench/score.
//
// A QA table (the QA sets of databench_eval: SemEval 2025 Task 8 and the
// IberLEF Spanish set) is CSV with a header row or JSON Lines, with the
// columns question, dataset, and optionally answer, type (the semantic
// type), sample_answer (the answer on the dataset's 20-row sample,
// DataBench lite). Answers and semantics may also come from the
// competition's line files (answers.txt, answers_lite.txt, semantics.txt:
// one line per QA row). Sheets are graded by "databench"; set the grader
// meta to "databench-semeval" for the 3.0.0 scorer SemEval used.
//
// The sheets answer in code mode by default, DataBench's own method: the
// competition baseline's prompt (codemode.Prompt, with the columns of the
// dataset's sample table), the model's code run on the question's table
// (lite sheets: the sample table) and its result graded. Chat sheets
// (convert databench -mode chat) name the table and the answer's type
// instead.
package databench

import (
	"context"

	"github.com/evalmd/evalmd/benchmark"
	"github.com/evalmd/evalmd/benchmark/databench/score"
	"github.com/evalmd/evalmd/internal/outfile"
)

// Conversions returns DataBench's converter and export for the convert
// command.
func Conversions() benchmark.Conversions {
	return benchmark.Conversions{
		Benchmark: score.Benchmark().Title,
		Converters: []benchmark.Converter{benchmark.NewConverter("databench", "DataBench's QA table -> one sheet per dataset (and a lite sheet)",
			func(ctx context.Context, opt *options, w outfile.Options) ([]string, []error) {
				opt.Write = w
				return convert(ctx, *opt)
			})},
		Exports: []benchmark.Export{{Name: "semeval-predictions",
			Summary: "a run's output files -> SemEval 2025 Task 8's predictions.txt and predictions_lite.txt, a line per QA row",
			Files:   predictionFiles}},
	}
}
