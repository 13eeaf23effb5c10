package outfile

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
)

// A set is written as one: when one file of it may not be written, or
// its content fails midway, none is replaced and no temporary file stays.
func TestWriteFilesAsOne(t *testing.T) {
	failing := func(w io.Writer) error {
		io.WriteString(w, "half")
		return errors.New("no space left on device")
	}
	for _, tc := range []struct {
		name  string
		setup func(dir string) // before the write
		md    func(io.Writer) error
		want  string
	}{
		{name: "written", want: ""},
		{name: "the .md fails midway", md: failing, want: "no space left"},
		{name: "the .md is the user's", setup: func(dir string) { os.WriteFile(filepath.Join(dir, "out.md"), []byte("mine"), 0o644) }, want: "not written by evalmd"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			j, m := filepath.Join(dir, "out.json"), filepath.Join(dir, "out.md")
			mustWrite(t, j, "old json", Options{})
			if tc.setup != nil {
				tc.setup(dir)
			} else {
				mustWrite(t, m, "old md", Options{})
			}
			before := map[string]string{j: read(t, j), m: read(t, m)}
			md := Bytes(m, []byte("new md"), Options{})
			if tc.md != nil {
				md.Write = tc.md
			}
			err := WriteFiles(Bytes(j, []byte("new json"), Options{}), md)
			if tc.want == "" {
				if err != nil || read(t, j) != "new json" || read(t, m) != "new md" {
					t.Fatalf("%v: %q, %q", err, read(t, j), read(t, m))
				}
				sha256sumCheck(t, dir)
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err %v, want %q", err, tc.want)
			}
			for p, old := range before {
				if got := read(t, p); got != old {
					t.Errorf("%s now holds %q, want %q: half of the set was written", p, got, old)
				}
			}
			ents, _ := os.ReadDir(dir)
			if len(ents) != 3 {
				t.Errorf("folder holds %d entries, want the two files and the record", len(ents))
			}
		})
	}
}

// Two writers of one pair at once, each expecting it as it was (one of
// them writing back what was there, as a regrade that changed nothing
// does): whatever the order, the pair ends as one writer's both files,
// never one's JSON and the other's .md, and the refused writer changes
// nothing.
func TestWriteFilesRace(t *testing.T) {
	dir := t.TempDir()
	j, m := filepath.Join(dir, "out.json"), filepath.Join(dir, "out.md")
	for round := range 50 {
		pair := func(tag string, opt func(string) Options) error {
			return WriteFiles(Bytes(j, []byte(tag), opt(j)), Bytes(m, []byte(tag+" md"), opt(m)))
		}
		if err := pair("base", func(string) Options { return Options{Force: true} }); err != nil {
			t.Fatal(err)
		}
		found := map[string]string{}
		for _, p := range []string{j, m} {
			s, err := State(p)
			if err != nil {
				t.Fatal(err)
			}
			found[p] = s
		}
		expect := func(p string) Options { return Options{Expect: found[p]} }
		var wg sync.WaitGroup
		errs := make([]error, 2)
		for i, tag := range []string{"base", fmt.Sprintf("run %d", round)} {
			wg.Go(func() { errs[i] = pair(tag, expect) })
		}
		wg.Wait()
		gotJ, gotM := read(t, j), read(t, m)
		if gotM != gotJ+" md" {
			t.Fatalf("round %d: the pair disagrees: %q and %q (errors %v)", round, gotJ, gotM, errs)
		}
		for _, err := range errs {
			if err != nil && !errors.Is(err, ErrChanged) {
				t.Fatalf("round %d: %v", round, err)
			}
		}
	}
}

// Open (a journal) creates a file or opens one of its own, never a
// FIFO (refused, not waited on) nor a file with other hard links.
func TestOpen(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "new.journal")
	f, err := Open(p)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("line\n")
	f.Close()
	if f, err = Open(p); err != nil {
		t.Fatalf("reopening: %v", err)
	}
	f.Close()
	victim := filepath.Join(dir, "victim")
	os.WriteFile(victim, []byte("mine"), 0o644)
	for _, tc := range []struct {
		name string
		make func(p string) error
		want error
	}{
		{"hard link", func(p string) error { return os.Link(victim, p) }, ErrHardLink},
		{"fifo", mkfifo, ErrNotFile},
	} {
		p := filepath.Join(dir, tc.name+".journal")
		if err := tc.make(p); err != nil {
			t.Logf("%s: %v", tc.name, err)
			continue
		}
		if _, err := Open(p); !errors.Is(err, tc.want) || !strings.HasPrefix(err.Error(), p+" ") {
			t.Errorf("%s: %v, want %v naming it", tc.name, err, tc.want)
		}
	}
	if got := read(t, victim); got != "mine" {
		t.Errorf("the victim holds %q", got)
	}
}

