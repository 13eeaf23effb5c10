//go:build linux

package evalmdcmd

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/evalmd/evalmd/internal/testkit/fsize"
	"github.com/evalmd/evalmd/result"
)

// A full disk while a run writes an output and its .md (here a file size
// limit, which fails writes past it midway as a full disk does; Go ignores
// the SIGXFSZ that comes with it) leaves both as they were: never the new
// JSON beside the old .md, or the other way round, until a rerun.
func TestFullDiskKeepsPairs(t *testing.T) {
	dir := t.TempDir()
	sheet := filepath.Join(dir, "input-big.md")
	write := func(truth string) {
		// A long truth of quotes, which the JSON escapes and the .md
		// does not, so the two differ in size.
		text := "# Big\n\n#### meta\n- grader: lime\n\n## Q\n#### answer\n" + truth + strings.Repeat(`"`, 20000) + "<EVAL-ENDCHAR>\n#### question\nWhat?\n<EVAL-ENDCHAR>\n"
		if err := os.WriteFile(sheet, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("old")
	out := filepath.Join(dir, "out")
	// No user config folder, so no key: the run under the limit opens no
	// key or seal file, each an entry of the test binary's own log of the
	// files it opens (go test's), which it writes as it fills and would
	// then write past the limit.
	env := testEnv("", nil)
	env.Look.Getenv = func(string) string { return "" }
	run := []string{"run", "-f", sheet, "-m", "mock", "-u", "0", "--force", "-o", out}
	if _, stderr, code := evalmd(t, env, run...); code != 0 {
		t.Fatal(stderr)
	}
	path := filepath.Join(out, "output-big-mock.json")
	md := result.MarkdownPath(path)
	sizes := [2]int64{}
	for i, p := range []string{path, md} {
		fi, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		sizes[i] = fi.Size()
	}
	if d := sizes[0] - sizes[1]; d < 4096 && d > -4096 {
		t.Fatalf("the JSON and the .md are %d and %d bytes: too close to fill the disk between them", sizes[0], sizes[1])
	}
	before := [2]string{readString(t, path), readString(t, md)}
	write("new")
	var stderr string
	var code int
	fsize.Limit(t, uint64(sizes[0]+sizes[1])/2, func() { _, stderr, code = evalmd(t, env, run...) })
	if code == 0 || !strings.Contains(stderr, "file too large") {
		t.Fatalf("run on a full disk: exit %d, %q; want the write's failure", code, stderr)
	}
	if after := [2]string{readString(t, path), readString(t, md)}; after != before {
		t.Errorf("the output changed: JSON %v, .md %v; want both as they were", after[0] != before[0], after[1] != before[1])
	}
	if _, stderr, code := evalmd(t, env, run...); code != 0 {
		t.Fatalf("rerun: %s", stderr)
	}
	f, err := result.Read(path)
	if err != nil {
		t.Fatal(err)
	}
	if readString(t, md) != result.Markdown(f) || readString(t, path) == before[0] {
		t.Error("the rerun did not write the pair")
	}
}

func readString(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
