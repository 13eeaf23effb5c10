package outfile

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

func testKey(t *testing.T, b byte) *Key {
	t.Helper()
	k, err := NewKey(bytes.Repeat([]byte{b}, 32))
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// sealed says whether the file at path is sealed under k as it is now.
func sealed(t *testing.T, path string, k *Key) bool {
	t.Helper()
	s, err := ReadSeals(filepath.Dir(path), k)
	if err != nil {
		t.Fatal(err)
	}
	sum, err := State(path)
	if err != nil {
		t.Fatal(err)
	}
	return s.Sealed(filepath.Base(path), sum)
}

// A file written with a key is sealed under it and no other; an edit, a
// rewrite without the key, or a stranger's line in the record of seals
// (a stranger's own key) leaves it unsealed; a move carries the seal,
// a removal drops it, and Seal vouches for a file as it is. The Record
// stays what `sha256sum -c` checks throughout.
func TestSealed(t *testing.T) {
	mine, theirs := testKey(t, 1), testKey(t, 2)
	for _, tc := range []struct {
		name  string
		after func(t *testing.T, path string) string // the file to check then
		want  bool
		// byHand: the folder was changed by hand, its records not true
		byHand bool
	}{
		{"written sealed", func(t *testing.T, path string) string { return path }, true, false},
		{"edited", func(t *testing.T, path string) string { plainWrite(t, path, `{"edited":1}`); return path }, false, true},
		{"rewritten unsealed", func(t *testing.T, path string) string {
			if err := Write(path, []byte("regraded"), Options{}); err != nil {
				t.Fatal(err)
			}
			return path
		}, false, false},
		{"rewritten sealed", func(t *testing.T, path string) string {
			for _, v := range []string{"two", "three"} {
				if err := Write(path, []byte(v), Options{Seal: mine}); err != nil {
					t.Fatal(err)
				}
			}
			return path
		}, true, false},
		{"edited, the stranger's seal added", func(t *testing.T, path string) string {
			plainWrite(t, path, "forged")
			sum, _ := State(path)
			appendLine(t, filepath.Join(filepath.Dir(path), SealRecord), theirs.seal(filepath.Base(path), sum), filepath.Base(path))
			appendLine(t, filepath.Join(filepath.Dir(path), Record), sum, filepath.Base(path))
			return path
		}, false, true},
		{"moved", func(t *testing.T, path string) string {
			dst, err := Move(path, filepath.Join(filepath.Dir(path), "superseded"), Options{})
			if err != nil {
				t.Fatal(err)
			}
			return dst
		}, true, false},
		{"sealed by Seal after an edit", func(t *testing.T, path string) string {
			plainWrite(t, path, "restored from a cache")
			if already, err := Seal(path, mine); err != nil || already {
				t.Fatalf("Seal: %v, already %v", err, already)
			}
			if already, err := Seal(path, mine); err != nil || !already {
				t.Fatalf("Seal again: %v, already %v", err, already)
			}
			return path
		}, true, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "output-a.json")
			if err := Write(path, []byte(`{"answer":1}`), Options{Seal: mine}); err != nil {
				t.Fatal(err)
			}
			if err := Write(filepath.Join(dir, "output-a.md"), []byte("md"), Options{Seal: mine}); err != nil {
				t.Fatal(err)
			}
			got := tc.after(t, path)
			if s := sealed(t, got, mine); s != tc.want {
				t.Errorf("sealed %v, want %v", s, tc.want)
			}
			if sealed(t, got, theirs) && !tc.byHand {
				t.Error("sealed under another machine's key")
			}
			if !sealed(t, filepath.Join(dir, "output-a.md"), mine) {
				t.Error("the file beside it lost its seal")
			}
			for _, d := range []string{dir, filepath.Dir(got)} {
				if tc.byHand {
					break
				}
				checkSums(t, d)
				seals, _ := os.ReadFile(filepath.Join(d, SealRecord))
				if n := strings.Count(string(seals), "output-a.json\n"); n > 1 {
					t.Errorf("%s holds %d seals of output-a.json:\n%s", d, n, seals)
				}
			}
		})
	}
}

// A removed file's seal goes with its Record line.
func TestSealRemoved(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "output-a.json")
	if err := Write(path, []byte("x"), Options{Seal: testKey(t, 1)}); err != nil {
		t.Fatal(err)
	}
	if err := Remove(path); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, SealRecord)); len(b) != 0 {
		t.Errorf("the record of seals still holds %q", b)
	}
}

