package sandbox

import (
	"bytes"
	"strings"
	"testing"
)

func TestCapture(t *testing.T) {
	for _, tc := range []struct {
		name   string
		limit  int
		chunks []string
		want   string
	}{
		{"empty", 10, nil, ""},
		{"fits", 10, []string{"abc", "defghij"}, "abcdefghij"},
		{"cut", 10, []string{"abcdefghijklmnopqrstuvwxyz"}, "abcde\n[... output cut here: bytes 5 to 21 of 26 left out ...]\nvwxyz"},
		{"cut across chunks", 10, []string{"abc", "defg", "hijklmnopq", "rstuvw", "xyz"}, "abcde\n[... output cut here: bytes 5 to 21 of 26 left out ...]\nvwxyz"},
		{"one over", 4, []string{"abcde"}, "ab\n[... output cut here: bytes 2 to 3 of 5 left out ...]\nde"},
		// Characters are not split: é is two bytes.
		{"runes", 4, []string{"aé" + strings.Repeat("x", 10) + "éé"}, "a\n[... output cut here: bytes 1 to 15 of 17 left out ...]\né"},
		{"runes whole", 6, []string{"aé" + strings.Repeat("x", 10) + "éé"}, "aé\n[... output cut here: bytes 3 to 15 of 17 left out ...]\né"},
		{"invalid utf-8", 10, []string{"a\xffb"}, "a\uFFFDb"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := newCapture(tc.limit)
			for _, ch := range tc.chunks {
				c.write([]byte(ch))
			}
			if got := c.String(); got != tc.want {
				t.Fatalf("got %q\nwant %q", got, tc.want)
			}
		})
	}
}

// FuzzMarkerScanner: however the stream is cut into reads, the scanner
// finds the marker where bytes.Index does, and passes on every byte before
// it exactly once.
func FuzzMarkerScanner(f *testing.F) {
	f.Add([]byte("hello\x1eab\x1e after"), uint8(3), uint8(1))
	f.Add([]byte("\x1e\x1ea\x1eab\x1e"), uint8(1), uint8(2))
	f.Add([]byte("no marker here \x1ea"), uint8(5), uint8(7))
	f.Fuzz(func(t *testing.T, stream []byte, a, b uint8) {
		marker := []byte("\x1eab\x1e")
		m := markerScanner{marker: marker}
		var got []byte
		found := false
		sizes := []int{int(a%7) + 1, int(b%5) + 1}
		for i, k := 0, 0; i < len(stream) && !found; k++ {
			n := min(sizes[k%2], len(stream)-i)
			out, ok, _ := m.feed(stream[i : i+n])
			got = append(got, out...)
			found = ok
			i += n
		}
		want := bytes.Index(stream, marker)
		if found != (want >= 0) {
			t.Fatalf("found %v, bytes.Index %d", found, want)
		}
		if found && !bytes.Equal(got, stream[:want]) {
			t.Fatalf("before the marker: got %q, want %q", got, stream[:want])
		}
		if !found && !bytes.Equal(append(got, m.carry...), stream) {
			t.Fatalf("without a marker: got %q + carry %q, want %q", got, m.carry, stream)
		}
	})
}
