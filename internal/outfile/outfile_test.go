package outfile

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

func read(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestWriteRules is every rule for an existing file, with and without
// --force.
func TestWriteRules(t *testing.T) {
	cases := []struct {
		name string
		// setup prepares dir and returns the path to write and the
		// command's inputs.
		setup   func(t *testing.T, dir string) (path string, inputs []string)
		want    error // nil: written
		force   error // with Force
		keepOld string
	}{
		{name: "new file", setup: func(t *testing.T, dir string) (string, []string) {
			return filepath.Join(dir, "a.md"), nil
		}},
		{name: "own file unchanged", setup: func(t *testing.T, dir string) (string, []string) {
			p := filepath.Join(dir, "a.md")
			mustWrite(t, p, "old", Options{})
			return p, nil
		}},
		{name: "own file edited since", keepOld: "edited", want: ErrEdited, setup: func(t *testing.T, dir string) (string, []string) {
			p := filepath.Join(dir, "a.md")
			mustWrite(t, p, "old", Options{})
			os.WriteFile(p, []byte("edited"), 0o644)
			return p, nil
		}},
		{name: "file evalmd did not write", keepOld: "theirs", want: ErrNotOurs, setup: func(t *testing.T, dir string) (string, []string) {
			p := filepath.Join(dir, "a.md")
			os.WriteFile(p, []byte("theirs"), 0o644)
			return p, nil
		}},
		{name: "own file, record lost", keepOld: "old", want: ErrNotOurs, setup: func(t *testing.T, dir string) (string, []string) {
			p := filepath.Join(dir, "a.md")
			mustWrite(t, p, "old", Options{})
			os.Remove(filepath.Join(dir, Record))
			return p, nil
		}},
		{name: "an input", keepOld: "input", want: ErrInput, force: ErrInput, setup: func(t *testing.T, dir string) (string, []string) {
			p := filepath.Join(dir, "output-x.json")
			mustWrite(t, p, "input", Options{})
			return p, []string{p}
		}},
		{name: "an input by another name", keepOld: "input", want: ErrInput, force: ErrInput, setup: func(t *testing.T, dir string) (string, []string) {
			p := filepath.Join(dir, "output-x.json")
			mustWrite(t, p, "input", Options{})
			os.Symlink("output-x.json", filepath.Join(dir, "link.json"))
			return p, []string{filepath.Join(dir, "link.json")}
		}},
		{name: "read-only", keepOld: "old", want: ErrReadOnly, force: ErrReadOnly, setup: func(t *testing.T, dir string) (string, []string) {
			p := filepath.Join(dir, "a.md")
			mustWrite(t, p, "old", Options{})
			os.Chmod(p, 0o444)
			return p, nil
		}},
		{name: "a folder", want: ErrNotFile, force: ErrNotFile, setup: func(t *testing.T, dir string) (string, []string) {
			p := filepath.Join(dir, "a.md")
			os.Mkdir(p, 0o755)
			return p, nil
		}},
	}
	for _, c := range cases {
		for _, force := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/force=%v", c.name, force), func(t *testing.T) {
				dir := t.TempDir()
				path, inputs := c.setup(t, dir)
				want := c.want
				if force {
					want = c.force
				}
				opt := Options{Force: force, Inputs: inputs}
				cerr := Check(path, opt)
				err := Write(path, []byte("new"), opt)
				if !errors.Is(err, want) || !errors.Is(cerr, want) {
					t.Fatalf("Write: %v, Check: %v; want %v", err, cerr, want)
				}
				if want != nil {
					if !strings.HasPrefix(err.Error(), path+" ") {
						t.Errorf("error %q does not start with the path", err)
					}
					if c.keepOld != "" && read(t, path) != c.keepOld {
						t.Errorf("file changed to %q", read(t, path))
					}
					return
				}
				if got := read(t, path); got != "new" {
					t.Fatalf("file holds %q", got)
				}
				// What was just written may be written again.
				if err := Write(path, []byte("newer"), Options{}); err != nil {
					t.Fatalf("rewriting own file: %v", err)
				}
			})
		}
	}
}

func mustWrite(t *testing.T, path, data string, opt Options) {
	t.Helper()
	if err := Write(path, []byte(data), opt); err != nil {
		t.Fatal(err)
	}
}

// TestSymlinkFollowed: the link's target is replaced and the link stays,
// for a link to a file evalmd wrote and a dangling relative link.
func TestSymlinkFollowed(t *testing.T) {
	dir := t.TempDir()
	sub := filepath.Join(dir, "real")
	os.Mkdir(sub, 0o755)
	target := filepath.Join(sub, "report.md")
	mustWrite(t, target, "old", Options{})
	link := filepath.Join(dir, "report.md")
	if err := os.Symlink("real/report.md", link); err != nil {
		t.Fatal(err)
	}
	mustWrite(t, link, "new", Options{})
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("link replaced: %v %v", fi, err)
	}
	if got := read(t, target); got != "new" {
		t.Errorf("target holds %q", got)
	}
	if _, err := os.Stat(filepath.Join(dir, Record)); err == nil {
		t.Error("recorded in the link's folder, not the target's")
	}

	dangling := filepath.Join(dir, "later.md")
	os.Symlink("real/later.md", dangling)
	mustWrite(t, dangling, "made", Options{})
	if got := read(t, filepath.Join(sub, "later.md")); got != "made" {
		t.Errorf("dangling link's target holds %q", got)
	}
}

