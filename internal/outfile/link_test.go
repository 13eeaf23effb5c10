package outfile

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
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
			_, err := Link(path, src, Options{})
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
