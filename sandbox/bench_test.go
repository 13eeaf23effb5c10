package sandbox

import (
	"context"
	"testing"
	"time"
)

// benchFile is a small table for the benchmarks' sessions.
func benchFile(b *testing.B) string {
	return writeFile(b, b.TempDir(), "t.csv", "a,b\n1,2\n3,4\n")
}

// BenchmarkQuestionStartWarm: a question's start when a warm interpreter
// (pandas imported) is ready: Open with one file, then a first call.
func BenchmarkQuestionStartWarm(b *testing.B) {
	p := newPool(b, Config{Warm: 1, MaxInFlight: 1, Preload: []string{"numpy", "pandas"}})
	benchStart(b, p, true)
}

// BenchmarkQuestionStartCold: the same with no warm interpreter: bwrap,
// python3 and the pandas import on the question's clock.
func BenchmarkQuestionStartCold(b *testing.B) {
	p := newPool(b, Config{Warm: -1, MaxInFlight: 1, Preload: []string{"numpy", "pandas"}})
	benchStart(b, p, false)
}

func benchStart(b *testing.B, p *Pool, warm bool) {
	ctx := context.Background()
	files := []string{benchFile(b)}
	var open, call time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		for warm && p.idle.Load() < 1 {
			time.Sleep(10 * time.Millisecond)
		}
		b.StartTimer()
		t0 := time.Now()
		s, err := p.Open(ctx, files)
		if err != nil {
			b.Fatal(err)
		}
		t1 := time.Now()
		if r, err := s.Exec(ctx, "import pandas as pd\npd.read_csv('t.csv').shape"); err != nil || r.Output != "(2, 2)\n" {
			b.Fatalf("%+v %v", r, err)
		}
		open += t1.Sub(t0)
		call += time.Since(t1)
		b.StopTimer()
		s.Close()
		b.StartTimer()
	}
	b.ReportMetric(float64(open.Milliseconds())/float64(b.N), "open-ms/op")
	b.ReportMetric(float64(call.Milliseconds())/float64(b.N), "call-ms/op")
}

// BenchmarkExec: the overhead of one call in an open session.
func BenchmarkExec(b *testing.B) {
	p := newPool(b, Config{})
	s := mustOpen(b, p)
	ctx := context.Background()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if r, err := s.Exec(ctx, "x = 1"); err != nil || r.Output != "" {
			b.Fatalf("%+v %v", r, err)
		}
	}
}

// BenchmarkExecPandas: a small pandas call on a loaded table.
func BenchmarkExecPandas(b *testing.B) {
	p := newPool(b, Config{Preload: []string{"numpy", "pandas"}})
	s := mustOpen(b, p, benchFile(b))
	ctx := context.Background()
	mustExec(b, s, "import pandas as pd\ndf = pd.read_csv('t.csv')")
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if r, err := s.Exec(ctx, "df.a.sum()"); err != nil || r.Output != "4\n" {
			b.Fatalf("%+v %v", r, err)
		}
	}
}

// BenchmarkQuestionStartSustained: questions opened back to back, each
// closed at once, with the default warm pool (one per core): once the
// warm interpreters are used up, starts wait for replacements, so this is
// the rate at which the pool can start interpreters with pandas imported.
func BenchmarkQuestionStartSustained(b *testing.B) {
	p := newPool(b, Config{Preload: []string{"numpy", "pandas"}})
	ctx := context.Background()
	files := []string{benchFile(b)}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		s, err := p.Open(ctx, files)
		if err != nil {
			b.Fatal(err)
		}
		s.Close()
	}
}
