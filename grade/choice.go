package grade

import (
	"context"
	"fmt"
	"strings"
)

// choice grades multiple-choice answers by the option letter, the way a
// careful person reads a reply. The ground truth's letter is its leading
// letter ("B) 6", "(B)", "B" -> B). The completion's letter is found by the
// first rule that applies, in this order:
//
//  1. An explicit decision, the last one in the reply wins (so a chain of
//     thought that ends in "Final answer: C" is read as C): "final answer"
//     first, then "answer", "correct option/choice", "I choose/pick/select",
//     "go with", and "X is correct/right/the answer". Filler between the
//     marker and the letter is skipped ("the answer is probably (B)",
//     {"answer": "B"}).
//  2. A reply that starts with a letter used as an option label: "D",
//     "**(D)**", "D) 75", "D. 75", "d:".
//  3. A hedge ("not sure", "either", "cannot determine", ...) with no
//     decision: no answer.
//  4. Otherwise the option letters the reply mentions; exactly one distinct
//     letter is the answer.
//
// A reply that names several options at its decision ("A or B", "A and C",
// "A/B") gives no answer. A single capital letter followed by an ordinary
// word is an article or pronoun ("A good choice is C", "I think B"), not an
// option. The option set is read from the question's option lines ("A) ...",
// "(b) ..."); without them it is A-E (or up to the truth's letter). For a
// lowercase option set, lowercase letters count everywhere; otherwise a
// lowercase letter counts only after a decision marker or as the whole
// reply.
type choice struct{}

func newChoice(Options) Grader { return choice{} }

// Name is "choice".
func (choice) Name() string { return "choice" }

// Check refuses a ground truth that names no option letter.
func (choice) Check(in Input) error {
	_, err := choiceWant(in.Truth)
	return err
}

// choiceWant is the option letter the ground truth names.
func choiceWant(truth string) (byte, error) {
	want, ok := choiceTruthLetter(truth)
	if !ok {
		return 0, fmt.Errorf("ground truth %q names no option letter", choiceClip(truth))
	}
	return want, nil
}

// Grade compares the completion's option letter with the ground truth's.
func (choice) Grade(_ context.Context, in Input) (Verdict, error) {
	want, err := choiceWant(in.Truth)
	if err != nil {
		return Verdict{Detail: err.Error()}, nil
	}
	set := choiceOptionSet(in.Question, want)
	got, why := choiceExtract(in.Completion, set)
	if got == 0 {
		return Verdict{Correct: Bool(false), Detail: fmt.Sprintf("no answer (%s); want %c", why, want)}, nil
	}
	ok := choiceUpper(got) == choiceUpper(want)
	return Verdict{Correct: Bool(ok), Detail: fmt.Sprintf("extracted %c (%s); want %c", got, why, want)}, nil
}

// choiceSet is the set of option letters a question offers.
type choiceSet struct {
	// Letters holds the valid letters, upper case.
	Letters string
	// Lower is true when the question writes its options in lower case
	// ("a) ...").
	Lower bool
}

func (s choiceSet) has(c byte) bool { return strings.IndexByte(s.Letters, choiceUpper(c)) >= 0 }

// weak reports whether a letter found without a decision marker counts:
// it must be valid and in the option set's case.
func (s choiceSet) weak(c byte) bool {
	if !s.has(c) {
		return false
	}
	return choiceIsLower(c) == s.Lower
}

// choiceTruthLetter returns the option letter of a ground truth such as
// "B", "B) 6", "(b)", "**C.** 12" or "Answer: D".
func choiceTruthLetter(truth string) (byte, bool) {
	t := strings.TrimSpace(choiceStripMarkup(truth))
	low := choiceASCIILower(t)
	for _, p := range []string{"answer:", "answer", "option", "choice"} {
		if strings.HasPrefix(low, p) {
			t = strings.TrimSpace(t[len(p):])
			break
		}
	}
	t = strings.TrimLeft(t, "([{ \t")
	if t == "" || !choiceIsLetter(t[0]) {
		return 0, false
	}
	if len(t) == 1 {
		return t[0], true
	}
	switch t[1] {
	case ')', ']', '}', '.', ':', ' ', '\t', '\n', ',', '-':
		return t[0], true
	}
	return 0, false
}

