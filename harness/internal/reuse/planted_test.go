package reuse

import (
	"testing"

	"github.com/evalmd/evalmd/internal/outfile"
	"github.com/evalmd/evalmd/result"
)

// An output's totals are a claim of the file: a planted count of
// questions (less than none, or more than its bytes could hold) sizes
// nothing, and the file's answers are indexed as any file's.
func TestLoadPlantedTotals(t *testing.T) {
	for _, claim := range []int{-1, 1000000000000} {
		dir := t.TempDir()
		f := &result.File{
			Sheet:     result.Sheet{Name: "S", ModelName: "m", Created: "2026-01-01T00:00:00Z", Totals: &result.Totals{Questions: claim}},
			Questions: []result.Question{{Name: "q", Completion: ptr("a"), RequestKey: "k"}},
		}
		if err := f.Write(dir+"/output-s-m-1111.json", outfile.Options{Force: true, Seal: testKey()}); err != nil {
			t.Fatal(err)
		}
		ix, err := Load(dir, "input-s.md", "m", "", testKey())
		if err != nil {
			t.Fatalf("totals.questions %d: %v", claim, err)
		}
		q := result.Question{RequestKey: "k"}
		if _, ok := ix.Take(&q); !ok || *q.Completion != "a" {
			t.Errorf("totals.questions %d: the file's answer was not indexed", claim)
		}
		if n := cap(ix.byKey); n > 1<<10 {
			t.Errorf("totals.questions %d: room made for %d answers", claim, n)
		}
		ix.Close()
	}
}
