package golden

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// check passes on an equal file, and otherwise fails naming the file, the
// first differing line and go test -update.
func TestCheck(t *testing.T) {
	path := filepath.Join(t.TempDir(), "testdata", "page.txt")
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte("one\ntwo\nthree\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, got string
		says      []string // what the error says; nil: no error
	}{
		{"equal", "one\ntwo\nthree\n", nil},
		{"changed line", "one\ntwo\nTHREE\n", []string{path, "line 3, column 1", `file "three\n"`, `test "THREE\n"`, "go test -update rewrites it"}},
		{"added line", "one\ntwo\nthree\nfour\n", []string{"line 4", "file (end of file)", `test "four\n"`, "(the file has 3 lines, the test's output 4)"}},
		{"lost line", "one\ntwo\n", []string{"line 3", `file "three\n"`, "test (end of file)"}},
		{"lost newline", "one\ntwo\nthree", []string{"line 3, column 6", `test "three"`}},
		{"trailing space", "one \ntwo\nthree\n", []string{"line 1, column 4", `test "one \n"`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := check(path, []byte(tc.got), false)
			if tc.says == nil {
				if err != nil {
					t.Fatalf("unexpected error: %v", err)
				}
				return
			}
			if err == nil {
				t.Fatal("no error")
			}
			for _, s := range tc.says {
				if !strings.Contains(err.Error(), s) {
					t.Errorf("error does not say %q:\n%v", s, err)
				}
			}
		})
	}
}

// A missing golden file is an error that says how to write it.
func TestCheckMissing(t *testing.T) {
	path := filepath.Join(t.TempDir(), "none.txt")
	err := check(path, []byte("x\n"), false)
	if err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "go test -update writes it") {
		t.Fatalf("error %v, want one naming %s and go test -update", err, path)
	}
}

// Under update, check writes the file (and its folder), whatever was there,
// and the next check without update passes.
func TestCheckUpdate(t *testing.T) {
	path := filepath.Join(t.TempDir(), "testdata", "new.txt")
	for _, got := range []string{"first\n", "second\nversion"} {
		if err := check(path, []byte(got), true); err != nil {
			t.Fatal(err)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if string(data) != got {
			t.Fatalf("wrote %q, want %q", data, got)
		}
		if err := check(path, []byte(got), false); err != nil {
			t.Fatalf("check after update: %v", err)
		}
	}
}

// A long line is shown around its first difference, not whole.
func TestDiffLongLine(t *testing.T) {
	want := strings.Repeat("a", 500) + "b" + strings.Repeat("c", 500) + "\n"
	got := strings.Repeat("a", 500) + "X" + strings.Repeat("c", 500) + "\n"
	d := diff([]byte(want), []byte(got))
	if !strings.Contains(d, "line 1, column 501") {
		t.Errorf("diff does not place the difference at line 1, column 501:\n%s", d)
	}
	if !strings.Contains(d, `aaaaX`) || !strings.Contains(d, `…`) {
		t.Errorf("diff does not show an excerpt around the difference:\n%s", d)
	}
	if len(d) > 400 {
		t.Errorf("diff is %d bytes, want an excerpt:\n%s", len(d), d)
	}
	if d := diff([]byte(want), []byte(want)); d != "" {
		t.Errorf("diff of equal texts = %q, want empty", d)
	}
}
