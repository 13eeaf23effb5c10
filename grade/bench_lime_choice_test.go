package grade

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/evalmd/evalmd/internal/testkit/shared"
	"github.com/evalmd/evalmd/result"
)

// limeBenchInputs builds 10,000 graded questions by repeating LIME's real
// questions (completions, ground truths and prompts as they are).
func limeBenchInputs(b *testing.B) []Input {
	b.Helper()
	files, err := filepath.Glob(shared.Path(b, "corpora", "lime", "results", "output-*.json"))
	if err != nil || len(files) == 0 {
		b.Fatalf("no LIME outputs: %v", err)
	}
	var base []Input
	for _, p := range files {
		f, err := result.Read(p)
		if err != nil {
			b.Fatal(err)
		}
		for _, q := range f.Questions {
			if q.GroundTruth != nil && q.Completion != nil {
				base = append(base, Input{Truth: *q.GroundTruth, Completion: *q.Completion, Question: q.Question, Meta: q.MetaData})
			}
		}
	}
	in := make([]Input, 10000)
	for i := range in {
		in[i] = base[i%len(base)]
	}
	return in
}

func benchmarkGrader(b *testing.B, g Grader) {
	in := limeBenchInputs(b)
	ctx := context.Background()
	b.ResetTimer()
	for b.Loop() {
		for _, x := range in {
			if _, err := g.Grade(ctx, x); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/1e6, "ms/10k-questions")
}

// BenchmarkLime10k grades 10,000 questions with LIME's rule.
func BenchmarkLime10k(b *testing.B) { benchmarkGrader(b, newLime(Options{})) }

// BenchmarkLimeLiberal10k grades 10,000 questions with LIME's liberal rule.
func BenchmarkLimeLiberal10k(b *testing.B) { benchmarkGrader(b, newLime(Options{Liberal: true})) }

// BenchmarkChoice10k grades 10,000 questions with the choice grader.
func BenchmarkChoice10k(b *testing.B) { benchmarkGrader(b, newChoice(Options{})) }
