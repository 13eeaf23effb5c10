//go:build linux

package outfile

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/evalmd/evalmd/internal/testkit/fsize"
)

// A full disk while the pair is made (the .md, the larger, fails midway)
// leaves both files as they were, not a new JSON beside an old .md.
func TestWriteFilesDiskFull(t *testing.T) {
	dir := t.TempDir()
	j, m := filepath.Join(dir, "out.json"), filepath.Join(dir, "out.md")
	mustWrite(t, j, "old json", Options{})
	mustWrite(t, m, "old md", Options{})
	var err error
	fsize.Limit(t, 4096, func() {
		err = WriteFiles(Bytes(j, []byte("new json"), Options{}), Bytes(m, []byte(strings.Repeat("new md\n", 2000)), Options{}))
	})
	if !errors.Is(err, syscall.EFBIG) || !strings.Contains(err.Error(), m) {
		t.Fatalf("err %v, want the .md's write failing", err)
	}
	if got := read(t, j); got != "old json" {
		t.Errorf("the JSON was replaced (%q) though its .md could not be", got)
	}
	if got := read(t, m); got != "old md" {
		t.Errorf("the .md holds %q", got)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 3 {
		t.Errorf("folder holds %d entries, want the two files and the record", len(ents))
	}
}
