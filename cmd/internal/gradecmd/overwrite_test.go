package gradecmd

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/evalmd/evalmd/internal/testkit/shared"
)

// grade -w never writes through a symbolic link: an output that is one is
// refused in one line naming it and where it leads, its target, the link
// and the folders are left as they were; a read-only output is refused
// and left as it was.
func TestGradeWriteLinkAndReadOnly(t *testing.T) {
	src := shared.Path(t, "corpora", "lime", "results", "output-wsu-1-gpt-4-1063.json")
	orig, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	real := filepath.Join(dir, "real")
	os.Mkdir(real, 0o755)
	target := filepath.Join(real, "output-wsu-1-gpt-4-1063.json")
	os.WriteFile(target, orig, 0o644)
	link := filepath.Join(dir, "output-link.json")
	if err := os.Symlink("real/output-wsu-1-gpt-4-1063.json", link); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	err = grade(context.Background(), &out, &out, []string{"-w", "-l", "--force", "-o", link})
	if err == nil || !strings.Contains(out.String(), link+" is a symbolic link") || !strings.Contains(out.String(), "real/output-wsu-1-gpt-4-1063.json") {
		t.Fatalf("grade -w of a link: %v\n%s", err, out.String())
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("the link was replaced by a file")
	}
	if after, _ := os.ReadFile(target); !bytes.Equal(after, orig) {
		t.Error("the link's target was rewritten")
	}
	for _, d := range []string{dir, real} {
		if ents, _ := os.ReadDir(d); len(ents) != map[string]int{dir: 2, real: 1}[d] {
			t.Errorf("%s now holds %d entries", d, len(ents))
		}
	}

	ro := filepath.Join(dir, "output-ro.json")
	os.WriteFile(ro, orig, 0o444)
	out.Reset()
	err = grade(context.Background(), &out, &out, []string{"-w", "-l", "--force", "-o", ro})
	if err == nil || !strings.Contains(err.Error(), "read-only") || !strings.Contains(err.Error(), ro) {
		t.Fatalf("read-only output: %v", err)
	}
	if after, _ := os.ReadFile(ro); !bytes.Equal(after, orig) {
		t.Error("the read-only output was changed")
	}
	if _, err := os.Stat(filepath.Join(dir, "grade-ro.json")); err == nil {
		t.Error("a grade file was written for a refused output")
	}
}
