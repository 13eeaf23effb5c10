package result

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// longestString is the length of the longest string of JSON text b as
// written, escapes counted, read a byte at a time.
func longestString(b []byte) int {
	longest, n, in, escaped := 0, 0, false, false
	for _, c := range b {
		switch {
		case escaped:
			escaped = false
			n++
		case !in:
			in, n = c == '"', 0
			continue
		case c == '\\':
			escaped = true
			n++
		case c == '"':
			in = false
		default:
			n++
		}
		longest = max(longest, n)
	}
	return longest
}

// FuzzStringGuard: fed in pieces of any size, the guard refuses a text
// exactly when its longest string is past the bound.
func FuzzStringGuard(f *testing.F) {
	f.Add([]byte(`{"a":"b\"c\\","d":["eeee"]}`), 3, 2)
	f.Add([]byte(`"\\\\\\\"x`), 1, 4)
	f.Add([]byte(`{"sheet":{},"questions":[{"completion":"`+strings.Repeat("a", 100)+`"}]}`), 7, 99)
	f.Fuzz(func(t *testing.T, b []byte, piece, limit int) {
		piece, limit = 1+abs(piece)%64, 1+abs(limit)%128
		g := stringGuard{max: limit}
		var err error
		for i := 0; i < len(b) && err == nil; i += piece {
			err = g.feed(b[i:min(i+piece, len(b))])
		}
		if want := longestString(b) > limit; (err != nil) != want || err != nil && !errors.Is(err, ErrLongString) {
			t.Fatalf("limit %d, pieces of %d: %v; want refused %v", limit, piece, err, want)
		}
	})
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

// A completion past MaxString (as a planted one of 300 MB) is refused by
// every reader in one line naming the file and its line, ScanFile's
// error saying so to a caller that would read the file whole.
func TestLongString(t *testing.T) {
	dir := t.TempDir()
	var b bytes.Buffer
	b.WriteString("{\"sheet\": {\"name\": \"s\"},\n\"questions\": [{\"name\": \"q\", \"completion\": \"")
	b.Write(bytes.Repeat([]byte("a"), MaxString+1))
	b.WriteString("\"}]}\n")
	path := filepath.Join(dir, "output-s-m.json")
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Parse(b.Bytes()); err == nil || !strings.HasPrefix(err.Error(), ":2: string too long: more than 64 MiB at byte 67") {
		t.Errorf("Parse: %v", err)
	}
	b = bytes.Buffer{}
	_, err := Read(path)
	if want := path + ": string too long: more than 64 MiB at byte 67"; err == nil || !strings.HasPrefix(err.Error(), want) || strings.Contains(err.Error(), "\n") {
		t.Errorf("Read: %v; want %q", err, want)
	}
	err = ScanFile(path, func(*Sheet) error { return nil }, func(*Question, Span) error { return nil })
	if !errors.Is(err, ErrLongString) {
		t.Errorf("ScanFile: %v", err)
	}
}