// choiceOptionSet reads the option letters from the question's option lines
// ("A) 5", "(b) six", "C. 7", "D: no limit"), consecutive from A.
func choiceOptionSet(question string, truth byte) choiceSet {
	var upper, lower []byte
	for rest := question; rest != ""; {
		line, next, _ := strings.Cut(rest, "\n")
		rest = next
		l := strings.TrimLeft(line, " \t>-*`(")
		if len(l) < 3 || !choiceIsLetter(l[0]) {
			continue
		}
		l = strings.TrimLeft(choiceStripMarkup(line), " \t>-")
		l = strings.TrimPrefix(l, "(")
		if len(l) < 3 || !choiceIsLetter(l[0]) {
			continue
		}
		if l[1] != ')' && l[1] != '.' && l[1] != ':' {
			continue
		}
		if l[2] != ' ' && l[2] != '\t' {
			continue
		}
		c := l[0]
		if choiceIsLower(c) {
			if byte(len(lower)) == c-'a' {
				lower = append(lower, c)
			}
		} else if byte(len(upper)) == c-'A' {
			upper = append(upper, c)
		}
	}
	switch {
	case len(upper) >= 2 && len(upper) >= len(lower):
		return choiceSet{Letters: string(upper)}
	case len(lower) >= 2:
		return choiceSet{Letters: strings.ToUpper(string(lower)), Lower: true}
	}
	last := byte('E')
	if u := choiceUpper(truth); u > last && u <= 'Z' {
		last = u
	}
	var b []byte
	for c := byte('A'); c <= last; c++ {
		b = append(b, c)
	}
	return choiceSet{Letters: string(b), Lower: choiceIsLower(truth)}
}

// choiceExtract returns the option letter a completion commits to, in the
// case it was written, and the rule that found it; 0 and the reason when it
// commits to none.
func choiceExtract(completion string, set choiceSet) (byte, string) {
	text := choiceStripMarkup(completion)
	if strings.TrimSpace(text) == "" {
		return 0, "empty reply"
	}
	lower := choiceASCIILower(text) // same byte offsets as text

	// 1. Explicit decisions: "final answer" outranks the others.
	for _, tier := range [][]string{choiceFinalMarkers, choiceMarkers} {
		c, at, found := choiceLastMarked(text, lower, tier, set)
		if found {
			if c == 0 {
				return 0, "names several options"
			}
			return c, "after " + strings.TrimSpace(at)
		}
	}
	if c, several := choiceStatedCorrect(text, lower, set); several {
		return 0, "names several options"
	} else if c != 0 {
		return c, "stated correct"
	}
	// 2. A reply that starts with an option label.
	if c, pos, ok := choiceLeading(text, set); ok {
		if choiceSeveral(text, pos, set) {
			return 0, "names several options"
		}
		return c, "leading letter"
	}
	// 3. Hedges.
	for _, h := range choiceHedges {
		if strings.Contains(lower, h) {
			return 0, "hedge: " + strings.TrimSpace(h)
		}
	}
	// 4. The one option letter mentioned.
	var seen []byte
	for i := 0; i < len(text); i++ {
		c := text[i]
		if !choiceIsLetter(c) || !set.weak(c) || !choiceStandalone(text, i) || choiceWordLike(text, i+1) {
			continue
		}
		if strings.IndexByte(string(seen), choiceUpper(c)) < 0 {
			seen = append(seen, choiceUpper(c))
		}
	}
	switch len(seen) {
	case 0:
		return 0, "no option letter"
	case 1:
		c := seen[0]
		if set.Lower {
			c = c - 'A' + 'a'
		}
		return c, "only option mentioned"
	}
	return 0, "names several options"
}

