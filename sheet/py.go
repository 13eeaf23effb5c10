package sheet

import "strings"

// PyStrip is Python's str.strip() with no arguments: it trims what
// str.isspace calls white space, which differs from unicode.IsSpace in the
// four ASCII separators 0x1c-0x1f. LIME strips with it.
func PyStrip(s string) string { return strings.TrimFunc(s, PyIsSpace) }

// PyIsSpace is Python's str.isspace for one character.
func PyIsSpace(r rune) bool {
	switch r {
	case ' ', '\t', '\n', '\v', '\f', '\r', 0x1c, 0x1d, 0x1e, 0x1f, 0x85, 0xa0, 0x1680, 0x2028, 0x2029, 0x202f, 0x205f, 0x3000:
		return true
	}
	return r >= 0x2000 && r <= 0x200a
}

// PyLower is Python's str.lower(); Go's strings.ToLower agrees except for
// U+0130, which Python lowers to "i" followed by a combining dot.
func PyLower(s string) string {
	if strings.ContainsRune(s, 0x130) {
		s = strings.ReplaceAll(s, "\u0130", "i\u0307")
	}
	return strings.ToLower(s)
}
