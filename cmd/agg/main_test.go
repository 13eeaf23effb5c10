package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/evalmd/evalmd/internal/shared"
)

// agg on LIME's real results starts with LIME's own tables, and --log-dir
// writes one Inspect log per output file.
func TestAggLIMEAndLogs(t *testing.T) {
	dir := shared.Path(t, "corpora", "lime", "results")
	logs := t.TempDir()
	var stdout, stderr bytes.Buffer
	if err := aggregate(context.Background(), &stdout, &stderr, []string{"-i", dir, "-o", "-", "--log-dir", logs}); err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	want, err := os.ReadFile(shared.Path(t, "reference", "lime", "agg", "agg-reference.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(stdout.String(), string(want)) {
		t.Error("the report does not start with LIME's reference tables")
	}
	got, _ := filepath.Glob(filepath.Join(logs, "*.json"))
	if len(got) != 26 {
		t.Errorf("%d Inspect logs, want 26\n%s", len(got), stderr.String())
	}
}

func TestUsage(t *testing.T) {
	for _, args := range [][]string{nil, {"-i", "a", "b"}, {"-i", filepath.Join(t.TempDir(), "missing")}} {
		var b bytes.Buffer
		if err := aggregate(context.Background(), &b, &b, args); err == nil {
			t.Errorf("agg %q succeeded", args)
		}
	}
}
