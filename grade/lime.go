package grade

import (
	"context"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/evalmd/evalmd/internal/py"
)

// lime is LIME's grader (fuzzier_match in LIME's grading module at commit
// e03f8c2, used by grader.py and by main.py after a run).
//
// Normal mode: correct when the completion and the ground truth are equal
// after Python's s.lower().strip() and re.sub(r"[^\w\s]", "", s), or when
// the raw ground truth is a substring of the raw completion. Liberal mode
// (grader.py -l) adds: correct when, for some i in 1..4, the first i code
// points of the completion, normalised the same way, equal the ground
// truth's first code point normalised.
//
// Python's semantics are kept where they differ from Go's defaults, since
// they decide grades: \w and \s are Unicode-aware (letters, digits and
// numerals of every script, '_'; Python's isspace set, which includes the
// ASCII separators \x1c-\x1f); lower() maps 'İ' to "i̇" and a final capital
// sigma to 'ς'; slicing counts code points, not bytes.
//
// Quirks of LIME kept on purpose (they are the reference): a ground truth
// whose first character is punctuation matches, in liberal mode, any
// completion that starts with punctuation or a space (both normalise to "");
// the substring rule makes a short ground truth such as "A" match any
// completion containing a capital A. Null handling: LIME writes null for a
// null ground truth and crashes on a null completion; here both give a null
// verdict (see Nullable). An empty ground truth, which LIME's parser never
// produces (an empty answer is null), is also null here: LIME itself would
// call it correct, since every string contains "".
type lime struct{ liberal bool }

func newLime(opt Options) Grader { return lime{liberal: opt.Liberal} }

// Name is "lime".
func (l lime) Name() string { return "lime" }

// Check refuses an empty ground truth, which LIME's rule cannot grade.
func (lime) Check(in Input) error {
	if in.Truth == "" {
		return errNoTruth
	}
	return nil
}

// Grade applies LIME's rule. It never fails.
func (l lime) Grade(_ context.Context, in Input) (Verdict, error) {
	if err := l.Check(in); err != nil {
		return Verdict{Detail: err.Error()}, nil
	}
	ok, why, byLiberal := limeMatch(in.Truth, in.Completion, l.liberal)
	return Verdict{Correct: Bool(ok), Detail: why, Liberal: byLiberal}, nil
}

// limeMatch is fuzzier_match(ground_truth, completion, allow_just_letter);
// byLiberal says only the liberal rule matched.
func limeMatch(truth, completion string, liberal bool) (ok bool, why string, byLiberal bool) {
	if limeNorm(truth) == limeNorm(completion) {
		return true, "equal after normalising", false
	}
	if strings.Contains(completion, truth) {
		return true, "ground truth found in completion", false
	}
	if liberal {
		_, n := utf8.DecodeRuneInString(truth)
		first := limeNorm(truth[:n])
		end := 0
		for i := 1; i <= 4; i++ {
			if end < len(completion) {
				_, w := utf8.DecodeRuneInString(completion[end:])
				end += w
			}
			if limeNorm(completion[:end]) == first {
				return true, "liberal: completion starts with the ground truth's first letter", true
			}
		}
	}
	return false, "no match", false
}

// limeNorm is LIME's fuzzy_match normalisation: Python's
// re.sub(r"[^\w\s]", "", s.lower().strip()).
func limeNorm(s string) string {
	if n, ok := limeNormASCII(s); ok {
		return n
	}
	return limeNormUnicode(s)
}

// limeNormUnicode is limeNorm for any text.
func limeNormUnicode(s string) string {
	s = py.Lower(s)
	s = strings.TrimFunc(s, py.IsSpace)
	// Fast path: most normalised strings keep every rune.
	clean := true
	for _, r := range s {
		if !limePyWord(r) && !py.IsSpace(r) {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range s {
		if limePyWord(r) || py.IsSpace(r) {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// limeNormASCII is limeNorm for ASCII text, in one pass and one
// allocation; ok is false when s is not ASCII.
func limeNormASCII(s string) (string, bool) {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return "", false
		}
	}
	isSpace := func(c byte) bool { return c == ' ' || c >= '\t' && c <= '\r' || c >= 0x1c && c <= 0x1f }
	lo, hi := 0, len(s)
	for lo < hi && isSpace(s[lo]) {
		lo++
	}
	for hi > lo && isSpace(s[hi-1]) {
		hi--
	}
	b := make([]byte, 0, hi-lo)
	for i := lo; i < hi; i++ {
		c := s[i]
		switch {
		case c >= 'A' && c <= 'Z':
			b = append(b, c+'a'-'A')
		case c >= 'a' && c <= 'z', c >= '0' && c <= '9', c == '_', isSpace(c):
			b = append(b, c)
		}
	}
	return string(b), true
}

// limePyWord is what Python's re \w matches in a str pattern: '_' and every
// code point for which str.isalnum() is true (letters Lu Ll Lt Lm Lo,
// digits and numerals Nd Nl No). Combining marks are not word characters.
func limePyWord(r rune) bool {
	if r < 0x80 {
		return r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z'
	}
	return unicode.IsLetter(r) || unicode.IsNumber(r)
}
