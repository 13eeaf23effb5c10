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

// TestLinkRefused: a path that is a symbolic link is never written
// through, whether its target exists (a file evalmd wrote, a victim's
// file) or not (a cron file to be), with or without Force, by any way of
// writing: Check, Write, WriteFiles, State, Open (a journal), MkdirAll
// (a folder). Each refuses in one line naming the link and where it
// leads, and nothing is created or changed at the target.
func TestLinkRefused(t *testing.T) {
	for _, kind := range []string{"to a file evalmd wrote", "to a victim's file", "dangling", "dangling, relative"} {
		t.Run(kind, func(t *testing.T) {
			dir := t.TempDir()
			elsewhere := t.TempDir()
			target := filepath.Join(elsewhere, "evil")
			switch kind {
			case "to a file evalmd wrote":
				mustWrite(t, target, "old", Options{})
			case "to a victim's file":
				os.WriteFile(target, []byte("old"), 0o644)
			}
			dest := target
			if kind == "dangling, relative" {
				dest, _ = filepath.Rel(dir, target)
			}
			link := filepath.Join(dir, "output-evil-m-1234.md")
			if err := os.Symlink(dest, link); err != nil {
				t.Skip("no symbolic links here:", err)
			}
			want := func(what string, err error) {
				t.Helper()
				if !errors.Is(err, ErrLink) || !strings.HasPrefix(err.Error(), link+" ") || !strings.Contains(err.Error(), dest) || strings.Contains(err.Error(), "\n") {
					t.Errorf("%s: %v; want one line naming %s and %s (ErrLink)", what, err, link, dest)
				}
			}
			for _, force := range []bool{false, true} {
				opt := Options{Force: force}
				want("Check", Check(link, opt))
				want("Write", Write(link, []byte("* * * * * root evil\n"), opt))
				want("WriteFiles", WriteFiles(Bytes(filepath.Join(dir, "other.json"), []byte("x"), opt), Bytes(link, []byte("x"), opt)))
			}
			_, err := State(link)
			want("State", err)
			_, err = Open(link)
			want("Open", err)
			want("MkdirAll", MkdirAll(filepath.Join(link, "sub"), 0o755))
			if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
				t.Errorf("the link was replaced: %v %v", fi, err)
			}
			got, err := os.ReadFile(target)
			switch {
			case strings.HasPrefix(kind, "dangling") && err == nil:
				t.Errorf("the link's target was created, holding %q", got)
			case !strings.HasPrefix(kind, "dangling") && string(got) != "old":
				t.Errorf("the link's target now holds %q", got)
			}
			if _, err := os.Lstat(filepath.Join(dir, "other.json")); err == nil {
				t.Error("the other file of the refused set was written")
			}
		})
	}
}

