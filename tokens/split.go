package tokens

import (
	"unicode"
	"unicode/utf8"
)

// This file is the pre-tokenizer: the split of a text into pieces that
// byte-pair encoding then works on one at a time. tiktoken does it with a
// regular expression per encoding; the Go port's regexp2 engine gets one of
// its alternatives wrong (it splits "  \n \n \n" into three pieces where
// tiktoken makes one, which changes token counts on ordinary prompts), so the
// two expressions are implemented here by hand. Each function below returns
// where the piece starting at byte i ends, following the expression's
// alternatives in order with the backtracking a regex engine would do; the
// comments give the alternative each branch implements.
//
// cl100k_base:
//
//	(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}|
//	 ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+
//
// o200k_base:
//
//	[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?|
//	[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?|
//	\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+
//
// \s is Unicode White_Space (Go's unicode.IsSpace), \p{L} and \p{N} the
// letter and number categories, as in the Rust regex crate tiktoken uses.
// Every character is covered by some alternative, so pieces are contiguous.

// runeAt decodes the rune at byte i of s; past the end it returns -1 and 0.
func runeAt(s string, i int) (rune, int) {
	if i >= len(s) {
		return -1, 0
	}
	if c := s[i]; c < utf8.RuneSelf {
		return rune(c), 1
	}
	return utf8.DecodeRuneInString(s[i:])
}

func isNewline(r rune) bool { return r == '\r' || r == '\n' }

// isPrefix is [^\r\n\p{L}\p{N}]: the optional one character before a word.
func isPrefix(r rune) bool {
	return r >= 0 && !isNewline(r) && !unicode.IsLetter(r) && !unicode.IsNumber(r)
}

// isOther is [^\s\p{L}\p{N}]: punctuation, symbols, marks, controls.
func isOther(r rune) bool {
	return r >= 0 && !unicode.IsSpace(r) && !unicode.IsLetter(r) && !unicode.IsNumber(r)
}

// isUpperish is [\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}] and isLowerish is
// [\p{Ll}\p{Lm}\p{Lo}\p{M}] (o200k_base's word classes; they overlap).
func isUpperish(r rune) bool {
	return r >= 0 && (unicode.IsUpper(r) || unicode.IsTitle(r) || unicode.In(r, unicode.Lm, unicode.Lo, unicode.M))
}

func isLowerish(r rune) bool {
	return r >= 0 && (unicode.IsLower(r) || unicode.In(r, unicode.Lm, unicode.Lo, unicode.M))
}

// foldEq reports whether r equals the ASCII lower-case letter c under
// Unicode simple case folding, as (?i) compares (so 'ſ' matches 's').
func foldEq(r, c rune) bool {
	if r == c {
		return true
	}
	for f := unicode.SimpleFold(c); f != c; f = unicode.SimpleFold(f) {
		if r == f {
			return true
		}
	}
	return false
}

// contraction returns the end of (?i:'s|'t|'re|'ve|'m|'ll|'d) at i, or -1.
func contraction(s string, i int) int {
	if i >= len(s) || s[i] != '\'' {
		return -1
	}
	j := i + 1
	r1, n1 := runeAt(s, j)
	switch {
	case foldEq(r1, 's'), foldEq(r1, 't'), foldEq(r1, 'm'), foldEq(r1, 'd'):
		return j + n1
	}
	r2, n2 := runeAt(s, j+n1)
	switch {
	case foldEq(r1, 'r') && foldEq(r2, 'e'),
		foldEq(r1, 'v') && foldEq(r2, 'e'),
		foldEq(r1, 'l') && foldEq(r2, 'l'):
		return j + n1 + n2
	}
	return -1
}

// spaceRun returns the end of the white-space run at i and the end of its
// last newline (-1 when the run has none).
func spaceRun(s string, i int) (end, lastNewlineEnd int) {
	lastNewlineEnd = -1
	for {
		r, n := runeAt(s, i)
		if n == 0 || !unicode.IsSpace(r) {
			return i, lastNewlineEnd
		}
		i += n
		if isNewline(r) {
			lastNewlineEnd = i
		}
	}
}

// whitespace implements \s*[\r\n]+|\s+(?!\S)|\s+ at i, for r(i) a space.
// The greedy \s* backtracks to the run's last newline; \s+(?!\S) backtracks
// one character unless the run ends the text; \s+ takes what is left.
func whitespace(s string, i int) int {
	end, nl := spaceRun(s, i)
	if nl >= 0 {
		return nl
	}
	if end == len(s) {
		return end
	}
	// Step back over the run's last character: if that leaves at least one
	// character, \s+(?!\S) matches the shorter run.
	_, last := utf8.DecodeLastRuneInString(s[i:end])
	if end-last > i {
		return end - last
	}
	return end
}

