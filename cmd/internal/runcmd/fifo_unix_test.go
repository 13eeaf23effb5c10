//go:build unix

package runcmd

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A sheet folder from a stranger whose table or sheet is a FIFO (which an
// open waits on until something writes to it), or whose sheet is a link
// to a file outside the folder: run and run -y refuse it in one line
// naming the file, at once, asking nothing and writing no output.
func TestRunRefusesFIFOsAndOutsideSheets(t *testing.T) {
	sheet := "# S\n\n#### meta\n- grader: exact\n\n#### files\ntable.csv\n\n## Q\n#### question\nHow many rows?\n#### answer\n3\n"
	plain := strings.Replace(sheet, "#### files\ntable.csv\n\n", "", 1)
	for _, tc := range []struct {
		name  string
		setup func(t *testing.T, dir string) (args []string, named string)
	}{
		{"a FIFO as a table", func(t *testing.T, dir string) ([]string, string) {
			writeFile(t, filepath.Join(dir, "input-s.md"), sheet)
			mkfifo(t, filepath.Join(dir, "table.csv"))
			return []string{"-d", dir}, "table.csv"
		}},
		{"a FIFO as a sheet", func(t *testing.T, dir string) ([]string, string) {
			writeFile(t, filepath.Join(dir, "input-a.md"), plain)
			mkfifo(t, filepath.Join(dir, "input-fifo.md"))
			return []string{"-d", dir}, filepath.Join(dir, "input-fifo.md")
		}},
		{"a sheet linked from outside, found", func(t *testing.T, dir string) ([]string, string) {
			secret := filepath.Join(t.TempDir(), "notes.md")
			writeFile(t, secret, plain)
			os.Symlink(secret, filepath.Join(dir, "input-link.md"))
			return []string{"-d", dir}, filepath.Join(dir, "input-link.md")
		}},
		{"a sheet linked from outside, named", func(t *testing.T, dir string) ([]string, string) {
			secret := filepath.Join(t.TempDir(), "notes.md")
			writeFile(t, secret, plain)
			os.Symlink(secret, filepath.Join(dir, "input-link.md"))
			return []string{"-f", filepath.Join(dir, "input-link.md")}, filepath.Join(dir, "input-link.md")
		}},
	} {
		for _, dry := range []bool{false, true} {
			t.Run(tc.name+map[bool]string{true: ", -y"}[dry], func(t *testing.T) {
				dir := t.TempDir()
				args, named := tc.setup(t, dir)
				args = append(args, "-m", "mock", "-u", "0")
				if dry {
					args = append(args, "-y")
				}
				var stderr bytes.Buffer
				done := make(chan error, 1)
				go func() { done <- run(context.Background(), &stderr, &stderr, args) }()
				var err error
				select {
				case err = <-done:
				case <-time.After(10 * time.Second):
					unblock(dir)
					t.Fatalf("run %v still waiting after 10s", args)
				}
				if err == nil || !strings.Contains(err.Error(), named) || strings.Contains(err.Error(), "\n") {
					t.Errorf("err %v, want one line naming %s", err, named)
				}
				if outs, _ := filepath.Glob(filepath.Join(dir, "output-*")); len(outs) > 0 {
					t.Errorf("outputs written: %v", outs)
				}
			})
		}
	}
}

func mkfifo(t *testing.T, path string) {
	t.Helper()
	if err := syscall.Mkfifo(path, 0o644); err != nil {
		t.Skip("no FIFOs here:", err)
	}
}

// unblock opens each FIFO in dir for writing and closes it, so a reader
// waiting on it sees its end.
func unblock(dir string) {
	paths, _ := filepath.Glob(filepath.Join(dir, "*"))
	for _, p := range paths {
		if fi, err := os.Lstat(p); err == nil && fi.Mode()&os.ModeNamedPipe != 0 {
			if f, err := os.OpenFile(p, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
				f.Close()
			}
		}
	}
}