// A rename over a symbolic link replaces the link itself and leaves its
// target alone, dangling or not: so a link swapped in after the checks,
// before the rename, gets nothing written through it. ReplaceFile, like
// Write, refuses a link that is there before.
func TestRenameReplacesLink(t *testing.T) {
	dir := t.TempDir()
	victim := filepath.Join(t.TempDir(), "victim")
	os.WriteFile(victim, []byte("mine"), 0o644)
	for name, dest := range map[string]string{"to-file": victim, "dangling": victim + "-new"} {
		link := filepath.Join(dir, name)
		pf, err := newPending(link)
		if err != nil {
			t.Fatal(err)
		}
		pf.f.WriteString("new")
		if err := os.Symlink(dest, link); err != nil { // swapped in after the checks
			t.Skip("no symbolic links here:", err)
		}
		if err := pf.replace(); err != nil {
			t.Fatal(err)
		}
		if fi, err := os.Lstat(link); err != nil || !fi.Mode().IsRegular() || read(t, link) != "new" {
			t.Errorf("%s: %v, %v: want a regular file holding the new content", name, fi, err)
		}
		os.Remove(link)
		os.Symlink(dest, link)
		if err := ReplaceFile(link, []byte("new")); !errors.Is(err, ErrLink) {
			t.Errorf("ReplaceFile over a link: %v, want ErrLink", err)
		}
	}
	if got := read(t, victim); got != "mine" {
		t.Errorf("the victim now holds %q", got)
	}
	if _, err := os.Lstat(victim + "-new"); err == nil {
		t.Error("the dangling link's target was created")
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

// sha256sumCheck runs the real `sha256sum -c --strict` on dir's record.
func sha256sumCheck(t *testing.T, dir string) {
	t.Helper()
	if _, err := exec.LookPath("sha256sum"); err != nil {
		t.Skip("no sha256sum")
	}
	cmd := exec.Command("sha256sum", "-c", "--strict", Record)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("sha256sum -c: %v\n%s\nrecord:\n%s", err, out, read(t, filepath.Join(dir, Record)))
	}
}

// TestRecordStaysTrue: the record holds one line per file evalmd wrote,
// replaced when the file is rewritten and dropped when it is gone
// (removed with Remove, or by hand before the folder's next write), so
// `sha256sum -c` passes after every step.
func TestRecordStaysTrue(t *testing.T) {
	dir := t.TempDir()
	p := func(n string) string { return filepath.Join(dir, n) }
	mustWrite(t, p("a"), "1", Options{})
	mustWrite(t, p("a"), "2", Options{})
	mustWrite(t, p(".state"), "s", Options{Force: true})
	mustWrite(t, p("b"), "b", Options{})
	sha256sumCheck(t, dir)
	if err := Remove(p(".state")); err != nil {
		t.Fatal(err)
	}
	sha256sumCheck(t, dir)
	mustWrite(t, p("c"), "c", Options{})
	os.Remove(p("c"))
	mustWrite(t, p("d"), "d", Options{})
	sha256sumCheck(t, dir)
	recs, err := readRecord(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range recs {
		names = append(names, e.name)
	}
	if got := strings.Join(names, " "); got != "a b d" {
		t.Errorf("record names %q, want one line each for a b d", got)
	}
	for _, n := range []string{"a", "b", "d"} {
		if err := Check(p(n), Options{}); err != nil {
			t.Error(err)
		}
	}
}

// TestRecordIgnoresStrangers: a line naming no regular file of the folder
// (a crafted "../../dev/zero" listed twice, which would be hashed forever)
// is dropped, not read.
func TestRecordIgnoresStrangers(t *testing.T) {
	dir := t.TempDir()
	zero := strings.Repeat("0", 64)
	os.WriteFile(filepath.Join(dir, Record), []byte(formatLine(zero, "../../../../dev/zero")+formatLine(strings.Repeat("1", 64), "../../../../dev/zero")), 0o644)
	mustWrite(t, filepath.Join(dir, "a"), "a", Options{})
	if got := read(t, filepath.Join(dir, Record)); strings.Contains(got, "dev/zero") {
		t.Errorf("record keeps a stranger: %q", got)
	}
}

// TestUnsafeRecordRefused: a record that is a symbolic link (to a victim's
// ~/.bashrc, or dangling), a hard link or a FIFO is never written
// through: every write in its folder is refused, with or without --force,
// before any work (Check), in one line naming the record, and the victim
// is unchanged.
func TestUnsafeRecordRefused(t *testing.T) {
	for _, kind := range []string{"symlink", "dangling symlink", "hard link", "fifo"} {
		t.Run(kind, func(t *testing.T) {
			dir := t.TempDir()
			victim := filepath.Join(t.TempDir(), ".bashrc")
			os.WriteFile(victim, []byte("# mine\n"), 0o644)
			rec := filepath.Join(dir, Record)
			var err error
			switch kind {
			case "symlink":
				err = os.Symlink(victim, rec)
			case "dangling symlink":
				err = os.Symlink(filepath.Join(filepath.Dir(victim), "new"), rec)
			case "hard link":
				err = os.Link(victim, rec)
			case "fifo":
				err = mkfifo(rec)
			}
			if err != nil {
				t.Skip(err)
			}
			for _, force := range []bool{false, true} {
				name := filepath.Join(dir, "output-x;echo PWNED;#.md")
				cerr := Check(name, Options{Force: force})
				werr := Write(name, []byte("x"), Options{Force: force})
				for _, err := range []error{cerr, werr} {
					if !errors.Is(err, ErrUnsafeRecord) || !strings.Contains(err.Error(), rec) || strings.Contains(err.Error(), "\n") {
						t.Errorf("force %v: %v, want one line naming %s (ErrUnsafeRecord)", force, err, rec)
					}
				}
				if _, err := os.Stat(name); err == nil {
					t.Error("the file was written")
				}
			}
			if got := read(t, victim); got != "# mine\n" {
				t.Errorf("the victim now holds %q", got)
			}
			if _, err := os.Lstat(filepath.Join(filepath.Dir(victim), "new")); err == nil {
				t.Error("a file was created through the dangling link")
			}
		})
	}
}

// TestHostileNamesStayNames: a file name an attacker chose (shell syntax,
// a newline, backslashes, a leading star or space) is written into the
// record as one line that sha256sum and evalmd read back as that name and
// nothing else.
func TestHostileNamesStayNames(t *testing.T) {
	dir := t.TempDir()
	names := []string{"output-x;echo PWNED;#.md", "$(touch pwned)`id`.json", "a\necho PWNED\n.md", `back\slash\n.md`,
		" lead", "*star", "cr\rx", "\\"}
	for _, n := range names {
		mustWrite(t, filepath.Join(dir, n), n, Options{})
	}
	sha256sumCheck(t, dir)
	recs, err := readRecord(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != len(names) {
		t.Fatalf("record holds %d lines, want %d", len(recs), len(names))
	}
	for i, e := range recs {
		if e.name != names[i] {
			t.Errorf("line %d reads back %q, want %q", i+1, e.name, names[i])
		}
	}
	if got := strings.Count(read(t, filepath.Join(dir, Record)), "\n"); got != len(names) {
		t.Errorf("record has %d lines, want %d", got, len(names))
	}
	if _, err := os.Stat(filepath.Join(dir, "pwned")); err == nil {
		t.Error("pwned")
	}
}

// TestKilledBeforeRename: a process killed after recording a file's new
// sum but before renaming it into place leaves the old content, which a
// rerun may still replace; a person's edit is still refused. Another
// write in the folder keeps the old content's sum and drops the other.
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
	mustWrite(t, filepath.Join(dir, "other"), "x", Options{})
	sha256sumCheck(t, dir)
	if err := Check(p, Options{}); err != nil {
		t.Errorf("old content after the next write: %v", err)
	}
	mustWrite(t, p, "new", Options{})
	if err := os.WriteFile(p, []byte("a person's edit"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := Check(p, Options{}); !errors.Is(err, ErrEdited) {
		t.Errorf("an edited file: %v, want ErrEdited", err)
	}
}

// Options.Source lets a write replace a file of the user's that holds
// exactly the content the new one was made from, and nothing else.
func TestSourceReplaces(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "sheet.md")
	orig := []byte("# mine\n")
	if err := os.WriteFile(p, orig, 0o644); err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(orig)
	other := sha256.Sum256([]byte("# something else\n"))
	if err := Write(p, []byte("new"), Options{Source: hex.EncodeToString(other[:])}); !errors.Is(err, ErrNotOurs) {
		t.Errorf("another source: %v, want %v", err, ErrNotOurs)
	}
	if err := Write(p, []byte("new"), Options{Source: hex.EncodeToString(sum[:])}); err != nil {
		t.Errorf("its own source: %v", err)
	}
	if got, _ := os.ReadFile(p); string(got) != "new" {
		t.Errorf("content %q", got)
	}
}

// Options.Expect: a file is replaced only while it holds what the command
// read from it (or is still missing), even with Force; a file another
// process wrote meanwhile, even while the new content was being made, is
// left as that process wrote it.
func TestExpect(t *testing.T) {
	for _, tc := range []struct {
		name    string
		initial string // "" for no file
		expect  func(initial string) string
		during  func(t *testing.T, p string) // while the new content is made
		force   bool
		ok      bool
	}{
		{name: "unchanged", initial: "old", expect: sumOf, ok: true},
		{name: "unchanged, forced", initial: "old", expect: sumOf, force: true, ok: true},
		{name: "still absent", expect: func(string) string { return Absent }, ok: true},
		{name: "replaced meanwhile", initial: "old", expect: sumOf, during: writeNew, force: true},
		{name: "created meanwhile", expect: func(string) string { return Absent }, during: writeNew, force: true},
		{name: "removed meanwhile", initial: "old", expect: sumOf, during: func(t *testing.T, p string) { os.Remove(p) }, force: true},
		{name: "other content", initial: "old", expect: func(string) string { return Sum([]byte("older")) }, force: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "out.json")
			if tc.initial != "" {
				if err := Write(p, []byte(tc.initial), Options{}); err != nil {
					t.Fatal(err)
				}
			}
			before, err := State(p)
			if err != nil {
				t.Fatal(err)
			}
			if want := tc.expect(tc.initial); tc.initial != "" && want == Sum([]byte(tc.initial)) && before != want {
				t.Fatalf("State %s, want the content's sum %s", before, want)
			}
			err = WriteFunc(p, Options{Force: tc.force, Expect: tc.expect(tc.initial)}, func(w io.Writer) error {
				if tc.during != nil {
					tc.during(t, p)
				}
				_, err := io.WriteString(w, "mine")
				return err
			})
			got, _ := os.ReadFile(p)
			if tc.ok {
				if err != nil || string(got) != "mine" {
					t.Errorf("err %v, content %q: want it replaced", err, got)
				}
				return
			}
			if !errors.Is(err, ErrChanged) || !strings.HasPrefix(err.Error(), p+" ") || strings.Contains(err.Error(), "\n") {
				t.Errorf("err %v, want one line naming %s: %v", err, p, ErrChanged)
			}
			if string(got) == "mine" {
				t.Errorf("the file was replaced")
			}
		})
	}
}

// sumOf is Sum of a string.
func sumOf(s string) string { return Sum([]byte(s)) }

// writeNew is another process writing the file as evalmd does.
func writeNew(t *testing.T, p string) {
	if err := Write(p, []byte("new"), Options{}); err != nil {
		t.Error(err)
	}
}