// punctuation implements " ?[^\s\p{L}\p{N}]+" followed by a run of trailing
// characters accepted by tail, at i; -1 when it does not match.
func punctuation(s string, i int, tail func(rune) bool) int {
	j := i
	if s[j] == ' ' {
		if r, _ := runeAt(s, j+1); isOther(r) {
			j++
		}
	}
	r, n := runeAt(s, j)
	if !isOther(r) {
		return -1
	}
	for j += n; ; j += n {
		if r, n = runeAt(s, j); !isOther(r) {
			break
		}
	}
	for ; ; j += n {
		if r, n = runeAt(s, j); n == 0 || !tail(r) {
			return j
		}
	}
}

// numbers implements \p{N}{1,3} at i; -1 when r(i) is not a number.
func numbers(s string, i int) int {
	j := i
	for k := 0; k < 3; k++ {
		r, n := runeAt(s, j)
		if n == 0 || !unicode.IsNumber(r) {
			break
		}
		j += n
	}
	if j == i {
		return -1
	}
	return j
}

// nextCl100k returns the end of the cl100k_base piece starting at byte i < len(s).
func nextCl100k(s string, i int) int {
	// (?i:'s|'t|'re|'ve|'m|'ll|'d)
	if j := contraction(s, i); j >= 0 {
		return j
	}
	r, n := runeAt(s, i)
	// [^\r\n\p{L}\p{N}]?\p{L}+
	start := -1
	if unicode.IsLetter(r) {
		start = i
	} else if isPrefix(r) {
		if r2, _ := runeAt(s, i+n); unicode.IsLetter(r2) {
			start = i + n
		}
	}
	if start >= 0 {
		j := start
		for {
			r, m := runeAt(s, j)
			if m == 0 || !unicode.IsLetter(r) {
				return j
			}
			j += m
		}
	}
	// \p{N}{1,3}
	if j := numbers(s, i); j >= 0 {
		return j
	}
	//  ?[^\s\p{L}\p{N}]+[\r\n]*
	if j := punctuation(s, i, isNewline); j >= 0 {
		return j
	}
	// \s*[\r\n]+|\s+(?!\S)|\s+ : r is a space here (every other class is
	// taken above).
	return whitespace(s, i)
}

// upperRun scans the maximal upper-ish run at s0 and returns its end and
// the end of its last character that is also lower-ish (-1 if none): that is
// where a greedy U* gives back to when L+ must follow.
func upperRun(s string, s0 int) (end, lastLowerEnd int) {
	end, lastLowerEnd = s0, -1
	for {
		r, n := runeAt(s, end)
		if n == 0 || !isUpperish(r) {
			return end, lastLowerEnd
		}
		end += n
		if isLowerish(r) {
			lastLowerEnd = end
		}
	}
}

// lowerRun returns the end of the maximal lower-ish run at k.
func lowerRun(s string, k int) int {
	for {
		r, n := runeAt(s, k)
		if n == 0 || !isLowerish(r) {
			return k
		}
		k += n
	}
}

// withContraction extends a word ending at end by an optional contraction.
func withContraction(s string, end int) int {
	if c := contraction(s, end); c >= 0 {
		return c
	}
	return end
}

// o200kFirst implements U*L+(contraction)? at s0 (U the upper-ish class, L
// the lower-ish one, both greedy); -1 when it does not match.
func o200kFirst(s string, s0 int) int {
	uEnd, lastLowerEnd := upperRun(s, s0)
	if r, _ := runeAt(s, uEnd); isLowerish(r) {
		// U* keeps the whole run and L+ continues after it.
		return withContraction(s, lowerRun(s, uEnd))
	}
	if lastLowerEnd >= 0 {
		// U* gives back up to the run's last lower-ish character, which L+
		// takes; nothing after it in the run is lower-ish.
		return withContraction(s, lastLowerEnd)
	}
	return -1
}

// o200kSecond implements U+L*(contraction)? at s0; -1 when it does not match.
func o200kSecond(s string, s0 int) int {
	uEnd, _ := upperRun(s, s0)
	if uEnd == s0 {
		return -1
	}
	return withContraction(s, lowerRun(s, uEnd))
}

// nextO200k returns the end of the o200k_base piece starting at byte i < len(s).
func nextO200k(s string, i int) int {
	r, n := runeAt(s, i)
	// The two word alternatives in regex order: each first with the
	// optional prefix character taken, then without it.
	for _, word := range [...]func(string, int) int{o200kFirst, o200kSecond} {
		if isPrefix(r) {
			if j := word(s, i+n); j >= 0 {
				return j
			}
		}
		if j := word(s, i); j >= 0 {
			return j
		}
	}
	// \p{N}{1,3}
	if j := numbers(s, i); j >= 0 {
		return j
	}
	//  ?[^\s\p{L}\p{N}]+[\r\n/]*
	if j := punctuation(s, i, isNewlineOrSlash); j >= 0 {
		return j
	}
	// \s*[\r\n]+|\s+(?!\S)|\s+
	return whitespace(s, i)
}

func isNewlineOrSlash(r rune) bool { return isNewline(r) || r == '/' }
