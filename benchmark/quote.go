package benchmark

import (
	"strconv"
	"unicode/utf8"
)

// quoteMax bounds the bytes of a value Quote keeps.
const quoteMax = 64

// Quote is s for an error message: Go-quoted, so a control character, a
// terminal escape or a bidirectional mark is spelled out, not acted on,
// and cut after 64 bytes ("..." after the quote): a message names a bad
// value, it does not carry a file's text.
func Quote(s string) string {
	if len(s) <= quoteMax {
		return strconv.Quote(s)
	}
	cut := quoteMax
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return strconv.Quote(s[:cut]) + "..."
}
