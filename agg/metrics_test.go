package agg_test

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/evalmd/evalmd/agg"
	"github.com/evalmd/evalmd/benchmark/benchmarks"
	"github.com/evalmd/evalmd/internal/testkit/golden"
)

// TestBenchmarkMetricsGolden runs the report on testdata/bench with the
// benchmarks' metrics, as cmd/agg does: the DSBench and DABench tables
// follow agg's own. Without metrics the same files are plain sheets.
func TestBenchmarkMetricsGolden(t *testing.T) {
	set, err := benchmarks.Set()
	if err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	opt := agg.Options{Dir: "testdata/bench", Out: "-", Stdout: &stdout, Stderr: &stderr, Metrics: set.Metrics}
	if err := agg.Run(context.Background(), opt); err != nil {
		t.Fatal(err)
	}
	golden.Check(t, "testdata/bench.stdout", stdout.Bytes())
	golden.Check(t, "testdata/bench.stderr", stderr.Bytes())
	for _, title := range []string{"### DSBench:", "### DABench:"} {
		if !strings.Contains(stdout.String(), title) {
			t.Errorf("the report lacks %q", title)
		}
	}

	stdout.Reset()
	opt.Metrics = nil
	if err := agg.Run(context.Background(), opt); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(stdout.String(), "DSBench") || strings.Contains(stdout.String(), "DABench") {
		t.Error("without metrics the report still has benchmark tables")
	}
}
