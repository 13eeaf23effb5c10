// Package py reproduces the few pieces of Python 3's str and float behaviour
// that the tools evalmd matches need byte for byte: str.isspace, str.strip(),
// str.lower(), repr(float), format(x, ".Nf" / ".Ne" / "g") and the
// integer floor division a // b.
//
// Go's defaults differ from Python's in ways that change LIME's grades and
// parses and pandas' printed text: unicode.IsSpace leaves out the ASCII
// separators U+001C..U+001F that str.isspace counts; strings.ToLower maps
// 'İ' to one code point and ignores the final-sigma rule; strconv spells
// non-finite numbers and exponents its own way. Go's strconv rounds
// correctly, as CPython does, so only layout rules are written here.
//
// Character properties come from Go's unicode tables, whose Unicode version
// may be newer than the Python a reference was made with; code points
// assigned between the two versions can differ.
package py

import (
	"math"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// IsSpace is str.isspace for one character: Go's Unicode White_Space plus
// the ASCII information separators U+001C..U+001F.
func IsSpace(r rune) bool {
	if r >= 0x1c && r <= 0x1f {
		return true
	}
	return unicode.IsSpace(r)
}

// Strip is str.strip() with no argument: it trims the characters IsSpace
// accepts from both ends.
func Strip(s string) string { return strings.TrimFunc(s, IsSpace) }

// Lower is str.lower(): Unicode's full lowercase mapping, in which 'İ'
// (U+0130) becomes "i̇" (two code points) and a capital sigma that ends a
// word becomes final sigma 'ς' (U+03C2).
func Lower(s string) string {
	ascii := true
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			ascii = false
			break
		}
	}
	if ascii {
		return strings.ToLower(s)
	}
	rs := []rune(s)
	var b strings.Builder
	b.Grow(len(s))
	for i, r := range rs {
		switch r {
		case 0x130:
			b.WriteString("i\u0307")
		case 0x3a3:
			if finalSigma(rs, i) {
				b.WriteRune(0x3c2)
			} else {
				b.WriteRune(0x3c3)
			}
		default:
			b.WriteRune(unicode.ToLower(r))
		}
	}
	return b.String()
}

// finalSigma reports whether the capital sigma at rs[i] is in the
// Final_Sigma context as CPython's handle_capital_sigma decides it: a cased
// letter before it and none after it, skipping case-ignorable code points
// on both sides.
func finalSigma(rs []rune, i int) bool {
	j := i - 1
	for j >= 0 && caseIgnorable(rs[j]) {
		j--
	}
	if j < 0 || !cased(rs[j]) {
		return false
	}
	j = i + 1
	for j < len(rs) && caseIgnorable(rs[j]) {
		j++
	}
	return j == len(rs) || !cased(rs[j])
}

// cased is Unicode's Cased property.
func cased(r rune) bool {
	return unicode.In(r, unicode.Lu, unicode.Ll, unicode.Lt, unicode.Other_Lowercase, unicode.Other_Uppercase)
}

// caseIgnorable is Unicode's Case_Ignorable property: marks, format
// characters, modifier letters and symbols, and the word-internal
// punctuation of Word_Break MidLetter, MidNumLet and Single_Quote.
func caseIgnorable(r rune) bool {
	switch r {
	case '\'', '.', ':', 0xb7, 0x387, 0x55f, 0x5f4, 0x2018, 0x2019, 0x2024, 0x2027,
		0xfe13, 0xfe52, 0xfe55, 0xff07, 0xff0e, 0xff1a:
		return true
	}
	return unicode.In(r, unicode.Mn, unicode.Me, unicode.Cf, unicode.Lm, unicode.Sk)
}

// nonFinite spells NaN and the infinities as Python does; ok is false for a
// finite f.
func nonFinite(f float64) (s string, ok bool) {
	switch {
	case math.IsNaN(f):
		return "nan", true
	case math.IsInf(f, 1):
		return "inf", true
	case math.IsInf(f, -1):
		return "-inf", true
	}
	return "", false
}

// Repr is repr(float), which is also str(float): the shortest digits that
// read back to f, in fixed notation with at least one fractional digit
// ("100.0") when the decimal exponent is in [-4, 16), otherwise as "1e-05"
// or "1.5e+16".
func Repr(f float64) string {
	if s, ok := nonFinite(f); ok {
		return s
	}
	sci := strconv.FormatFloat(f, 'e', -1, 64) // "-d.ddde±XX"
	sign := ""
	if sci[0] == '-' {
		sign, sci = "-", sci[1:]
	}
	mant, expText, _ := strings.Cut(sci, "e")
	exp, _ := strconv.Atoi(expText)
	digits := strings.Replace(mant, ".", "", 1)
	switch {
	case exp < -4 || exp >= 16:
		// Go's exponent already has Python's sign and two-digit minimum.
		return sign + mant + "e" + expText
	case exp < 0:
		return sign + "0." + strings.Repeat("0", -exp-1) + digits
	case len(digits) <= exp+1:
		return sign + digits + strings.Repeat("0", exp+1-len(digits)) + ".0"
	}
	return sign + digits[:exp+1] + "." + digits[exp+1:]
}

// Fixed is format(f, ".{prec}f"), or format(f, " .{prec}f") (a leading
// space for a non-negative number) when space is set.
func Fixed(f float64, prec int, space bool) string { return format(f, 'f', prec, space) }

// Exp is format(f, ".{prec}e") (" .{prec}e" when space is set); Go's
// exponent already has Python's two-digit minimum.
func Exp(f float64, prec int, space bool) string { return format(f, 'e', prec, space) }

// G is format(f, "g"): six significant digits, trailing zeros dropped,
// scientific notation when the exponent is below -4 or at least 6.
func G(f float64) string { return format(f, 'g', 6, false) }

// format lays f out with strconv's verb as Python's format does, spelling
// non-finite values Python's way.
func format(f float64, verb byte, prec int, space bool) string {
	s, ok := nonFinite(f)
	if !ok {
		s = strconv.FormatFloat(f, verb, prec, 64)
	}
	if space && !strings.HasPrefix(s, "-") {
		return " " + s
	}
	return s
}

// ASCIIDigits maps every Unicode decimal digit (category Nd) in s to its
// ASCII digit, as int(), float() and str.isdigit() read them: "٢٠٢٠" is
// "2020".
func ASCIIDigits(s string) string {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return strings.Map(asciiDigit, s)
		}
	}
	return s
}

func asciiDigit(r rune) rune {
	if r <= unicode.MaxASCII || !unicode.Is(unicode.Nd, r) {
		return r
	}
	// Every Nd run is made of whole blocks of ten starting at a zero, so a
	// digit's value is its distance from the run's start, modulo ten.
	start := r
	for start > 0 && unicode.Is(unicode.Nd, start-1) {
		start--
	}
	return '0' + (r-start)%10
}

// FloorDiv is Python's a // b for integers: the quotient rounded toward
// negative infinity, where Go's / truncates toward zero.
func FloorDiv(a, b int64) int64 {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}
