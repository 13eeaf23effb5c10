//go:build unix

package harness

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/evalmd/evalmd/harness/internal/plan"
	"github.com/evalmd/evalmd/harness/internal/write"
	"github.com/evalmd/evalmd/internal/testkit/fakeserver"
	"github.com/evalmd/evalmd/model"
	"github.com/evalmd/evalmd/model/providers"
	"github.com/evalmd/evalmd/result"
	"github.com/evalmd/evalmd/runner"
)

// BenchmarkRun is a whole run (parse, ask, grade, write every output)
// against a local server that answers after a fixed latency; "%ideal" is
// the share of the ideal time (questions / concurrency x latency, every
// slot busy all the time) reached, "%ceiling" the most a fixed pool can
// reach when the last wave is partial. The bare-goroutines cases send the
// same requests with no sheets, runner or files: the floor the machine
// allows at the moment, to tell evalmd's overhead from the machine's load.
//
//	go test ./harness -run '^$' -bench Run -benchtime 3x
func BenchmarkRun(b *testing.B) {
	for _, tc := range []struct {
		name            string
		sheets, perSize int
		latency         time.Duration
		concurrency     int
	}{
		{"20x5-sheets/200ms/c20", 20, 5, 200 * time.Millisecond, 20},
		{"1x1000-sheet/100ms/c32", 1, 1000, 100 * time.Millisecond, 32},
	} {
		n := tc.sheets * tc.perSize
		waves := (n + tc.concurrency - 1) / tc.concurrency
		ideal := float64(n) / float64(tc.concurrency) * tc.latency.Seconds()
		ceiling := 100 * ideal / (float64(waves) * tc.latency.Seconds())
		b.Run(tc.name, func(b *testing.B) {
			dir := b.TempDir()
			sheets := benchSheets(b, dir, tc.sheets, tc.perSize)
			srv := fakeserver.NewOpenAI(b, fakeserver.Options{Latency: tc.latency, MaxRequests: 1 << 30})
			var wall, cpu time.Duration
			for i := 0; b.Loop(); i++ {
				cfg := Config{
					Sheets: sheets, Models: []string{"openai-api/fake/m"}, OutDir: filepath.Join(dir, fmt.Sprint("out", i)), RunIDLen: 4,
					Model:    model.Options{BaseURL: srv.URL, APIKey: "test-key"},
					Runner:   runner.Options{Concurrency: tc.concurrency},
					NewModel: providers.Registry().New,
				}
				runtime.GC() // the last run's garbage is not this run's: each starts as a fresh process would
				c0, t0 := cpuTime(), time.Now()
				sum, err := Run(context.Background(), cfg)
				wall += time.Since(t0)
				cpu += cpuTime() - c0
				if err != nil || len(sum.Outputs) != tc.sheets {
					b.Fatalf("err %v, outputs %d", err, len(sum.Outputs))
				}
			}
			report(b, wall, cpu, ideal, ceiling, srv)
		})
		b.Run(tc.name+"/bare-goroutines", func(b *testing.B) {
			srv := fakeserver.NewOpenAI(b, fakeserver.Options{Latency: tc.latency, MaxRequests: 1 << 30})
			req := model.Request{Messages: []model.Message{{Role: "user", Content: "ask"}}}
			var wall, cpu time.Duration
			for b.Loop() {
				runtime.GC() // the last run's garbage is not this run's: each starts as a fresh process would
				c0, t0 := cpuTime(), time.Now()
				// A model and connections of its own each time, with
				// the client Run gives its models, as a run's process has.
				m, err := providers.Registry().New("openai-api/fake/m", model.Options{BaseURL: srv.URL, APIKey: "test-key", HTTPClient: pooledClient(tc.concurrency)})
				if err != nil {
					b.Fatal(err)
				}
				var next atomic.Int64 // as the runner's workers take jobs
				var wg sync.WaitGroup
				for range tc.concurrency {
					wg.Go(func() {
						for next.Add(1) <= int64(n) {
							if _, err := m.Complete(context.Background(), req); err != nil {
								b.Error(err)
							}
						}
					})
				}
				wg.Wait()
				wall += time.Since(t0)
				cpu += cpuTime() - c0
			}
			report(b, wall, cpu, ideal, ceiling, srv)
		})
	}
}

// report gives a case's figures per run: seconds, share of the ideal and
// of the ceiling, requests in flight at most, and CPU of the whole process
// (the fake server's included: an upper bound on evalmd's own).
func report(b *testing.B, wall, cpu time.Duration, ideal, ceiling float64, srv *fakeserver.Server) {
	secs := wall.Seconds() / float64(b.N)
	b.ReportMetric(secs, "s/run")
	b.ReportMetric(100*ideal/secs, "%ideal")
	b.ReportMetric(ceiling, "%ceiling")
	b.ReportMetric(float64(srv.MaxInFlight()), "max-in-flight")
	b.ReportMetric(cpu.Seconds()/float64(b.N), "cpu-s/run")
}

// cpuTime is the CPU (user + system) this process has used so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// benchSheets writes n sheets of q questions, each answered by the fake
// server's default reply.
func benchSheets(b *testing.B, dir string, n, q int) []string {
	var paths []string
	for i := 1; i <= n; i++ {
		var s strings.Builder
		fmt.Fprintf(&s, "# Sheet %d\n", i)
		for j := 1; j <= q; j++ {
			fmt.Fprintf(&s, "## Q%d\n#### question\nask S%d Q%d\n#### answer\nfake reply\n", j, i, j)
		}
		p := filepath.Join(dir, fmt.Sprintf("input-s%04d.md", i))
		if err := os.WriteFile(p, []byte(s.String()), 0o644); err != nil {
			b.Fatal(err)
		}
		paths = append(paths, p)
	}
	return paths
}

// BenchmarkWriteOutput encodes a 1000-question output file's questions
// into the run's scratch file and writes the output and its markdown from
// it: a run encodes each question as it is graded, and writes the files
// after the sheet's last answer, which adds to the run's wall time.
//
//	go test ./harness -run '^$' -bench WriteOutput -count 6
func BenchmarkWriteOutput(b *testing.B) {
	dir := b.TempDir()
	sheets := benchSheets(b, dir, 1, 1000)
	srv := fakeserver.NewOpenAI(b, fakeserver.Options{MaxRequests: 1000})
	sum, err := Run(context.Background(), Config{
		Sheets: sheets, Models: []string{"openai-api/fake/m"}, OutDir: filepath.Join(dir, "out"), RunIDLen: 4,
		Model:    model.Options{BaseURL: srv.URL, APIKey: "test-key"},
		Runner:   runner.Options{Concurrency: 32},
		NewModel: providers.Registry().New,
	})
	if err != nil {
		b.Fatal(err)
	}
	f, err := result.Read(sum.Outputs[0])
	if err != nil {
		b.Fatal(err)
	}
	scratch, err := write.NewScratch(filepath.Join(dir, "journal"))
	if err != nil {
		b.Fatal(err)
	}
	defer scratch.Close()
	for i := 0; b.Loop(); i++ {
		o := &plan.Output{Job: plan.Job{OutPath: filepath.Join(dir, fmt.Sprint("w", i), "output.json")}, File: f}
		spill := scratch.Spill(len(f.Questions))
		for q := range f.Questions {
			if err := spill.PutQuestion(&f.Sheet, q, &f.Questions[q]); err != nil {
				b.Fatal(err)
			}
		}
		if err := (&write.Files{}).Write(o, spill); err != nil {
			b.Fatal(err)
		}
	}
}