// Decision markers, lower case, matched at word boundaries.
var (
	choiceFinalMarkers = []string{"final answer", "final choice", "final option"}
	choiceMarkers      = []string{"answer", "correct option", "correct choice", "correct letter",
		"best option", "best choice", "right option", "i choose", "i'll choose", "i would choose",
		"i'd choose", "i pick", "i'll pick", "i would pick", "i'd pick", "i select", "i'd select",
		"i would select", "go with", "going with", "my choice", "choose option", "select option"}
	// Words skipped between a marker and its letter.
	choiceFiller = map[string]bool{"is": true, "would": true, "will": true, "should": true,
		"must": true, "be": true, "the": true, "option": true, "choice": true, "letter": true,
		"correct": true, "answer": true, "therefore": true, "thus": true, "so": true, "then": true,
		"here": true, "probably": true, "likely": true, "definitely": true, "clearly": true,
		"most": true, "i": true, "think": true, "believe": true, "say": true, "it's": true,
		"its": true, "it": true, "my": true, "final": true, "to": true, "with": true, "go": true,
		"choose": true, "pick": true, "select": true, "response": true, "of": true, "this": true,
		"question": true, "for": true, "that": true, "actually": true, "indeed": true, "has": true,
		"been": true, "seems": true, "appears": true, "have": true}
	// Words that may follow an option letter in a sentence ("A is", "B or").
	choiceConnectives = map[string]bool{"or": true, "and": true, "is": true, "was": true,
		"are": true, "because": true, "since": true, "as": true, "but": true, "seems": true,
		"looks": true, "would": true, "should": true, "could": true, "might": true, "may": true,
		"must": true, "appears": true, "fits": true, "matches": true, "makes": true, "being": true,
		"vs": true, "versus": true, "nor": true, "then": true, "so": true, "which": true,
		"for": true, "here": true, "too": true, "also": true, "only": true, "instead": true,
		"rather": true, "not": true, "isn't": true, "wasn't": true, "can't": true, "cannot": true,
		"will": true, "has": true, "does": true, "did": true, "with": true, "says": true,
		"states": true, "claims": true, "gives": true, "reads": true, "lists": true, "suggests": true,
		"describes": true, "mentions": true}
	choiceHedges = []string{"not sure", "unsure", "either", "cannot determine", "can't determine",
		"cannot be determined", "can't be determined", "unable to determine", "it depends",
		"don't know", "do not know", "not enough information", "none of the", "cannot answer",
		"can't answer", "unable to answer", "no way to tell", "could be", "might be", "maybe",
		"perhaps", "possibly", "not clear", "unclear"}
)

// choiceLastMarked finds the last marker of the tier followed by a letter.
// found is true when a marker gives a decision; c is 0 when that decision
// names several options.
func choiceLastMarked(text, lower string, markers []string, set choiceSet) (c byte, marker string, found bool) {
	best, bestPos := -1, 0
	var bestLetter byte
	var at []int
	for _, m := range markers {
		// Collect the marker's occurrences with the forward (vectorised)
		// search, then try them from the last: the last usable one of each
		// marker is the only one that can win.
		at = at[:0]
		for from := 0; ; {
			i := strings.Index(lower[from:], m)
			if i < 0 {
				break
			}
			at = append(at, from+i)
			from += i + 1
		}
		for k := len(at) - 1; k >= 0 && at[k] > best; k-- {
			i, end := at[k], at[k]+len(m)
			if i > 0 && choiceIsAlnum(lower[i-1]) || end < len(lower) && choiceIsAlnum(lower[end]) {
				continue
			}
			if l, pos, ok := choiceAfterMarker(text, end); ok {
				best, bestPos, bestLetter, marker = i, pos, l, m
				break
			}
		}
	}
	if best < 0 {
		return 0, "", false
	}
	if choiceSeveral(text, bestPos, set) {
		return 0, marker, true
	}
	return bestLetter, marker, true
}

// choiceAfterMarker skips filler after a marker and returns the letter that
// follows and the position after it.
func choiceAfterMarker(text string, p int) (byte, int, bool) {
	for steps := 0; steps < 12 && p < len(text); steps++ {
		for p < len(text) {
			if strings.IndexByte(" \t\r\n\"'`:=->([{#.,", text[p]) >= 0 {
				p++
			} else if strings.HasPrefix(text[p:], "–") || strings.HasPrefix(text[p:], "—") {
				p += len("—") // en and em dash are both three bytes
			} else {
				break
			}
		}
		// A single letter?
		if p < len(text) && choiceIsLetter(text[p]) && choiceStandalone(text, p) {
			if !choiceWordLike(text, p+1) && !(text[p] == 'I' || text[p] == 'i') || choiceEndsOption(text, p+1) {
				return text[p], p + 1, true
			}
		}
		w := choiceWordAt(text, p)
		if w == "" || !choiceFiller[strings.ToLower(w)] {
			return 0, 0, false
		}
		p += len(w)
	}
	return 0, 0, false
}

