// Package visible makes text read from a file safe to print on a
// terminal: a name in an output file, a sheet or a results folder may hold
// an escape sequence (ESC ] 0;title BEL sets the window's title, ESC [ 2J
// clears the screen, colours hide what follows) or a bidirectional
// override (U+202E shows "gpt-4o\u202e1-" as "gpt-4o-1"), which a terminal
// obeys. Each such character is written as an escape a reader sees
// (\x1b, \u202e); every other character, accents, CJK and emoji included,
// is kept as it is.
package visible

import (
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// Line is s with every control character (C0, DEL, C1, line ends and tabs
// too), bidirectional override and invalid UTF-8 byte written as a
// visible escape: for one line of a message.
func Line(s string) string { return escape(s, false) }

// Lines is Line keeping '\n', for text a table or a message lays out in
// lines ('\r', which moves the cursor back over what was written, is
// escaped).
func Lines(s string) string { return escape(s, true) }

// Hidden reports whether the terminal would act on r instead of showing
// it: a C0 control, DEL, a C1 control, or one of the bidirectional
// embeddings, overrides and isolates (U+202A-U+202E, U+2066-U+2069).
func Hidden(r rune) bool {
	return r < 0x20 || r >= 0x7f && r < 0xa0 || r >= 0x202a && r <= 0x202e || r >= 0x2066 && r <= 0x2069
}

// Escape is the visible escape of r: \t, \n, \r, \xNN below U+0100,
// \uNNNN above.
func Escape(r rune) string {
	switch r {
	case '\t':
		return `\t`
	case '\n':
		return `\n`
	case '\r':
		return `\r`
	}
	if r < 0x100 {
		return fmt.Sprintf(`\x%02x`, r)
	}
	return fmt.Sprintf(`\u%04x`, r)
}

func escape(s string, keepNL bool) string {
	if clean(s, keepNL) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r == '\n' && keepNL || !Hidden(r):
			b.WriteString(s[i : i+n])
		default:
			b.WriteString(Escape(r))
		}
		i += n
	}
	return b.String()
}

// clean says whether s needs no escape, so that it comes back as it is.
func clean(s string, keepNL bool) bool {
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 || Hidden(r) && !(r == '\n' && keepNL) {
			return false
		}
		i += n
	}
	return true
}

// Writer writes to W what it is given through Lines. Each Write is taken
// as whole text, as fmt's Fprint functions write it: a character cut
// between two writes would be shown as its bytes.
type Writer struct{ W io.Writer }

// Write writes Lines(p) and reports len(p) when all of it was written.
func (w Writer) Write(p []byte) (int, error) {
	s := string(p)
	if _, err := io.WriteString(w.W, Lines(s)); err != nil {
		return 0, err
	}
	return len(p), nil
}
