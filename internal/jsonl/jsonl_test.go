package jsonl

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestRead(t *testing.T) {
	for _, tc := range []struct {
		name     string
		in       string
		lines    []int // the lines handed over
		good     int
		torn     bool
		stopAt   int // each fails at this line
		wantErr  string
		readFail bool
	}{
		{name: "empty", in: "", good: 0},
		{name: "two lines", in: "a\nb\n", lines: []int{1, 2}, good: 4},
		{name: "blank lines skipped, counted", in: "\n  \na\n", lines: []int{3}, good: 6},
		{name: "torn last line", in: "a\nb", lines: []int{1}, good: 2, torn: true},
		{name: "each stops the read", in: "a\nb\nc\n", lines: []int{1, 2}, stopAt: 2, wantErr: "stop at 2"},
		{name: "a read error names the line", in: "a\n", readFail: true, lines: []int{1}, wantErr: "j:2: broken"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got []int
			var r io.Reader = strings.NewReader(tc.in)
			if tc.readFail {
				r = &failing{data: []byte(tc.in)}
			}
			good, torn, err := Read(r, "j", func(line int, b []byte) error {
				got = append(got, line)
				if line == tc.stopAt {
					return errors.New("stop at 2")
				}
				return nil
			})
			if tc.wantErr != "" {
				if err == nil || err.Error() != tc.wantErr {
					t.Fatalf("err = %v, want %q", err, tc.wantErr)
				}
			} else if err != nil || good != int64(tc.good) || torn != tc.torn {
				t.Fatalf("good %d, torn %v, err %v; want %d, %v", good, torn, err, tc.good, tc.torn)
			}
			if len(got) != len(tc.lines) || (len(got) > 0 && got[len(got)-1] != tc.lines[len(tc.lines)-1]) {
				t.Errorf("lines %v, want %v", got, tc.lines)
			}
		})
	}
}

// failing reads data, then fails.
type failing struct{ data []byte }

func (f *failing) Read(p []byte) (int, error) {
	if len(f.data) == 0 {
		return 0, errors.New("broken")
	}
	n := copy(p, f.data)
	f.data = f.data[n:]
	return n, nil
}

// TestOpen: a torn last line is cut away and appending starts after the
// last whole line; a second Open of the same journal is refused while the
// first holds it.
func TestOpen(t *testing.T) {
	path := filepath.Join(t.TempDir(), "j.jsonl")
	if err := os.WriteFile(path, []byte("{\"a\":1}\n{\"a\":"), 0o644); err != nil {
		t.Fatal(err)
	}
	var lines int
	j, err := Open(path, "journal", func(int, []byte) error { lines++; return nil })
	if err != nil {
		t.Fatal(err)
	}
	if lines != 1 {
		t.Errorf("read %d lines, want 1", lines)
	}
	if err := j.Append([]byte("{\"a\":2}\n")); err != nil {
		t.Fatal(err)
	}
	if err := j.Sync(); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(path, "journal", func(int, []byte) error { return nil }); err == nil || !strings.Contains(err.Error(), "another run") {
		t.Errorf("second Open: %v, want it refused", err)
	}
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if want := "{\"a\":1}\n{\"a\":2}\n"; string(data) != want {
		t.Errorf("journal holds %q, want %q", data, want)
	}
}

// FuzzRead: what Read accepts ends on a line boundary with no whole line
// after it, and reads the same again alone.
func FuzzRead(f *testing.F) {
	f.Add([]byte("a\n\nb\nc"))
	f.Add([]byte(""))
	f.Add([]byte("\n\n\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		var n int
		good, torn, err := Read(bytes.NewReader(data), "fuzz", func(int, []byte) error { n++; return nil })
		if err != nil {
			t.Fatal(err)
		}
		if good < 0 || good > int64(len(data)) || (good > 0 && data[good-1] != '\n') || bytes.IndexByte(data[good:], '\n') >= 0 {
			t.Fatalf("good %d of %d is not the last line boundary", good, len(data))
		}
		if torn != (good < int64(len(data))) {
			t.Fatalf("torn %v with %d of %d bytes read", torn, good, len(data))
		}
		var again int
		if g2, _, err := Read(bytes.NewReader(data[:good]), "fuzz", func(int, []byte) error { again++; return nil }); err != nil || g2 != good || again != n {
			t.Fatalf("the accepted part reads differently: %v, %d, %d lines of %d", err, g2, again, n)
		}
	})
}
