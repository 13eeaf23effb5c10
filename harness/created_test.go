package harness

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"testing"
)

// A run records its start to the millisecond (result.CreatedLayout), so
// two runs of one sheet started in one second are ordered by their record
// (agg --latest-version, a rerun's reused answers), not by their files'
// modification times, which grade -w changes.
func TestCreatedHasMilliseconds(t *testing.T) {
	dir := t.TempDir()
	sheet := filepath.Join(dir, "input-s.md")
	if err := os.WriteFile(sheet, []byte("# S\n## Q1\n#### question\nq\n#### answer\na\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	cfg := serverConfig(t, []string{sheet}, out, "http://127.0.0.1:1", 1)
	cfg.Models = []string{"oracle"}
	cfg.Stderr = io.Discard
	if _, err := Run(context.Background(), cfg); err != nil {
		t.Fatal(err)
	}
	ms := regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$`)
	for _, f := range outputs(t, out) {
		if !ms.MatchString(f.Sheet.Created) {
			t.Errorf("created %q, want RFC 3339 with milliseconds", f.Sheet.Created)
		}
		if _, ok := f.Sheet.StartTime(); !ok {
			t.Errorf("created %q does not parse", f.Sheet.Created)
		}
	}
}
