package dsbench

import (
	"context"

	"github.com/evalmd/evalmd/benchmark"
	"github.com/evalmd/evalmd/internal/outfile"
)

// benchmarkName is the "benchmark" meta of DSBench's sheets.
const benchmarkName = "dsbench"

// Benchmark returns DSBench's parts for the commands' registries: its
// converter and its metric. Its sheets are graded by the generic "judge"
// grader with DSBench's own prompt (grade's "dsbench" judge template).
func Benchmark() benchmark.Benchmark {
	return benchmark.Benchmark{
		Title:  "DSBench",
		Name:   benchmarkName,
		Metric: metric{},
		// What its converter writes besides settings and known keys.
		MetaKeys: []string{"competition", "name", "url", "year", "answer_kind", "answer_json"},
		Converters: []benchmark.Converter{benchmark.NewConverter("dsbench", "DSBench's data_analysis folder -> one sheet per competition",
			func(ctx context.Context, opt *Options, w outfile.Options) ([]string, []error) {
				opt.Write = w
				return Convert(ctx, *opt)
			})},
	}
}
