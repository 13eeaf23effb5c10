package dsbench

import (
	"context"

	"github.com/evalmd/evalmd/benchmark"
	"github.com/evalmd/evalmd/benchmark/dsbench/score"
	"github.com/evalmd/evalmd/internal/outfile"
)

// Conversions returns DSBench's converter for the convert command.
func Conversions() benchmark.Conversions {
	return benchmark.Conversions{
		Benchmark: score.Benchmark().Title,
		Converters: []benchmark.Converter{benchmark.NewConverter("dsbench", "DSBench's data_analysis folder -> one sheet per competition",
			func(ctx context.Context, opt *Options, w outfile.Options) ([]string, []error) {
				opt.Write = w
				return Convert(ctx, *opt)
			})},
	}
}
