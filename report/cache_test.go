package report

import (
	"bytes"
	"context"
	"path/filepath"
	"testing"

	"github.com/evalmd/evalmd/internal/outfile"
	"github.com/evalmd/evalmd/result"
)

// The page's usage table says the prompt cache's reads and what it saved.
func TestPageShowsCacheSaved(t *testing.T) {
	dir := t.TempDir()
	cost, saved, truth, yes := 0.03495, 0.11775, "A", true
	f := &result.File{Sheet: result.Sheet{Name: "Case", ModelName: "anthropic/claude-sonnet-4-5", RunID: "c1"},
		Questions: []result.Question{{Name: "q1", Question: "q?", GroundTruth: &truth, Completion: &truth, Grade: &yes,
			InputTokens: 50400, CacheReadTokens: 45000, CacheWriteTokens: 5000, OutputTokens: 100, Cost: &cost, CacheSaved: &saved}}}
	if err := f.Write(filepath.Join(dir, "output-case-claude-c1.json"), outfile.Options{}); err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := Write(context.Background(), &b, dir, Options{}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"cache read tokens", "cache saved (USD)", "0.1177"} {
		if !bytes.Contains(b.Bytes(), []byte(want)) {
			t.Errorf("the page lacks %q", want)
		}
	}
}