// TestFailedWriteKeepsOld: a write that fails leaves the old file and no
// temporary file.
func TestFailedWriteKeepsOld(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "a.md")
	mustWrite(t, p, "old", Options{})
	err := WriteFunc(p, Options{}, func(w io.Writer) error {
		w.Write([]byte("half"))
		return errors.New("disk full")
	})
	if err == nil || !strings.Contains(err.Error(), "disk full") {
		t.Fatalf("err = %v", err)
	}
	if got := read(t, p); got != "old" {
		t.Errorf("file holds %q", got)
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != 2 {
		t.Errorf("folder holds %d entries, want the file and the record", len(ents))
	}
}

// TestRecordIsSha256sum: `sha256sum -c` accepts the record, names with a
// newline included.
func TestRecordIsSha256sum(t *testing.T) {
	if _, err := exec.LookPath("sha256sum"); err != nil {
		t.Skip("no sha256sum")
	}
	dir := t.TempDir()
	for _, n := range []string{"a.md", "with space.json", "new\nline.txt", `back\slash.txt`} {
		mustWrite(t, filepath.Join(dir, n), "x"+n, Options{})
	}
	cmd := exec.Command("sha256sum", "-c", "--strict", Record)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("sha256sum -c: %v\n%s", err, out)
	}
	recs, _ := readRecord(dir)
	if len(recs) != 4 {
		t.Errorf("record holds %d names: %q", len(recs), recs)
	}
}

// TestConcurrentWriters: files written at once into one folder are all
// recorded, so each can be rewritten without --force.
func TestConcurrentWriters(t *testing.T) {
	dir := t.TempDir()
	var wg sync.WaitGroup
	for i := range 16 {
		wg.Go(func() {
			if err := Write(filepath.Join(dir, fmt.Sprintf("f%d", i)), []byte{byte(i)}, Options{}); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	for i := range 16 {
		if err := Check(filepath.Join(dir, fmt.Sprintf("f%d", i)), Options{}); err != nil {
			t.Error(err)
		}
	}
}

// TestRecordCompacts: a record past its size limit drops superseded lines
// and files that are gone, and still knows the rest.
func TestRecordCompacts(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "a")
	mustWrite(t, p, "a", Options{})
	mustWrite(t, filepath.Join(dir, "gone"), "x", Options{})
	os.Remove(filepath.Join(dir, "gone"))
	// Pad the record past the limit with lines of a file that is gone.
	old := formatLine(strings.Repeat("0", 64), "old")
	pad := strings.Repeat(old, compactAbove/len(old)+1)
	f, err := os.OpenFile(filepath.Join(dir, Record), os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(pad)
	f.Close()
	mustWrite(t, filepath.Join(dir, "b"), "b", Options{})
	fi, err := os.Stat(filepath.Join(dir, Record))
	if err != nil || fi.Size() > 1000 {
		t.Fatalf("record not compacted: %v %v", fi.Size(), err)
	}
	recs, _ := readRecord(dir)
	if _, ok := recs["gone"]; ok || len(recs) != 2 {
		t.Error("a file that is gone is still recorded")
	}
	for _, n := range []string{"a", "b"} {
		if err := Check(filepath.Join(dir, n), Options{}); err != nil {
			t.Error(err)
		}
	}
}

// TestKilledBeforeRename: a process killed after recording a file's new
// sum but before renaming it into place leaves the old content, which a
// rerun may still replace; a person's edit is still refused. Compaction
// keeps both sums.
func TestKilledBeforeRename(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "out.json")
	mustWrite(t, p, "old", Options{})
	h := sha256.Sum256([]byte("new"))
	if err := record(dir, "out.json", hex.EncodeToString(h[:])); err != nil {
		t.Fatal(err)
	}
	if err := Check(p, Options{}); err != nil {
		t.Errorf("old content after a kill before the rename: %v", err)
	}
	// Compacting keeps the old content's sum beside the last one.
	old := formatLine(strings.Repeat("0", 64), "gone")
	f, err := os.OpenFile(filepath.Join(dir, Record), os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(strings.Repeat(old, compactAbove/len(old)+1))
	f.Close()
	mustWrite(t, filepath.Join(dir, "other"), "x", Options{})
	if fi, err := os.Stat(filepath.Join(dir, Record)); err != nil || fi.Size() > 1000 {
		t.Fatalf("record not compacted: %v", err)
	}
	if err := Check(p, Options{}); err != nil {
		t.Errorf("old content after compaction: %v", err)
	}
	mustWrite(t, p, "new", Options{})
	if err := os.WriteFile(p, []byte("a person's edit"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := Check(p, Options{}); !errors.Is(err, ErrEdited) {
		t.Errorf("an edited file: %v, want ErrEdited", err)
	}
}
