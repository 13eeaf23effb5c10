package outfile

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/evalmd/evalmd/internal/readfile"
)

// Link hard-links a new file, leaves one that already is the source,
// replaces one holding the source's bytes, and refuses one the user wrote.
func TestLink(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "src.csv")
	if err := os.WriteFile(src, []byte("a,b\n1,2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name     string
		existing string // "" for none
		same     bool   // path is already a link to src
		want     error
	}{
		{name: "new"},
		{name: "same", same: true},
		{name: "copy", existing: "a,b\n1,2\n"},
		{name: "user's", existing: "mine\n", want: ErrNotOurs},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(dir, tc.name, "t.csv")
			os.MkdirAll(filepath.Dir(path), 0o755)
			if tc.same {
				if err := os.Link(src, path); err != nil {
					t.Skip("no hard links here:", err)
				}
			}
			if tc.existing != "" {
				os.WriteFile(path, []byte(tc.existing), 0o644)
			}
			_, err := Link(path, src, dir, Options{})
			if !errors.Is(err, tc.want) {
				t.Fatalf("Link: %v, want %v", err, tc.want)
			}
			got, _ := os.ReadFile(path)
			if want := map[bool]string{true: "a,b\n1,2\n", false: tc.existing}[tc.want == nil]; string(got) != want {
				t.Errorf("%s holds %q, want %q", path, got, want)
			}
		})
	}
}

// A source that is a link out of the input folder (to ~/secret.csv) is
// refused in one line naming it and where it leads, never linked nor
// copied in; a link that stays in the folder is followed, and its target
// (not the link) is what path gets.
func TestLinkStaysInInput(t *testing.T) {
	home := t.TempDir()
	secret := filepath.Join(home, "secret.csv")
	os.WriteFile(secret, []byte("password\n"), 0o600)
	data := filepath.Join(t.TempDir(), "dab")
	os.MkdirAll(filepath.Join(data, "tables"), 0o755)
	os.WriteFile(filepath.Join(data, "real.csv"), []byte("a\n1\n"), 0o644)
	if err := os.Symlink(secret, filepath.Join(data, "tables", "test_ave.csv")); err != nil {
		t.Skip("no symbolic links here:", err)
	}
	os.Symlink("../real.csv", filepath.Join(data, "tables", "in.csv"))
	out := t.TempDir()

	src := filepath.Join(data, "tables", "test_ave.csv")
	dst := filepath.Join(out, "tables", "test_ave.csv")
	_, err := Link(dst, src, data, Options{})
	if !errors.Is(err, readfile.ErrOutside) || !strings.Contains(err.Error(), src) || !strings.Contains(err.Error(), secret) || strings.Contains(err.Error(), "\n") {
		t.Errorf("Link of a link out of the input: %v; want one line naming it and %s", err, secret)
	}
	if _, err := os.Lstat(dst); err == nil {
		t.Error("the secret was put in the output")
	}

	dst = filepath.Join(out, "tables", "in.csv")
	if _, err := Link(dst, filepath.Join(data, "tables", "in.csv"), data, Options{}); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat(dst); err != nil || !fi.Mode().IsRegular() {
		t.Fatalf("%s: %v, %v; want a regular file", dst, fi, err)
	}
	if got, _ := os.ReadFile(dst); string(got) != "a\n1\n" {
		t.Errorf("%s holds %q", dst, got)
	}
}
