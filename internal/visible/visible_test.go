package visible

import (
	"bytes"
	"fmt"
	"testing"
)

func TestLineAndLines(t *testing.T) {
	for _, tc := range []struct{ in, line, lines string }{
		{"gpt-4o", "gpt-4o", "gpt-4o"},
		{"café 日本語 🎉 مرحبا", "café 日本語 🎉 مرحبا", "café 日本語 🎉 مرحبا"},
		{"\x1b]0;pwned\x07", `\x1b]0;pwned\x07`, `\x1b]0;pwned\x07`},
		{"\x1b[31mred\x1b[0m", `\x1b[31mred\x1b[0m`, `\x1b[31mred\x1b[0m`},
		{"gpt-4o\u202e1-", `gpt-4o\u202e1-`, `gpt-4o\u202e1-`},
		{"\u202a\u202b\u202c\u202d\u2066\u2067\u2068\u2069", `\u202a\u202b\u202c\u202d\u2066\u2067\u2068\u2069`, `\u202a\u202b\u202c\u202d\u2066\u2067\u2068\u2069`},
		{"a\nb\r\tc", `a\nb\r\tc`, "a\nb\\r\\tc"},
		{"\x00\x7f\u0085\u009b", `\x00\x7f\x85\x9b`, `\x00\x7f\x85\x9b`},
		{"bad\xffbyte", `bad\xffbyte`, `bad\xffbyte`},
		{"\u200d\u2060", "\u200d\u2060", "\u200d\u2060"}, // joiners show nothing and drive nothing
	} {
		if got := Line(tc.in); got != tc.line {
			t.Errorf("Line(%q) = %q, want %q", tc.in, got, tc.line)
		}
		if got := Lines(tc.in); got != tc.lines {
			t.Errorf("Lines(%q) = %q, want %q", tc.in, got, tc.lines)
		}
	}
}

func TestWriter(t *testing.T) {
	var b bytes.Buffer
	n, err := fmt.Fprintf(Writer{W: &b}, "agg: skipping %s\n", "output-\x1b]0;x\x07.json")
	if err != nil || n != len("agg: skipping output-\x1b]0;x\x07.json\n") || b.String() != "agg: skipping output-\\x1b]0;x\\x07.json\n" {
		t.Errorf("wrote %q (%d, %v)", b.String(), n, err)
	}
}