// MkdirAll makes missing folders, uses a link to a folder, and refuses a
// dangling link in the way naming it, creating nothing at its target.
func TestMkdirAll(t *testing.T) {
	dir := t.TempDir()
	elsewhere := t.TempDir()
	if err := MkdirAll(filepath.Join(dir, "a", "b"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(elsewhere, "gone"), filepath.Join(dir, "dangling")); err != nil {
		t.Skip("no symbolic links here:", err)
	}
	os.Symlink(filepath.Join(dir, "a"), filepath.Join(dir, "to-a"))
	if err := MkdirAll(filepath.Join(dir, "to-a", "c"), 0o755); err != nil {
		t.Errorf("below a link to a folder: %v", err)
	}
	for _, p := range []string{filepath.Join(dir, "dangling"), filepath.Join(dir, "dangling", "x", "y")} {
		err := MkdirAll(p, 0o755)
		if !errors.Is(err, ErrLink) || !strings.Contains(err.Error(), filepath.Join(dir, "dangling")) {
			t.Errorf("MkdirAll(%s): %v, want ErrLink naming the link", p, err)
		}
	}
	if _, err := os.Lstat(filepath.Join(elsewhere, "gone")); err == nil {
		t.Error("a folder was made at the dangling link's target")
	}
}

// Made is told each file's sum once every file of the set is made and
// synced, before any is replaced; its error replaces none.
func TestMadeBeforeReplace(t *testing.T) {
	for _, fail := range []bool{false, true} {
		t.Run(fmt.Sprint("fail ", fail), func(t *testing.T) {
			dir := t.TempDir()
			j, m := filepath.Join(dir, "out.json"), filepath.Join(dir, "out.md")
			mustWrite(t, j, "old json", Options{})
			mustWrite(t, m, "old md", Options{})
			var told []string
			made := func(sum string) error {
				// Nothing is replaced yet, the other file included.
				if read(t, j) != "old json" || read(t, m) != "old md" {
					t.Errorf("a file was replaced before Made was told")
				}
				told = append(told, sum)
				if fail {
					return errors.New("the run's state cannot be saved")
				}
				return nil
			}
			err := WriteFiles(File{Path: j, Write: Bytes(j, []byte("new json"), Options{}).Write, Made: made}, File{Path: m, Write: Bytes(m, []byte("new md"), Options{}).Write, Made: made})
			if want := []string{Sum([]byte("new json")), Sum([]byte("new md"))}; !slices.Equal(told, want[:len(told)]) || len(told) == 0 {
				t.Errorf("Made told %q, want the sums of the new contents %q", told, want)
			}
			switch {
			case fail && (err == nil || !strings.Contains(err.Error(), "cannot be saved")):
				t.Errorf("err %v, want Made's", err)
			case fail && (read(t, j) != "old json" || read(t, m) != "old md"):
				t.Errorf("Made failed and a file was replaced")
			case !fail && (err != nil || read(t, j) != "new json" || read(t, m) != "new md"):
				t.Errorf("err %v, files %q %q", err, read(t, j), read(t, m))
			}
			if temps, _ := filepath.Glob(filepath.Join(dir, ".out*")); len(temps) > 0 {
				t.Errorf("temporary files left: %v", temps)
			}
		})
	}
}

// A scratch file is beside its target, readable and writable, gone from
// the folder at once where the system allows, and gone everywhere once
// done.
func TestScratch(t *testing.T) {
	dir := t.TempDir()
	f, done, err := Scratch(filepath.Join(dir, "out.json"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString("answers"); err != nil {
		t.Fatal(err)
	}
	got := make([]byte, 7)
	if _, err := f.ReadAt(got, 0); err != nil || string(got) != "answers" {
		t.Fatalf("read back %q, %v", got, err)
	}
	names := func() []string {
		ents, _ := os.ReadDir(dir)
		var out []string
		for _, e := range ents {
			out = append(out, e.Name())
		}
		return out
	}
	if n := names(); runtime.GOOS != "windows" && len(n) > 0 {
		t.Errorf("the folder holds %v while the scratch file is open", n)
	}
	if err := done(); err != nil {
		t.Fatal(err)
	}
	if n := names(); len(n) > 0 {
		t.Errorf("the folder holds %v once done", n)
	}
}
