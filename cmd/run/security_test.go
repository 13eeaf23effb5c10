package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// hostileFolder is a downloaded sheet folder: a sheet whose name is shell
// syntax, and a record of written files that links to the victim's
// ~/.bashrc. It returns the folder and the victim.
func hostileFolder(t *testing.T) (dir, victim string) {
	t.Helper()
	sheet, err := os.ReadFile(filepath.Join("..", "..", "sheets", "input-solar-choice.md"))
	if err != nil {
		t.Fatal(err)
	}
	dir = filepath.Join(t.TempDir(), "evil")
	os.Mkdir(dir, 0o755)
	writeFile(t, filepath.Join(dir, "input-x;echo PWNED;#.md"), string(sheet))
	victim = filepath.Join(t.TempDir(), ".bashrc")
	writeFile(t, victim, "# mine\n")
	if err := os.Symlink(victim, filepath.Join(dir, ".evalmd-written")); err != nil {
		t.Fatal(err)
	}
	return dir, victim
}

// run -d over a folder whose .evalmd-written links elsewhere is refused
// before anything is asked or written, in one line naming the record; the
// victim is unchanged. Without the link, the sheet's hostile name is
// recorded as a name (sha256sum -c reads it back and checks it), and the
// record of a fresh run is true: one line per file it left, no line of the
// run state it removed.
func TestRunHostileFolder(t *testing.T) {
	dir, victim := hostileFolder(t)
	var stderr bytes.Buffer
	err := run(context.Background(), &stderr, &stderr, []string{"-d", dir, "-m", "mock"})
	if err == nil || !strings.Contains(err.Error(), filepath.Join(dir, ".evalmd-written")+" is not a regular file") || strings.Contains(err.Error(), "\n") {
		t.Fatalf("err %v, want one line refusing the record\n%s", err, stderr.String())
	}
	if b, _ := os.ReadFile(victim); string(b) != "# mine\n" {
		t.Errorf("the victim now holds %q", b)
	}
	if outs, _ := filepath.Glob(filepath.Join(dir, "output-*")); len(outs) > 0 {
		t.Errorf("written beside a refused record: %v", outs)
	}

	os.Remove(filepath.Join(dir, ".evalmd-written"))
	if err := run(context.Background(), &stderr, &stderr, []string{"-d", dir, "-m", "mock"}); err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	rec, err := os.ReadFile(filepath.Join(dir, ".evalmd-written"))
	if err != nil {
		t.Fatal(err)
	}
	outs, _ := filepath.Glob(filepath.Join(dir, "output-*"))
	if n := strings.Count(string(rec), "\n"); n != len(outs) || len(outs) != 2 {
		t.Errorf("record of %d lines for %d outputs %v:\n%s", n, len(outs), outs, rec)
	}
	for _, o := range outs {
		if !strings.Contains(string(rec), "  "+filepath.Base(o)+"\n") {
			t.Errorf("record lacks %s:\n%s", filepath.Base(o), rec)
		}
	}
	if _, err := exec.LookPath("sha256sum"); err != nil {
		t.Skip("no sha256sum")
	}
	cmd := exec.Command("sha256sum", "-c", "--strict", ".evalmd-written")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Errorf("sha256sum -c after a fresh run: %v\n%s", err, out)
	}
}