// choiceEndsOption reports whether the letter before p is closed like an
// option label: ")", "]", ":" or end of text.
func choiceEndsOption(text string, p int) bool {
	if p >= len(text) {
		return true
	}
	switch text[p] {
	case ')', ']', ':', '"', '\'', '}':
		return true
	case '.':
		return p+1 >= len(text) || !choiceIsLetter(text[p+1])
	}
	return false
}

// choiceStatedCorrect finds "X is correct", "X is the answer" and similar,
// the last one winning.
func choiceStatedCorrect(text, lower string, set choiceSet) (byte, bool) {
	var c byte
	several := false
	for _, m := range []string{" is correct", " is the correct", " is right", " is the right",
		" is the answer", " is the best", " is true", " are correct"} {
		from := 0
		for {
			i := strings.Index(lower[from:], m)
			if i < 0 {
				break
			}
			i += from
			from = i + 1
			if e := i + len(m); e < len(lower) && choiceIsAlnum(lower[e]) {
				continue
			}
			// Walk back over "**(B)**"-style decoration to the letter.
			j := i - 1
			for j >= 0 && strings.IndexByte(")]:.\"'", text[j]) >= 0 {
				j--
			}
			if j < 0 || !choiceIsLetter(text[j]) || !choiceStandalone(text, j) || !set.has(text[j]) {
				continue
			}
			if m == " are correct" || choiceSeveralBefore(text, j, set) {
				several = true
				continue
			}
			c = text[j]
		}
	}
	if c != 0 {
		several = false
	}
	return c, several
}

// choiceSeveralBefore reports "A or B is correct": a connective and another
// option letter right before the letter at j.
func choiceSeveralBefore(text string, j int, set choiceSet) bool {
	k := j - 1
	for k >= 0 && strings.IndexByte(" (\"'", text[k]) >= 0 {
		k--
	}
	start := k
	for start >= 0 && choiceIsLetter(text[start]) {
		start--
	}
	w := strings.ToLower(text[start+1 : k+1])
	if w != "or" && w != "and" && w != "nor" && !(k >= 0 && (text[k] == '/' || text[k] == ',')) {
		return false
	}
	for m := start; m >= 0 && m > start-6; m-- {
		if choiceIsLetter(text[m]) && choiceStandalone(text, m) && set.has(text[m]) {
			return true
		}
	}
	return false
}

// choiceLeading finds an option label at the start of the reply: "D",
// "(D)", "D) 75", "D. 75", "D: 75", "D\n...".
func choiceLeading(text string, set choiceSet) (byte, int, bool) {
	p := 0
	for p < len(text) && strings.IndexByte(" \t\r\n\"'`([{>#", text[p]) >= 0 {
		p++
	}
	if p >= len(text) || !choiceIsLetter(text[p]) || !choiceStandalone(text, p) {
		return 0, 0, false
	}
	c := text[p]
	rest := strings.TrimRight(text[p+1:], " \t\r\n\"'`)]}.!")
	if rest == "" || choiceEndsOption(text, p+1) || text[p+1] == '\n' || strings.HasPrefix(text[p+1:], " -") {
		if !set.has(c) && rest != "" {
			return 0, 0, false
		}
		return c, p + 1, true
	}
	return 0, 0, false
}

