//go:build unix

package runner

import (
	"context"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/evalmd/evalmd/internal/testkit/fakeserver"
	"github.com/evalmd/evalmd/model"
	"github.com/evalmd/evalmd/model/providers"
)

// cpuTime is the CPU (user + system) this process has used so far. The
// fake server runs in the same process, so it counts too: the figure is
// an upper bound on the runner's and client's own cost.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkThroughput runs 1000 questions per op against a local server
// that answers after 100 ms, at concurrency 32, with a journal. The ideal is
// 32 / 0.1 s = 320 questions/s; "%ideal" is the share reached (the last
// partial wave bounds it at 1000 / (32 · ceil(1000/32) · 0.1 s) = 97.7%).
//
//	go test ./runner -run '^$' -bench Throughput -benchtime 3x
func BenchmarkThroughput(b *testing.B) {
	const (
		questions   = 1000
		concurrency = 32
		latency     = 100 * time.Millisecond
	)
	for _, tc := range []struct {
		name string
		new  func(b *testing.B, url string) model.Model
	}{
		{"testclient", func(b *testing.B, url string) model.Model { return newHTTPModel("openai-api/fake/m", url, testAPIKey) }},
		{"model.New/pooled", func(b *testing.B, url string) model.Model {
			m, err := providers.New("openai-api/fake/m", model.Options{BaseURL: url, APIKey: testAPIKey,
				HTTPClient: &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: concurrency}}})
			if err != nil {
				b.Fatal(err)
			}
			return m
		}},
		{"model.New/default-client", func(b *testing.B, url string) model.Model {
			m, err := providers.New("openai-api/fake/m", model.Options{BaseURL: url, APIKey: testAPIKey})
			if err != nil {
				b.Fatal(err)
			}
			return m
		}},
	} {
		b.Run(tc.name, func(b *testing.B) {
			srv := fakeserver.NewOpenAI(b, fakeserver.Options{Latency: latency, MaxRequests: 1 << 30})
			m := tc.new(b, srv.URL)
			jobs := makeJobs(questions)
			var wall, cpu time.Duration
			for i := 0; b.Loop(); i++ {
				journal := filepath.Join(b.TempDir(), "j")
				c0, t0 := cpuTime(), time.Now()
				st, err := Run(context.Background(), m, jobs, Options{Concurrency: concurrency, Journal: journal}, nil)
				wall += time.Since(t0)
				cpu += cpuTime() - c0
				if err != nil || st.Answered != questions {
					b.Fatalf("err %v, stats %+v", err, st)
				}
			}
			report(b, questions, wall, cpu, srv)
		})
	}
	// The same load sent by 32 bare goroutines, no runner: the ceiling
	// this machine allows, to tell the runner's overhead from the
	// machine's.
	b.Run("bare-goroutines", func(b *testing.B) {
		srv := fakeserver.NewOpenAI(b, fakeserver.Options{Latency: latency, MaxRequests: 1 << 30})
		m := newHTTPModel("openai-api/fake/m", srv.URL, testAPIKey)
		jobs := makeJobs(questions)
		var wall, cpu time.Duration
		for b.Loop() {
			c0, t0 := cpuTime(), time.Now()
			var next atomic.Int64 // as the runner's workers take jobs
			var wg sync.WaitGroup
			for range concurrency {
				wg.Go(func() {
					for i := next.Add(1) - 1; i < int64(len(jobs)); i = next.Add(1) - 1 {
						if _, err := model.Ask(context.Background(), m, jobs[i].Task); err != nil {
							b.Error(err)
						}
					}
				})
			}
			wg.Wait()
			wall += time.Since(t0)
			cpu += cpuTime() - c0
		}
		report(b, questions, wall, cpu, srv)
	})
}

func report(b *testing.B, questions int, wall, cpu time.Duration, srv *fakeserver.Server) {
	const ideal = 32 / 0.1 // questions/s at concurrency 32 and 100 ms latency
	n := float64(b.N * questions)
	qps := n / wall.Seconds()
	b.ReportMetric(qps, "q/s")
	b.ReportMetric(100*qps/ideal, "%ideal")
	b.ReportMetric(float64(cpu.Microseconds())/n, "cpu-µs/q")
	b.ReportMetric(float64(srv.MaxInFlight()), "max-in-flight")
}

// BenchmarkOverhead is the runner's own cost per job: 1000 jobs against an
// in-process model that answers at once, with and without a journal.
//
//	go test ./runner -run '^$' -bench Overhead
func BenchmarkOverhead(b *testing.B) {
	for _, journal := range []bool{false, true} {
		b.Run(map[bool]string{false: "no-journal", true: "journal"}[journal], func(b *testing.B) {
			m := newFuncModel(echo)
			jobs := makeJobs(1000)
			for b.Loop() {
				opt := Options{Concurrency: 32}
				if journal {
					opt.Journal = filepath.Join(b.TempDir(), "j")
				}
				if _, err := Run(context.Background(), m, jobs, opt, nil); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(jobs)), "ns/job")
		})
	}
}

// BenchmarkRequestKey is the cost of one request's key (the cache's and
// the journal's): a 2 kB prompt with settings, as a plain question sends it.
//
//	go test ./runner -run '^$' -bench RequestKey -count 6
func BenchmarkRequestKey(b *testing.B) {
	temp, seed := 0.2, int64(7)
	req := model.Task{
		Request: model.Request{
			System:   "Answer briefly.",
			Messages: []model.Message{{Role: "user", Content: strings.Repeat("What is the mean of column a? ", 70)}},
			Settings: model.Settings{Temperature: &temp, MaxTokens: 512, Seed: &seed, Stop: []string{"\n\n"}},
		},
		Question: model.QuestionRef{Sheet: "sheet.md", Name: "q0001", ID: "1"},
	}
	b.ReportAllocs()
	for b.Loop() {
		RequestKey("openai/gpt-4o", model.Info{BaseURL: "https://api.openai.com/v1"}, req)
	}
}
