package runcmd

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/evalmd/evalmd/harness"
)

// A crafted resume state cannot send the output outside -o: its run id is
// refused with a one-line error naming the state file, and nothing is
// written anywhere.
func TestCraftedRunIDRefused(t *testing.T) {
	root := t.TempDir()
	out := filepath.Join(root, "a", "b", "out")
	os.MkdirAll(out, 0o755)
	sheet, _ := filepath.Abs(filepath.Join("..", "..", "..", "sheets", "input-solar-choice.md"))
	key, err := testLookup().Key()
	if err != nil {
		t.Fatal(err)
	}
	_, state := harness.ResumeFiles(harness.Config{Sheets: []string{sheet}, Models: []string{"mock"}, OutDir: out, Key: key})
	os.WriteFile(state, []byte(`{"run_id": "x/../../../trav"}`), 0o644)
	var stderr bytes.Buffer
	err = run(context.Background(), &stderr, &stderr, []string{"-f", sheet, "-m", "mock", "-o", out})
	if err == nil || !strings.Contains(err.Error(), state) || !strings.Contains(err.Error(), "run id") {
		t.Fatalf("err %v", err)
	}
	var written []string
	filepath.Walk(root, func(p string, fi os.FileInfo, err error) error {
		if err == nil && !fi.IsDir() && p != state {
			written = append(written, p)
		}
		return nil
	})
	if len(written) > 0 {
		t.Errorf("written: %q", written)
	}
}

// A huge file (here sparse: no disk used) is refused by its size with one
// line, before it is read; readfile's own test covers endless devices such
// as /dev/zero, which report no size.
func TestHugeSheet(t *testing.T) {
	p := filepath.Join(t.TempDir(), "input-huge.md")
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(300 << 20); err != nil {
		t.Skip("no sparse files here")
	}
	f.Close()
	var stderr bytes.Buffer
	err = run(context.Background(), &stderr, &stderr, []string{"-y", "-f", p, "-o", t.TempDir()})
	if err == nil || !strings.Contains(err.Error(), p+": file too large") {
		t.Fatalf("err %v", err)
	}
}