// A record of seals that is a link is never written through, nor read.
func TestSealRecordLink(t *testing.T) {
	dir := t.TempDir()
	victim := filepath.Join(t.TempDir(), "victim")
	plainWrite(t, victim, "mine\n")
	if err := os.Symlink(victim, filepath.Join(dir, SealRecord)); err != nil {
		t.Fatal(err)
	}
	err := Write(filepath.Join(dir, "output-a.json"), []byte("x"), Options{Seal: testKey(t, 1)})
	if !errors.Is(err, ErrUnsafeRecord) {
		t.Errorf("Write: %v, want %v", err, ErrUnsafeRecord)
	}
	if _, err := ReadSeals(dir, testKey(t, 1)); !errors.Is(err, ErrUnsafeRecord) {
		t.Errorf("ReadSeals: %v, want %v", err, ErrUnsafeRecord)
	}
	if b, _ := os.ReadFile(victim); string(b) != "mine\n" {
		t.Errorf("the victim holds %q", b)
	}
}

// LoadKey makes the key on first need (0600, in a 0700 folder), reads the
// same key after, also when processes make it at once, and through a link
// (a mounted Secret), and refuses a key others may read, one that is not a
// key, and a FIFO.
func TestLoadKey(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "evalmd")
	path := filepath.Join(dir, "seal.key")
	var wg sync.WaitGroup
	keys := make([]*Key, 8)
	errs := make([]error, 8)
	for i := range keys {
		wg.Go(func() { keys[i], errs[i] = LoadKey(path) })
	}
	wg.Wait()
	for i := range keys {
		if errs[i] != nil {
			t.Fatal(errs[i])
		}
		if !bytes.Equal(keys[i].secret, keys[0].secret) {
			t.Fatal("two keys made at once")
		}
	}
	fi, _ := os.Stat(path)
	di, _ := os.Stat(dir)
	if fi.Mode().Perm() != 0o600 || di.Mode().Perm() != 0o700 {
		t.Errorf("key %v in folder %v, want 0600 in 0700", fi.Mode().Perm(), di.Mode().Perm())
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Errorf("the folder holds %d files, want the key alone", len(ents))
	}
	again, err := LoadKey(path)
	if err != nil || !bytes.Equal(again.secret, keys[0].secret) {
		t.Fatalf("the key read again: %v", err)
	}
	data, _ := os.ReadFile(path)
	linked := filepath.Join(t.TempDir(), "seal.key")
	if err := os.Symlink(path, linked); err != nil {
		t.Fatal(err)
	}
	if k, err := LoadKey(linked); err != nil || !bytes.Equal(k.secret, keys[0].secret) {
		t.Errorf("the key through a link: %v", err)
	}
	for _, tc := range []struct {
		name, want string
		prepare    func(p string)
	}{
		{"readable by others", "may be read or written by others", func(p string) { os.WriteFile(p, data, 0o644); os.Chmod(p, 0o644) }},
		{"not a key", "is not a key evalmd made", func(p string) { os.WriteFile(p, []byte("sk-123\n"), 0o600) }},
		{"a link to a key others may read", "may be read or written by others", func(p string) {
			os.WriteFile(p+".real", data, 0o604)
			os.Chmod(p+".real", 0o604)
			os.Symlink(p+".real", p)
		}},
		{"a FIFO", "not a regular file", func(p string) { mkfifo(p) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.name == "a FIFO" && mkfifo(filepath.Join(t.TempDir(), "fifo")) != nil {
				t.Skip("no FIFOs here")
			}
			p := filepath.Join(t.TempDir(), "seal.key")
			tc.prepare(p)
			_, err := LoadKey(p)
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), p) || strings.Contains(err.Error(), strings.TrimSpace(string(data))) {
				t.Errorf("LoadKey: %v, want %q naming the file", err, tc.want)
			}
		})
	}
}

// appendLine adds a line to a record as a stranger would, by hand.
func appendLine(t *testing.T, path, sum, name string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(sum + "  " + name + "\n"); err != nil {
		t.Fatal(err)
	}
}

// checkSums runs sha256sum -c on dir's record, when there is sha256sum.
func checkSums(t *testing.T, dir string) {
	t.Helper()
	if _, err := exec.LookPath("sha256sum"); err != nil {
		return
	}
	if _, err := os.Stat(filepath.Join(dir, Record)); errors.Is(err, fs.ErrNotExist) {
		return
	}
	cmd := exec.Command("sha256sum", "-c", "--strict", "--quiet", Record)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Errorf("sha256sum -c %s: %v\n%s", filepath.Join(dir, Record), err, out)
	}
}
