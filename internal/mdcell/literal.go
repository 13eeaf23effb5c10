package mdcell

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/evalmd/evalmd/internal/visible"
)

// wordJoiner (U+2060) is invisible and joins what it stands between; put
// after an '@' it keeps GitHub from reading a mention (@user, @org/team)
// or an e-mail address, which a backslash does not (GitHub finds both in
// the rendered text, where "\@" is "@" again).
const wordJoiner = "\u2060"

// Literal makes s show as the text it is in markdown, in one cell of a
// table or inside a line: what Escape does ('|', line breaks), and every
// inline construct of CommonMark, GFM and GitHub's comments made text. A
// name from a stranger's file ("![x](data:...)", "**bold**",
// "[docs](https://evil.example/login)", "<img src=x>", "@someone",
// "<!-- evalmd gate -->", "</details>") then renders as those characters,
// not as an image, emphasis, a link, markup, a mention, or a marker a CI
// step looks for.
//
// Only what could make markup is escaped, so that an ordinary name
// (gpt-4o, mistral_hf_7b, "What Shows Up", an interval [0.1, 0.9], p
// <0.0001) comes back byte for byte, as LIME's tables have it:
//   - '*', '~' and '`' (emphasis, strikethrough, code) are always
//     escaped; '_' only where it could open or close emphasis (not between
//     two letters or digits);
//   - ']' before '(' or '[' (no link or image can then close);
//   - '<' before a letter, '/', '!' or '?' (a tag, a comment, an
//     autolink) becomes "&lt;"; '&' that starts an entity, "&amp;";
//   - "://" and "www." are broken with a backslash (no autolink), and an
//     '@' that could start a mention or an e-mail address is followed by
//     U+2060 WORD JOINER;
//   - '\' is doubled where it would escape what follows;
//   - control characters and bidirectional overrides are written as
//     visible escapes (package visible), as on a terminal.
func Literal(s string) string {
	if plain(s) {
		return s
	}
	var pieces []string
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == '\r' && strings.HasPrefix(s[i:], "\r\n") {
			n = 2
		}
		pieces = append(pieces, literalPiece(s, i, r, n))
		i += n
	}
	var b strings.Builder
	for k, p := range pieces {
		if p == `\` && (k == len(pieces)-1 || startsPunct(pieces[k+1])) {
			p = `\\`
		}
		b.WriteString(p)
	}
	return b.String()
}

// plain says whether s holds nothing Literal changes.
func plain(s string) bool {
	for _, r := range s {
		switch {
		case r == utf8.RuneError, visible.Hidden(r), strings.ContainsRune("|\\*_~`]<&@:.", r):
			return false
		}
	}
	return true
}

// literalPiece is Literal's text for the character r, n bytes at s[i:].
func literalPiece(s string, i int, r rune, n int) string {
	rest := s[i+n:]
	switch r {
	case '\n', '\r':
		return "<br>"
	case '|':
		return `\|`
	case '*', '~', '`':
		return `\` + string(r)
	case '_':
		if wordRune(lastRune(s[:i])) && wordRune(firstRune(rest)) {
			return "_"
		}
		return `\_`
	case ']':
		if strings.HasPrefix(rest, "(") || strings.HasPrefix(rest, "[") {
			return `\]`
		}
	case '<':
		if c := firstRune(rest); c < utf8.RuneSelf && (isASCIILetter(byte(c)) || c == '/' || c == '!' || c == '?') {
			return "&lt;"
		}
	case '&':
		if entity(rest) {
			return "&amp;"
		}
	case ':':
		if strings.HasPrefix(rest, "//") {
			return `\:`
		}
	case '.':
		if len(s[:i]) >= 3 && strings.EqualFold(s[i-3:i], "www") {
			return `\.`
		}
	case '@':
		if mention(s[:i], rest) {
			return "@" + wordJoiner
		}
	}
	if r == utf8.RuneError && n == 1 || visible.Hidden(r) {
		return visible.Line(s[i : i+n])
	}
	return s[i : i+n]
}

// mention says whether an '@' between before and after could start a
// GitHub mention (not after a word character, a letter or digit next) or
// be an e-mail address (a letter or digit next, a dot in what follows).
func mention(before, after string) bool {
	if after == "" || !isASCIIAlnum(after[0]) {
		return false
	}
	if p := lastRune(before); !(p < utf8.RuneSelf && (isASCIIAlnum(byte(p)) || p == '_')) {
		return true
	}
	end := strings.IndexFunc(after, func(r rune) bool {
		return !(r < utf8.RuneSelf && (isASCIIAlnum(byte(r)) || r == '-' || r == '_' || r == '.'))
	})
	if end < 0 {
		end = len(after)
	}
	return strings.Contains(strings.TrimRight(after[:end], "."), ".")
}

// entity says whether s (what follows an '&') is an entity or numeric
// character reference CommonMark would decode: "amp;", "#38;", "#x26;".
func entity(s string) bool {
	end := strings.IndexByte(s, ';')
	if end < 1 || end > 32 {
		return false
	}
	name := s[:end]
	switch {
	case name[0] == '#' && len(name) > 2 && (name[1] == 'x' || name[1] == 'X'):
		return all(name[2:], isHex)
	case name[0] == '#':
		return all(name[1:], isDigit)
	}
	return isASCIILetter(name[0]) && all(name, isASCIIAlnum)
}

// startsPunct says whether s starts with ASCII punctuation, which a
// backslash before it would escape.
func startsPunct(s string) bool {
	return s != "" && strings.IndexByte("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~", s[0]) >= 0
}

func wordRune(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }

func lastRune(s string) rune {
	r, _ := utf8.DecodeLastRuneInString(s)
	return r
}

func firstRune(s string) rune {
	r, _ := utf8.DecodeRuneInString(s)
	return r
}

func all(s string, f func(byte) bool) bool {
	for i := 0; i < len(s); i++ {
		if !f(s[i]) {
			return false
		}
	}
	return s != ""
}

func isASCIILetter(c byte) bool { return c|0x20 >= 'a' && c|0x20 <= 'z' }
func isDigit(c byte) bool       { return c >= '0' && c <= '9' }
func isHex(c byte) bool         { return isDigit(c) || c|0x20 >= 'a' && c|0x20 <= 'f' }
func isASCIIAlnum(c byte) bool  { return isASCIILetter(c) || isDigit(c) }
