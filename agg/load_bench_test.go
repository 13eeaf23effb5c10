package agg

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/evalmd/evalmd/internal/testkit/benchkit"
	"github.com/evalmd/evalmd/internal/testkit/shared"
	"github.com/evalmd/evalmd/result"
)

// writeBenchFolder writes files output files of perFile graded questions
// each, shaped like real ones (prompt, completion, meta, usage), over 20
// models and files/20 sheets.
func writeBenchFolder(dir string, files, perFile int) error {
	prompt := strings.Repeat("Below is a question about the data. ", 8)
	completion := strings.Repeat("The answer is B because of the table. ", 4)
	for f := 0; f < files; f++ {
		model := fmt.Sprintf("provider/model-%02d", f%20)
		sheet := fmt.Sprintf("Sheet-%04d", f/20)
		run := fmt.Sprintf("%04x", f)
		qs := make([]map[string]any, perFile)
		for i := range qs {
			cost := 0.0001 * float64(i%7)
			qs[i] = map[string]any{
				"name":         fmt.Sprintf("Q-%03d", i),
				"meta_data":    map[string]string{"answer_type": "multiple-choice", "id": fmt.Sprint(i)},
				"ground_truth": "B",
				"question":     prompt,
				"completion":   completion,
				"error":        nil,
				"model_name":   model,
				"eval_time":    1.25,
				"grade":        (i*31+f*17)%3 != 0,
				"input_tokens": 120, "output_tokens": 40, "cost": cost, "grader": "lime",
			}
		}
		doc := map[string]any{
			"sheet":     map[string]any{"name": sheet, "run_id": run, "model_name": model, "meta_data": map[string]string{"answer_type": "multiple-choice"}, "question": prompt},
			"questions": qs,
		}
		data, err := json.MarshalIndent(doc, "", "  ")
		if err != nil {
			return err
		}
		name := filepath.Join(dir, fmt.Sprintf("output-sheet-%04d-%s-%s.json", f/20, safeModel(model), run))
		if err := os.WriteFile(name, data, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// safeModel makes a model name file-safe for the generated names.
func safeModel(s string) string { return strings.ReplaceAll(s, "/", "_") }

// TestWriteBenchFolder writes the 10,000-file folder to $AGG_BENCH_DIR, for
// timing the built command with /usr/bin/time -v; skipped otherwise.
func TestWriteBenchFolder(t *testing.T) {
	dir := os.Getenv("AGG_BENCH_DIR")
	if dir == "" {
		t.Skip("set AGG_BENCH_DIR to write the benchmark folder")
	}
	if err := writeBenchFolder(dir, 10000, 100); err != nil {
		t.Fatal(err)
	}
}

// BenchmarkAgg10k aggregates 10,000 output files of 100 questions each (1M
// graded questions) into the full report, and reports the peak heap in use.
func BenchmarkAgg10k(b *testing.B) {
	dir := b.TempDir()
	if err := writeBenchFolder(dir, 10000, 100); err != nil {
		b.Fatal(err)
	}
	var peak atomic.Uint64
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		var ms runtime.MemStats
		for {
			runtime.ReadMemStats(&ms)
			if ms.HeapInuse > peak.Load() {
				peak.Store(ms.HeapInuse)
			}
			select {
			case <-stop:
				return
			case <-time.After(20 * time.Millisecond):
			}
		}
	}()
	runtime.GC()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		d, err := Load(context.Background(), dir, io.Discard, LoadOptions{})
		if err != nil {
			b.Fatal(err)
		}
		if d.Questions() != 1000000 {
			b.Fatalf("%d questions", d.Questions())
		}
		if _, err := d.Markdown(ReportOptions{}); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	close(stop)
	<-done
	b.ReportMetric(float64(peak.Load())/(1<<20), "peak-heap-MB")
}

// BenchmarkDecodeOutput is the decoding (result.Parse) and reduction to
// rows of one output file of 100 questions (prompts and completions as in
// BenchmarkAgg10k), in memory.
//
//	go test ./agg -run '^$' -bench DecodeOutput -count 6
func BenchmarkDecodeOutput(b *testing.B) {
	dir := b.TempDir()
	if err := writeBenchFolder(dir, 1, 100); err != nil {
		b.Fatal(err)
	}
	paths, _ := filepath.Glob(filepath.Join(dir, "*.json"))
	data, err := os.ReadFile(paths[0])
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		f, err := result.Parse(data)
		if err != nil || len(f.Questions) != 100 {
			b.Fatal(err)
		}
		d, _ := newData(nil)
		d.add(f)
	}
}

// BenchmarkLoadFolders is agg's whole read of real folders (find, decode,
// reduce) and its markdown report: LIME's 26 result files and DSBench's
// test outputs, with every benchmark metric loaded.
//
//	go test ./agg -run '^$' -bench LoadFolders -benchmem -count 6
func BenchmarkLoadFolders(b *testing.B) {
	for _, c := range []struct{ name, dir string }{
		{"lime", shared.Path(b, "corpora", "lime", "results")},
		{"dsbench", filepath.Join("..", "benchmark", "dsbench", "score", "testdata", "agg")},
	} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				d, err := Load(context.Background(), c.dir, io.Discard, LoadOptions{})
				if err != nil || d.Files == 0 {
					b.Fatal(d, err)
				}
				if _, err := d.Markdown(ReportOptions{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkAggLarge is agg's default report (Load, then LIME's tables and
// agg's) over the output of one run of 10k, 100k or 1M questions
// (benchkit.WriteOutput, as run writes it), and of the run of 1M split in
// 4 and in 100 shards' parts (benchkit.WriteOutputParts, read as the one
// file they make), with the peak heap (benchkit.WatchHeap; EVALMD_HEAP_PROFILE=FILE
// keeps a heap profile near the peak). BENCHMARKS.md has the
// whole-process figures.
//
//	go test ./agg -run '^$' -bench 'AggLarge/(10k|100k)$' -benchtime 1x
//	go test ./agg -run '^$' -bench 'AggLarge/1M$' -benchtime 1x
//	go test ./agg -run '^$' -bench 'AggLarge/1M-in-(4|100)-shards$' -benchtime 1x
func BenchmarkAggLarge(b *testing.B) {
	for _, tc := range []struct {
		name      string
		n, shards int
	}{{"10k", 10_000, 0}, {"100k", 100_000, 0}, {"1M", 1_000_000, 0}, {"1M-in-4-shards", 1_000_000, 4}, {"1M-in-100-shards", 1_000_000, 100}} {
		b.Run(tc.name, func(b *testing.B) {
			dir := b.TempDir()
			path, n := filepath.Join(dir, "output-q-openai-api_fake_m-b3nc.json"), tc.n
			write := benchkit.WriteOutput
			if tc.shards > 0 {
				write = func(path string, n int) error { return benchkit.WriteOutputParts(path, n, tc.shards) }
			}
			if err := write(path, n); err != nil {
				b.Fatal(err)
			}
			var peak uint64
			for b.Loop() {
				runtime.GC()
				stop := benchkit.WatchHeap()
				d, err := Load(context.Background(), dir, io.Discard, LoadOptions{})
				if err != nil || d.Questions() != n {
					b.Fatal(err)
				}
				if _, err := d.Markdown(ReportOptions{}); err != nil {
					b.Fatal(err)
				}
				peak = max(peak, stop())
			}
			b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MB")
		})
	}
}
