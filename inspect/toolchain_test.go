package inspect_test

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/evalmd/evalmd/benchmark"
	"github.com/evalmd/evalmd/benchmark/dabench"
	dabenchscore "github.com/evalmd/evalmd/benchmark/dabench/score"
	"github.com/evalmd/evalmd/harness"
	"github.com/evalmd/evalmd/inspect"
	"github.com/evalmd/evalmd/internal/testkit/shared"
	"github.com/evalmd/evalmd/model/providers"
)

// Every log the tool writes validates against Inspect's schemas, in both
// formats: run's (the project's sheets on the offline models, a dry run),
// agg's over LIME's real results, and a DABench run replaying DABench's
// reference responses on the converted sheets.
func TestEveryLogValidates(t *testing.T) {
	projectSheets, err := harness.FindSheets(filepath.Join("..", "sheets"))
	if err != nil {
		t.Fatal(err)
	}
	dabenchSheets := t.TempDir()
	if _, errs := dabench.Convert(dabench.Options{Data: shared.Path(t, "corpora", "dabench"), Out: dabenchSheets, Mode: dabench.ModeChat}); len(errs) > 0 {
		t.Fatal(errs)
	}
	set, err := benchmark.NewSet(dabenchscore.Benchmark())
	if err != nil {
		t.Fatal(err)
	}
	dabenchFound, err := harness.FindSheets(dabenchSheets)
	if err != nil {
		t.Fatal(err)
	}
	replay := "replay:" + shared.Path(t, "reference", "dabench", "half.responses.jsonl")
	runs := []struct {
		name   string
		sheets []string
		models []string
		dry    bool
		status string
	}{
		{"run", projectSheets, []string{"oracle", "random", "mock"}, false, "success"},
		{"dry-run", projectSheets, nil, true, "cancelled"},
		{"dabench", dabenchFound, []string{replay}, false, "success"},
	}
	for _, format := range []string{inspect.FormatEval, inspect.FormatJSON} {
		for _, r := range runs {
			t.Run(format+"/"+r.name, func(t *testing.T) {
				out, logs := t.TempDir(), t.TempDir()
				sum, err := harness.Run(context.Background(), harness.Config{NewModel: providers.New, Sheets: r.sheets, Models: r.models,
					DryRun: r.dry, OutDir: out, LogDir: logs, LogFormat: format, Graders: set.Graders,
					DataRoots: []string{shared.Path(t, "corpora", "dabench")}})
				if err != nil {
					t.Fatal(err)
				}
				paths := logsIn(t, logs, format)
				if len(paths) != len(sum.Outputs) || len(paths) == 0 {
					t.Fatalf("%d logs for %d outputs", len(paths), len(sum.Outputs))
				}
				events, dabenchScores := 0, 0
				for _, p := range paths {
					inspect.CheckSchema(t, p)
					lg, err := inspect.ReadLog(p)
					if err != nil {
						t.Fatal(err)
					}
					if lg.Status != r.status {
						t.Errorf("%s: status %q, want %q", filepath.Base(p), lg.Status, r.status)
					}
					for _, s := range lg.Samples {
						events += len(s.Events)
						if _, ok := s.Scores["dabench"]; ok {
							dabenchScores++
						}
					}
				}
				if r.dry && events != 0 || !r.dry && events == 0 {
					t.Errorf("%d events (dry run: %v)", events, r.dry)
				}
				if r.name == "dabench" && dabenchScores == 0 {
					t.Error("no sample graded by DABench's grader")
				}

				// agg --log-dir over the same outputs: dry runs are left
				// out unless asked for, as agg's tables leave them out.
				aggLogs := t.TempDir()
				var warn bytes.Buffer
				n, err := inspect.WriteLogsFor(aggLogs, out, &warn, inspect.LogOptions{Format: format})
				if err != nil {
					t.Fatal(err)
				}
				if want := len(paths); r.dry {
					if n != 0 || !strings.Contains(warn.String(), "a dry run") {
						t.Errorf("agg logged %d dry runs; warnings %q", n, warn.String())
					}
					if n, _ = inspect.WriteLogsFor(aggLogs, out, &warn, inspect.LogOptions{Format: format, IncludeDryRuns: true}); n != want {
						t.Errorf("--include-dry-runs: %d logs, want %d", n, want)
					}
				} else if n != want {
					t.Errorf("agg wrote %d logs, want %d: %s", n, want, warn.String())
				}
				for _, p := range logsIn(t, aggLogs, format) {
					inspect.CheckSchema(t, p)
				}
			})
		}
		t.Run(format+"/agg-lime", func(t *testing.T) {
			logs := t.TempDir()
			var warn bytes.Buffer
			n, err := inspect.WriteLogsFor(logs, shared.Path(t, "corpora", "lime", "results"), &warn, inspect.LogOptions{Format: format})
			if err != nil || n != 26 {
				t.Fatalf("%d logs, %v: %s", n, err, warn.String())
			}
			for _, p := range logsIn(t, logs, format) {
				inspect.CheckSchema(t, p)
			}
		})
	}
}

func logsIn(t *testing.T, dir, format string) []string {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join(dir, "*."+format))
	if err != nil {
		t.Fatal(err)
	}
	return paths
}
