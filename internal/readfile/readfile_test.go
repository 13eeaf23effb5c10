package readfile

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestRead(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "f")
	os.WriteFile(p, []byte("0123456789"), 0o644)
	fifo := filepath.Join(dir, "fifo")
	if err := mkfifo(fifo); err != nil {
		fifo = "" // no FIFOs here
	}
	for _, tc := range []struct {
		path  string
		limit int64
		want  error
	}{
		{p, 10, nil},
		{p, 100, nil},
		{p, 9, ErrTooLarge},
		{"/dev/zero", 1 << 20, ErrNotRegular}, // endless, no size
		{dir, 1 << 20, ErrNotRegular},
		{fifo, 1 << 20, ErrNotRegular}, // no writer: the open would wait forever
		{filepath.Join(dir, "missing"), 10, os.ErrNotExist},
	} {
		if tc.path == "" {
			continue
		}
		// Read and ReadString read alike.
		for _, read := range []func(string, int64) (string, error){
			func(p string, n int64) (string, error) { b, err := Read(p, n); return string(b), err },
			ReadString,
		} {
			done := make(chan struct{})
			var data string
			var err error
			go func() {
				defer close(done)
				data, err = read(tc.path, tc.limit)
			}()
			select {
			case <-done:
			case <-time.After(5 * time.Second):
				t.Fatalf("Read(%s) still waiting after 5s", tc.path)
			}
			if !errors.Is(err, tc.want) {
				t.Errorf("Read(%s, %d): %v, want %v", tc.path, tc.limit, err, tc.want)
				continue
			}
			if err != nil && (!strings.Contains(err.Error(), tc.path) || strings.Contains(err.Error(), "\n")) {
				t.Errorf("error %q is not one line naming the file", err)
			}
			if err == nil && data != "0123456789" {
				t.Errorf("read %q", data)
			}
		}
	}
}

// Below follows links that stay in the folder and refuses those that
// leave it, naming where they lead.
func TestBelow(t *testing.T) {
	root := filepath.Join(t.TempDir(), "data")
	outside := filepath.Join(filepath.Dir(root), "secret.csv")
	os.MkdirAll(filepath.Join(root, "sub"), 0o755)
	os.WriteFile(outside, []byte("s"), 0o644)
	os.WriteFile(filepath.Join(root, "t.csv"), []byte("t"), 0o644)
	for name, target := range map[string]string{"in.csv": "t.csv", "sub/up.csv": "../t.csv", "out.csv": outside, "rel-out.csv": "../secret.csv"} {
		if err := os.Symlink(target, filepath.Join(root, name)); err != nil {
			t.Skip("no symbolic links here:", err)
		}
	}
	for _, tc := range []struct {
		name, want string // want: "" when refused
	}{
		{"t.csv", "t.csv"},
		{"in.csv", "t.csv"},
		{"sub/up.csv", "t.csv"},
		{"out.csv", ""},
		{"rel-out.csv", ""},
		{"sub/../../secret.csv", ""},
	} {
		path := filepath.Join(root, tc.name)
		got, err := Below(path, root)
		if tc.want == "" {
			if !errors.Is(err, ErrOutside) || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), outside) {
				t.Errorf("Below(%s): %q, %v; want an error naming it and %s", tc.name, got, err, outside)
			}
			continue
		}
		if err != nil || filepath.Base(got) != tc.want {
			t.Errorf("Below(%s): %q, %v; want %s", tc.name, got, err, tc.want)
		}
	}
}

// Inside accepts a regular file below its folder, through links that stay
// in it, and refuses in one line a link leading out (naming both), a FIFO
// (without waiting on it) and a link to a device, naming the link and
// what it leads to.
func TestInside(t *testing.T) {
	root := filepath.Join(t.TempDir(), "data")
	outside := filepath.Join(filepath.Dir(root), "secret")
	os.MkdirAll(root, 0o755)
	os.WriteFile(outside, []byte("s"), 0o644)
	os.WriteFile(filepath.Join(root, "t.txt"), []byte("t"), 0o644)
	fifo := filepath.Join(root, "fifo")
	if err := mkfifo(fifo); err != nil {
		fifo = ""
	}
	for name, target := range map[string]string{"in.txt": "t.txt", "out.txt": outside, "null": "/dev/null", "to-fifo": "fifo"} {
		if err := os.Symlink(target, filepath.Join(root, name)); err != nil {
			t.Skip("no symbolic links here:", err)
		}
	}
	for _, tc := range []struct {
		name string
		want error
		says []string // what the error names besides the path
	}{
		{"t.txt", nil, nil},
		{"in.txt", nil, nil},
		{"out.txt", ErrOutside, []string{" leads to " + outside}},
		{"null", ErrOutside, []string{" leads to /dev/null"}},
		{"fifo", ErrNotRegular, []string{"a FIFO"}},
		{"to-fifo", ErrNotRegular, []string{" leads to " + fifo, "a FIFO"}},
		{"missing", os.ErrNotExist, nil},
	} {
		if fifo == "" && strings.Contains(tc.name, "fifo") {
			continue
		}
		path := filepath.Join(root, tc.name)
		data, err := ReadInside(path, root, 10)
		if !errors.Is(err, tc.want) {
			t.Errorf("ReadInside(%s): %q, %v; want %v", tc.name, data, err, tc.want)
			continue
		}
		if err == nil {
			if string(data) != "t" {
				t.Errorf("ReadInside(%s): %q", tc.name, data)
			}
			continue
		}
		if !strings.Contains(err.Error(), path) || strings.Contains(err.Error(), "\n") {
			t.Errorf("ReadInside(%s): %q is not one line naming it", tc.name, err)
		}
		for _, s := range tc.says {
			if !strings.Contains(err.Error(), s) {
				t.Errorf("ReadInside(%s): %q does not say %q", tc.name, err, s)
			}
		}
	}
}
