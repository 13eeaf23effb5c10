package outfile

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestMove: a file evalmd wrote moves into a folder below its own, and its
// record line with it (sha256sum -c passes in both folders); a file
// evalmd did not write, one edited since, a link, and a move over a file
// already there are refused, changing nothing; Force moves a file not
// evalmd's.
func TestMove(t *testing.T) {
	for _, tc := range []struct {
		name    string
		prepare func(t *testing.T, path, dir string)
		force   bool
		err     error
	}{
		{"ours", func(*testing.T, string, string) {}, false, nil},
		{"not ours", func(t *testing.T, path, _ string) { forget(t, path) }, false, ErrNotOurs},
		{"not ours, forced", func(t *testing.T, path, _ string) { forget(t, path) }, true, nil},
		{"edited", func(t *testing.T, path, _ string) { plainWrite(t, path, "edited") }, false, ErrEdited},
		{"destination taken", func(t *testing.T, path, dir string) {
			plainWrite(t, filepath.Join(dir, filepath.Base(path)), "older")
		}, false, ErrExists},
		{"a link", func(t *testing.T, path, _ string) {
			target := path + ".target"
			if err := os.Rename(path, target); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(target, path); err != nil {
				t.Fatal(err)
			}
		}, false, ErrLink},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			path := filepath.Join(root, "output-a.json")
			dir := filepath.Join(root, "superseded")
			if err := Write(path, []byte("evalmd's"), Options{}); err != nil {
				t.Fatal(err)
			}
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			tc.prepare(t, path, dir)
			dst, err := Move(path, dir, Options{Force: tc.force})
			if !errors.Is(err, tc.err) {
				t.Fatalf("Move: %v, want %v", err, tc.err)
			}
			_, stillThere := os.Lstat(path)
			if tc.err != nil {
				if stillThere != nil {
					t.Errorf("refused, but %s is gone", path)
				}
				return
			}
			if stillThere == nil || dst != filepath.Join(dir, "output-a.json") {
				t.Fatalf("moved to %q, and the old name still there: %v", dst, stillThere == nil)
			}
			rec, _ := os.ReadFile(filepath.Join(root, Record))
			if strings.Contains(string(rec), "output-a.json") {
				t.Errorf("the old folder's record still names the file:\n%s", rec)
			}
			rec, _ = os.ReadFile(filepath.Join(dir, Record))
			if !strings.Contains(string(rec), "  output-a.json\n") {
				t.Errorf("the new folder's record does not name the file:\n%s", rec)
			}
			// Moved, it is still evalmd's: a write over it needs no Force.
			if err := Write(dst, []byte("rewritten"), Options{}); err != nil {
				t.Errorf("writing over the moved file: %v", err)
			}
		})
	}
}

// plainWrite writes s to path as another program would.
func plainWrite(t *testing.T, path, s string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

// forget drops path's folder's record: the file is no longer evalmd's.
func forget(t *testing.T, path string) {
	t.Helper()
	if err := os.Remove(filepath.Join(filepath.Dir(path), Record)); err != nil {
		t.Fatal(err)
	}
}
