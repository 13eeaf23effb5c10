// Package benchmarks lists the benchmarks the commands know: what reads
// their answers (graders, metrics). Adding a benchmark is its packages
// under benchmark/ plus one line in All and one in benchmark/conversions.
package benchmarks

import (
	"github.com/evalmd/evalmd/benchmark"
	dabench "github.com/evalmd/evalmd/benchmark/dabench/score"
	databench "github.com/evalmd/evalmd/benchmark/databench/score"
	dsbench "github.com/evalmd/evalmd/benchmark/dsbench/score"
)

// All returns every benchmark, in the order their figures are reported.
func All() []benchmark.Benchmark {
	return []benchmark.Benchmark{
		dsbench.Benchmark(),
		dabench.Benchmark(),
		databench.Benchmark(),
	}
}

// Set builds the registries of All, as every command does once at start.
func Set() (*benchmark.Set, error) { return benchmark.NewSet(All()...) }
