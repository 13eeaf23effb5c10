//go:build unix

package sheet

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// ParseFile reads a sheet from its own folder only, where its files are
// sent from: a link below it is read, a link out of it (even to a folder
// above, still in the evals), a FIFO (which would hold the read forever) and
// a folder are refused in one line naming the file.
func TestParseFilePlaces(t *testing.T) {
	dir := t.TempDir()
	evals := filepath.Join(dir, "evals")
	os.MkdirAll(filepath.Join(evals, "sub"), 0o755)
	sheetText := "# Q\n\nWhat?\n\n## Answer\n\n42\n"
	os.WriteFile(filepath.Join(evals, "input-a.md"), []byte(sheetText), 0o644)
	os.WriteFile(filepath.Join(dir, "secret.md"), []byte(sheetText), 0o644)
	os.WriteFile(filepath.Join(evals, "sub", "real.md"), []byte(sheetText), 0o644)
	if err := os.Symlink("sub/real.md", filepath.Join(evals, "input-down.md")); err != nil {
		t.Skip("no symbolic links here:", err)
	}
	os.Symlink("../input-a.md", filepath.Join(evals, "sub", "input-up.md"))
	os.Symlink("../secret.md", filepath.Join(evals, "input-out.md"))
	os.Symlink(filepath.Join(dir, "secret.md"), filepath.Join(evals, "sub", "input-abs.md"))
	os.Mkdir(filepath.Join(evals, "input-dir.md"), 0o755)
	fifo := filepath.Join(evals, "input-fifo.md")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip("no FIFOs here:", err)
	}
	for _, tc := range []struct {
		name, err string // err: "" when read
	}{
		{"input-a.md", ""},
		{"input-down.md", ""},
		{"sub/input-up.md", "outside"}, // its files would be sent from sub
		{"input-out.md", "outside"},
		{"sub/input-abs.md", "outside"},
		{"input-fifo.md", "not a regular file (a FIFO)"},
		{"input-dir.md", "not a regular file (a folder)"},
	} {
		path := filepath.Join(evals, tc.name)
		done := make(chan error, 1)
		go func() {
			_, err := ParseFile(path, nil)
			done <- err
		}()
		var err error
		select {
		case err = <-done:
		case <-time.After(5 * time.Second):
			t.Fatalf("ParseFile(%s) still waiting after 5s", tc.name)
		}
		if tc.err == "" {
			if err != nil {
				t.Errorf("ParseFile(%s): %v", tc.name, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), tc.err) || !strings.Contains(err.Error(), path) || strings.Contains(err.Error(), "\n") {
			t.Errorf("ParseFile(%s): %v; want one line naming it, saying %q", tc.name, err, tc.err)
		}
	}
}
