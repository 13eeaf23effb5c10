// Package conversions lists the benchmarks' convert subcommands
// (converters and exports), apart from benchmark/benchmarks so that agg,
// which lists those, links no converter.
package conversions

import (
	"github.com/evalmd/evalmd/benchmark"
	"github.com/evalmd/evalmd/benchmark/dabench"
	"github.com/evalmd/evalmd/benchmark/databench"
	"github.com/evalmd/evalmd/benchmark/dsbench"
)

// All returns every benchmark's conversions, in benchmark/benchmarks' order.
func All() []benchmark.Conversions {
	return []benchmark.Conversions{
		dsbench.Conversions(),
		dabench.Conversions(),
		databench.Conversions(),
	}
}

// Set builds the convert subcommands of All, as convert does at start.
func Set() (*benchmark.ConvertSet, error) { return benchmark.NewConvertSet(All()...) }
