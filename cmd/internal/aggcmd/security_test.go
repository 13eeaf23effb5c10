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

// agg --log-dir on an output whose costs, each a number, add up past the
// largest float (1e308 + 1e308): the log is written, its total cost left
// out, one line naming it says so; no log goes missing.
func TestLogDirSummedCost(t *testing.T) {
	dir, logs := t.TempDir(), t.TempDir()
	doc := `{"sheet": {"name": "s", "run_id": "r1", "model_name": "m"}, "questions": [
		{"name": "a", "grade": true, "completion": "x", "cost": 1e308},
		{"name": "b", "grade": true, "completion": "x", "cost": 1e308}]}`
	if err := os.WriteFile(filepath.Join(dir, "output-s-m-r1.json"), []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	if err := aggregate(context.Background(), &stdout, &stderr, []string{"-i", dir, "--log-dir", logs, "--md"}); err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	written, _ := filepath.Glob(filepath.Join(logs, "*.eval"))
	if len(written) != 1 || !strings.Contains(stderr.String(), "wrote 1 Inspect logs") ||
		!strings.Contains(stderr.String(), "inspect log "+written[0]+": the questions' costs add up past the largest number") {
		t.Errorf("logs %v; stderr:\n%s", written, stderr.String())
	}
}
