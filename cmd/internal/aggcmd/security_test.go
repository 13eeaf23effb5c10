package aggcmd

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// agg -i DIR -o DIR/FILE into a folder whose .evalmd-written links to a victim's file
// is refused in one line naming the record, before any report or chart is
// written; the victim is unchanged.
func TestAggRefusesLinkedRecord(t *testing.T) {
	dir, _ := copyLIME(t)
	victim := filepath.Join(t.TempDir(), ".bashrc")
	os.WriteFile(victim, []byte("# mine\n"), 0o644)
	rec := filepath.Join(dir, ".evalmd-written")
	if err := os.Symlink(victim, rec); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	err := aggregate(context.Background(), &stdout, &stderr, []string{"-i", dir, "-o", filepath.Join(dir, "agg-board.md"), "-charts"})
	if err == nil || !strings.Contains(err.Error(), rec+" is not a regular file") || strings.Contains(err.Error(), "\n") {
		t.Fatalf("err %v, want one line refusing %s", err, rec)
	}
	if b, _ := os.ReadFile(victim); string(b) != "# mine\n" {
		t.Errorf("the victim now holds %q", b)
	}
	if written, _ := filepath.Glob(filepath.Join(dir, "agg-*")); len(written) > 0 {
		t.Errorf("written beside a refused record: %v", written)
	}
}
