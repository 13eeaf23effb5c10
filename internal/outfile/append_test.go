package outfile

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// Append adds to a file (creating a missing one) and never writes through
// a symbolic link, into a FIFO or into an input; the file refused keeps
// its bytes.
func TestAppend(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "target")
	if err := os.WriteFile(target, []byte("kept\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name  string
		setup func(path string) error
		opt   func(path string) Options
		want  error // nil: appended
		had   string
	}{
		{"new file", func(string) error { return nil }, nil, nil, ""},
		{"existing file, not evalmd's", func(p string) error { return os.WriteFile(p, []byte("# step 1\n"), 0o644) }, nil, nil, "# step 1\n"},
		{"a link", func(p string) error { return os.Symlink(target, p) }, nil, ErrLink, ""},
		{"a dangling link", func(p string) error { return os.Symlink(filepath.Join(dir, "none"), p) }, nil, ErrLink, ""},
		{"a FIFO", mkfifo, nil, ErrNotFile, ""},
		{"an input", func(p string) error { return os.WriteFile(p, []byte("in\n"), 0o644) },
			func(p string) Options { return Options{Inputs: []string{p}} }, ErrInput, "in\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "summary")
			if err := tc.setup(path); err != nil {
				t.Skip("cannot make one here:", err)
			}
			var opt Options
			if tc.opt != nil {
				opt = tc.opt(path)
			}
			for range 2 {
				err := Append(path, []byte("more\n"), opt)
				if !errors.Is(err, tc.want) {
					t.Fatalf("Append: %v, want %v", err, tc.want)
				}
			}
			if got, _ := os.ReadFile(target); string(got) != "kept\n" {
				t.Errorf("the link's target now holds %q", got)
			}
			if _, err := os.Lstat(filepath.Join(dir, "none")); err == nil {
				t.Error("a dangling link's target was made")
			}
			if tc.want != nil {
				if tc.had == "" {
					return // a link or a FIFO: not to be read
				}
				if got, err := os.ReadFile(path); string(got) != tc.had {
					t.Errorf("the refused file holds %q, %v; want %q", got, err, tc.had)
				}
				return
			}
			if got, err := os.ReadFile(path); err != nil || string(got) != tc.had+"more\nmore\n" {
				t.Errorf("file holds %q, %v; want %q", got, err, tc.had+"more\nmore\n")
			}
		})
	}
}
