package regrade

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/evalmd/evalmd/internal/outfile"
	"github.com/evalmd/evalmd/internal/testkit/shared"
	"github.com/evalmd/evalmd/result"
)

// benchFile writes one output file of 10,000 questions made by repeating a
// real LIME output's questions.
func benchFile(b *testing.B) string {
	b.Helper()
	f, err := result.Read(shared.Path(b, "corpora", "lime", "results", "output-miss-2-easy-gpt-4-f525.json"))
	if err != nil {
		b.Fatal(err)
	}
	base := f.Questions
	f.Questions = make([]result.Question, 10000)
	for i := range f.Questions {
		f.Questions[i] = base[i%len(base)]
	}
	p := filepath.Join(b.TempDir(), "output-bench-10k.json")
	if err := f.Write(p, outfile.Options{}); err != nil {
		b.Fatal(err)
	}
	return p
}

func benchmarkRegrade(b *testing.B, override string) {
	p := benchFile(b)
	b.ResetTimer()
	for b.Loop() {
		if _, err := Regrade(context.Background(), []string{p}, Options{GraderOverride: override}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRegrade10kLime reads a 10,000-question output and regrades it
// with LIME's rule (dry run).
func BenchmarkRegrade10kLime(b *testing.B) { benchmarkRegrade(b, "lime") }

// BenchmarkRegrade10kChoice does the same with the choice grader.
func BenchmarkRegrade10kChoice(b *testing.B) { benchmarkRegrade(b, "choice") }