// choiceSeveral reports whether, on the same line after position p, a
// connective ("or", "and", "/", ",", "&") introduces another option letter:
// "A or B", "A and C", "A) 5 or B) 6".
func choiceSeveral(text string, p int, set choiceSet) bool {
	line := text[p:]
	if i := strings.IndexByte(line, '\n'); i >= 0 {
		line = line[:i]
	}
	for i := 0; i < len(line); i++ {
		conn := 0
		switch {
		case line[i] == '/' || line[i] == ',' || line[i] == '&':
			conn = 1
		case choiceWordIs(line, i, "or"), choiceWordIs(line, i, "and"), choiceWordIs(line, i, "nor"):
			if line[i] == 'o' || line[i] == 'O' {
				conn = 2
			} else {
				conn = 3
			}
		}
		if conn == 0 {
			continue
		}
		k := i + conn
		for k < len(line) && strings.IndexByte(" \t(\"'*", line[k]) >= 0 {
			k++
		}
		for _, w := range []string{"option ", "choice ", "maybe ", "possibly ", "perhaps "} {
			if len(line)-k >= len(w) && strings.EqualFold(line[k:k+len(w)], w) {
				k += len(w)
			}
		}
		if k < len(line) && choiceIsLetter(line[k]) && choiceStandalone(line, k) && set.has(line[k]) &&
			!choiceWordLike(line, k+1) && (choiceIsLower(line[k]) == set.Lower || choiceEndsOption(line, k+1)) {
			return true
		}
	}
	return false
}

// choiceWordIs reports whether the word w (lower case) starts at line[i].
func choiceWordIs(line string, i int, w string) bool {
	if i > 0 && choiceIsAlnum(line[i-1]) || i+len(w) > len(line) {
		return false
	}
	if !strings.EqualFold(line[i:i+len(w)], w) {
		return false
	}
	return i+len(w) == len(line) || !choiceIsAlnum(line[i+len(w)])
}

// choiceStandalone reports whether the letter at i stands alone: not part of
// a word, a number, a contraction ("A's") or an abbreviation ("e.g.",
// "U.S.").
func choiceStandalone(text string, i int) bool {
	if i > 0 {
		p := text[i-1]
		if choiceIsAlnum(p) || p == '\'' && i > 1 && choiceIsAlnum(text[i-2]) || p == '-' || p == '_' || p == '$' || p >= 0x80 {
			return false
		}
		if p == '.' && i > 1 && choiceIsLetter(text[i-2]) {
			return false
		}
	}
	if i+1 < len(text) {
		n := text[i+1]
		if choiceIsAlnum(n) || n == '-' || n == '_' || n >= 0x80 {
			return false
		}
		if (n == '\'' || n == '.') && i+2 < len(text) && choiceIsLetter(text[i+2]) {
			return false
		}
	}
	return true
}

// choiceWordLike reports whether the text at p (just after a letter) reads
// as the rest of a sentence in which the letter is a word: a space and then
// an ordinary lower-case word ("A good choice", "I think").
func choiceWordLike(text string, p int) bool {
	if p >= len(text) || text[p] != ' ' {
		return false
	}
	for p < len(text) && text[p] == ' ' {
		p++
	}
	w := choiceWordAt(text, p)
	if w == "" || !choiceIsLower(w[0]) {
		return false
	}
	return !choiceConnectives[w]
}

// choiceWordAt returns the word (letters and apostrophes) starting at p.
func choiceWordAt(text string, p int) string {
	e := p
	for e < len(text) && (choiceIsLetter(text[e]) || text[e] == '\'' && e > p) {
		e++
	}
	return text[p:e]
}

// choiceStripMarkup removes markdown emphasis and code marks, which models
// wrap around answers ("**(D)**", "`B`"): every '*' and '`', and "__".
func choiceStripMarkup(s string) string {
	if !strings.ContainsAny(s, "*_`") {
		return s
	}
	b := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '*' || c == '`':
		case c == '_' && i+1 < len(s) && s[i+1] == '_':
			i++
		default:
			b = append(b, c)
		}
	}
	return string(b)
}

func choiceClip(s string) string {
	if len(s) > 40 {
		return s[:40] + "..."
	}
	return s
}

// choiceASCIILower lowers ASCII letters only, so that byte offsets in the
// result are offsets in s (strings.ToLower can change a text's length).
func choiceASCIILower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'A' && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

func choiceIsLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
func choiceIsLower(c byte) bool  { return c >= 'a' && c <= 'z' }
func choiceIsAlnum(c byte) bool  { return choiceIsLetter(c) || c >= '0' && c <= '9' }
func choiceUpper(c byte) byte {
	if choiceIsLower(c) {
		return c - 'a' + 'A'
	}
	return c
}
