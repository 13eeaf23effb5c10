//go:build unix

package runcmd

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/evalmd/evalmd/internal/testkit/benchkit"
	"github.com/evalmd/evalmd/internal/testkit/fakeserver"
)

// BenchmarkRunLarge is the whole command on one sheet of 10k, 100k or 1M
// questions against the fake server on 127.0.0.1 (1 ms a reply, -c 64):
// plan, ask, grade, write the output and its markdown, the summary. It
// reports the run's wall and CPU time (the fake server's included) and the
// peak heap (benchkit.WatchHeap; EVALMD_HEAP_PROFILE=FILE keeps a heap
// profile near the peak). BENCHMARKS.md has the whole-process figures.
//
//	go test ./cmd/internal/runcmd -run '^$' -bench 'RunLarge/(10k|100k)$' -benchtime 1x
//	go test ./cmd/internal/runcmd -run '^$' -bench 'RunLarge/1M$' -benchtime 1x -timeout 30m
func BenchmarkRunLarge(b *testing.B) { benchmarkLarge(b, false) }

// BenchmarkRerunLarge is the same command run again beside the output of
// a first run (made before the timer starts): every answer reused from it,
// nothing asked, each graded again and found current (nothing written).
//
//	go test ./cmd/internal/runcmd -run '^$' -bench 'RerunLarge/(10k|100k)$' -benchtime 1x
func BenchmarkRerunLarge(b *testing.B) { benchmarkLarge(b, true) }

func benchmarkLarge(b *testing.B, rerun bool) {
	for _, n := range []int{10_000, 100_000, 1_000_000} {
		b.Run(countName(n), func(b *testing.B) {
			dir := b.TempDir()
			sheet := filepath.Join(dir, "input-q"+strconv.Itoa(n)+".md")
			if err := benchkit.WriteSheet(sheet, n); err != nil {
				b.Fatal(err)
			}
			srv := fakeserver.NewOpenAI(b, fakeserver.Options{Latency: time.Millisecond, MaxRequests: 1 << 40, Unrecorded: true})
			args := func(out string) []string {
				return []string{"-f", sheet, "-m", "openai-api/fake/m", "--base-url", srv.URL, "-c", "64", "-o", out}
			}
			first := filepath.Join(dir, "out")
			if rerun {
				if err := run(context.Background(), io.Discard, io.Discard, args(first)); err != nil {
					b.Fatal(err)
				}
			}
			var wall, cpu time.Duration
			var peak uint64
			for i := 0; b.Loop(); i++ {
				out := first
				if !rerun {
					out = filepath.Join(dir, fmt.Sprint("out", i))
				}
				runtime.GC()
				stop := benchkit.WatchHeap()
				c0, t0 := cpuTime(), time.Now()
				err := run(context.Background(), io.Discard, io.Discard, args(out))
				wall += time.Since(t0)
				cpu += cpuTime() - c0
				peak = max(peak, stop())
				if err != nil {
					b.Fatal(err)
				}
				if !rerun {
					b.StopTimer()
					os.RemoveAll(out) // a million questions are 860 MB of files
					b.StartTimer()
				}
			}
			b.ReportMetric(wall.Seconds()/float64(b.N), "s/run")
			b.ReportMetric(cpu.Seconds()/float64(b.N), "cpu-s/run")
			b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MB")
		})
	}
}

// countName is 10k for 10,000, 1M for 1,000,000.
func countName(n int) string {
	switch {
	case n >= 1_000_000 && n%1_000_000 == 0:
		return fmt.Sprintf("%dM", n/1_000_000)
	case n >= 1000 && n%1000 == 0:
		return fmt.Sprintf("%dk", n/1000)
	}
	return strconv.Itoa(n)
}

// cpuTime is the CPU (user + system) this process has used so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
