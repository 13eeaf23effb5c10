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

// grade -o DIR -w in a folder whose .evalmd-written links to a victim's
// file is refused in one line naming the record (--force too: it allows
// replacing files, never writing through a link); the output, its grade
// file and the victim are unchanged.
func TestGradeWriteRefusesLinkedRecord(t *testing.T) {
	src := shared.Path(t, "corpora", "lime", "results", "output-wsu-1-gpt-4-1063.json")
	orig, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	out := filepath.Join(dir, "output-x;echo PWNED;#.json")
	os.WriteFile(out, orig, 0o644)
	victim := filepath.Join(t.TempDir(), ".bashrc")
	os.WriteFile(victim, []byte("# mine\n"), 0o644)
	rec := filepath.Join(dir, ".evalmd-written")
	if err := os.Symlink(victim, rec); err != nil {
		t.Fatal(err)
	}
	for _, force := range []bool{false, true} {
		args := []string{"-w", "-l", "-o", dir}
		if force {
			args = append(args, "--force")
		}
		var b bytes.Buffer
		err := grade(context.Background(), &b, &b, args)
		if err == nil || !strings.Contains(err.Error(), rec+" is not a regular file") || strings.Contains(err.Error(), "\n") {
			t.Fatalf("force %v: err %v, want one line refusing %s\n%s", force, err, rec, b.String())
		}
	}
	if b, _ := os.ReadFile(victim); string(b) != "# mine\n" {
		t.Errorf("the victim now holds %q", b)
	}
	if after, _ := os.ReadFile(out); !bytes.Equal(after, orig) {
		t.Error("the output was rewritten")
	}
	if written, _ := filepath.Glob(filepath.Join(dir, "grade-*")); len(written) > 0 {
		t.Errorf("written beside a refused record: %v", written)
	}
}
