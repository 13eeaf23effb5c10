package codemode

import (
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"
)

// pyRepr returns Python 3's repr() of s: the literal Python itself prints,
// so a prompt quoting column names matches the original's f-string, and a
// program embedding text reads back exactly that text. Invalid UTF-8 (which
// a Python str cannot hold) is read as U+FFFD.
func pyRepr(s string) string {
	quote := byte('\'')
	if strings.IndexByte(s, '\'') >= 0 && strings.IndexByte(s, '"') < 0 {
		quote = '"'
	}
	var b strings.Builder
	b.Grow(len(s) + 2)
	b.WriteByte(quote)
	const hex = "0123456789abcdef"
	for _, r := range strings.ToValidUTF8(s, "\uFFFD") {
		switch {
		case r == rune(quote) || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r < ' ' || r == 0x7f:
			b.WriteString(`\x`)
			b.WriteByte(hex[r>>4])
			b.WriteByte(hex[r&15])
		case r < 0x7f || pyPrintable(r):
			b.WriteRune(r)
		case r <= 0xff:
			b.WriteString(`\x`)
			b.WriteByte(hex[r>>4])
			b.WriteByte(hex[r&15])
		case r <= 0xffff:
			b.WriteString(`\u`)
			for sh := 12; sh >= 0; sh -= 4 {
				b.WriteByte(hex[(r>>sh)&15])
			}
		default:
			b.WriteString(`\U`)
			for sh := 28; sh >= 0; sh -= 4 {
				b.WriteByte(hex[(r>>sh)&15])
			}
		}
	}
	b.WriteByte(quote)
	return b.String()
}

// pyListRepr returns Python's repr() of a list of strings, as
// {list(df.columns)} renders in an f-string.
func pyListRepr(items []string) string {
	var b strings.Builder
	b.WriteByte('[')
	for i, s := range items {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(pyRepr(s))
	}
	b.WriteByte(']')
	return b.String()
}

// pyPrintable is str.isprintable() for one character: every character but
// the categories Cc, Cf, Cs, Co, Cn, Zl, Zp and Zs, space excepted. That is
// Go's unicode.IsPrint, except for the characters Unicode 15.0 (Go's)
// added to 14.0 (Debian 12's Python 3.11): unassigned to Python, so repr
// escapes them.
func pyPrintable(r rune) bool {
	if !unicode.IsPrint(r) {
		return false
	}
	i := sort.Search(len(unicode15Only), func(i int) bool { return unicode15Only[i][1] >= r })
	return i == len(unicode15Only) || r < unicode15Only[i][0]
}

// unicode15Only are the printable ranges of Unicode 15.0 that Python 3.11's
// unicodedata (14.0) leaves unassigned; TestPythonPrintable checks
// them against Python for every code point.
var unicode15Only = [][2]rune{
	{0x0CF3, 0x0CF3},
	{0x0ECE, 0x0ECE},
	{0x10EFD, 0x10EFF},
	{0x1123F, 0x11241},
	{0x11B00, 0x11B09},
	{0x11F00, 0x11F10},
	{0x11F12, 0x11F3A},
	{0x11F3E, 0x11F59},
	{0x1342F, 0x1342F},
	{0x13440, 0x13455},
	{0x1B132, 0x1B132},
	{0x1B155, 0x1B155},
	{0x1D2C0, 0x1D2D3},
	{0x1DF25, 0x1DF2A},
	{0x1E030, 0x1E06D},
	{0x1E08F, 0x1E08F},
	{0x1E4D0, 0x1E4F9},
	{0x1F6DC, 0x1F6DC},
	{0x1F774, 0x1F776},
	{0x1F77B, 0x1F77F},
	{0x1F7D9, 0x1F7D9},
	{0x1FA75, 0x1FA77},
	{0x1FA87, 0x1FA88},
	{0x1FAAD, 0x1FAAF},
	{0x1FABB, 0x1FABD},
	{0x1FABF, 0x1FABF},
	{0x1FACE, 0x1FACF},
	{0x1FADA, 0x1FADB},
	{0x1FAE8, 0x1FAE8},
	{0x1FAF7, 0x1FAF8},
	{0x2B739, 0x2B739},
	{0x31350, 0x323AF},
}

// validUTF8 makes s a text Python could hold: invalid bytes become U+FFFD,
// as a strict UTF-8 decode would refuse them.
func validUTF8(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	return strings.ToValidUTF8(s, "\uFFFD")
}
