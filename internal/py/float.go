package py

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"unicode"
)

// floatSyntax is what float() accepts once surrounding white space is
// stripped and digits are ASCII: digits with single underscores between
// them, an optional fraction and exponent, or inf, infinity, nan in any
// case. Go's ParseFloat also takes hex floats and other spellings Python
// refuses.
var floatSyntax = regexp.MustCompile(`^[+-]?(?:(?:\d(?:_?\d)*(?:\.(?:\d(?:_?\d)*)?)?|\.\d(?:_?\d)*)(?:[eE][+-]?\d(?:_?\d)*)?|(?i:inf|infinity|nan))$`)

// ParseFloat is float(str): white space around the number, any Unicode
// decimal digits, underscores between digits; a value too large becomes
// ±inf, as in Python. The white space float() strips is IsSpace without the
// separators U+001C..U+001F, which it refuses.
func ParseFloat(s string) (float64, error) {
	s = ASCIIDigits(strings.TrimFunc(s, floatSpace))
	if !floatSyntax.MatchString(s) {
		return 0, fmt.Errorf("could not convert string to float: %q", s)
	}
	f, err := strconv.ParseFloat(strings.ReplaceAll(s, "_", ""), 64)
	if err != nil && !math.IsInf(f, 0) {
		return 0, fmt.Errorf("could not convert string to float: %q", s)
	}
	return f, nil
}

func floatSpace(r rune) bool { return IsSpace(r) && (r < 0x1c || r > 0x1f) }

// IsDigit is str.isdigit for one character: the decimal digits (category
// Nd) and the other characters whose Numeric_Type is Digit (superscripts,
// circled digits, ...), which float() then refuses.
func IsDigit(r rune) bool {
	if r < 0x80 {
		return r >= '0' && r <= '9'
	}
	if unicode.Is(unicode.Nd, r) {
		return true
	}
	switch {
	case r == 0xB2, r == 0xB3, r == 0xB9, r == 0x2070, r >= 0x2074 && r <= 0x2079,
		r >= 0x2080 && r <= 0x2089, r >= 0x2460 && r <= 0x2468, r >= 0x2474 && r <= 0x247C,
		r >= 0x2488 && r <= 0x2490, r == 0x24EA, r >= 0x24F5 && r <= 0x24FD, r == 0x24FF,
		r >= 0x2776 && r <= 0x277E, r >= 0x2780 && r <= 0x2788, r >= 0x278A && r <= 0x2792,
		r >= 0x1369 && r <= 0x1371, r == 0x19DA, r >= 0x10A40 && r <= 0x10A43,
		r >= 0x10E60 && r <= 0x10E68, r >= 0x11052 && r <= 0x1105A, r >= 0x1F100 && r <= 0x1F10A:
		return true
	}
	return false
}
