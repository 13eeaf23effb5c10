// Package benchmarks lists the benchmarks the commands know. Adding a
// benchmark is its package under benchmark/ plus one line in All.
package benchmarks

import (
	"github.com/evalmd/evalmd/benchmark"
	"github.com/evalmd/evalmd/benchmark/dabench"
	"github.com/evalmd/evalmd/benchmark/databench"
	"github.com/evalmd/evalmd/benchmark/dsbench"
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
