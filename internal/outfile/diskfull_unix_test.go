//go:build linux

package outfile

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// withFileSizeLimit runs f with writes past limit bytes of a file failing
// (EFBIG; Go ignores the SIGXFSZ that comes with it), as a full disk
// fails them midway. The limit is the process's: no test runs meanwhile.
func withFileSizeLimit(t *testing.T, limit uint64, f func()) {
	t.Helper()
	var old syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_FSIZE, &old); err != nil {
		t.Skip(err)
	}
	lim := old
	lim.Cur = limit
	if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &lim); err != nil {
		t.Skip(err)
	}
	defer func() {
		if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &old); err != nil {
			t.Fatal(err)
		}
	}()
	f()
}

// A full disk while the pair is made (the .md, the larger, fails midway)
// leaves both files as they were, not a new JSON beside an old .md.
func TestWriteFilesDiskFull(t *testing.T) {
	dir := t.TempDir()
	j, m := filepath.Join(dir, "out.json"), filepath.Join(dir, "out.md")
	mustWrite(t, j, "old json", Options{})
	mustWrite(t, m, "old md", Options{})
	var err error
	withFileSizeLimit(t, 4096, func() {
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
