package sheet

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/evalmd/evalmd/internal/py"
)

// Accepted answers are answers a grader takes as right besides the
// ground truth. They stand in the answer section after its end token,
// where LIME's strip_end_token drops them, one a line:
//
//	#### answer
//	B) 6<EVAL-ENDCHAR>
//	- accept: (b) six guesses
//	- accept: "  six\n"
//
// The "- " is optional, as in meta lines; the text is trimmed, and one
// that starts with '"' is a JSON string (an answer with line breaks or
// edge spaces).

// acceptKey is an accept line's key, read as meta keys are read.
const acceptKey = "accept"

// acceptProblem is a line after an answer's end token that accepts
// nothing: bad (an error) when it is an accept line that cannot be read,
// else a line that is no accept line (a warning). Line counts from 0, the
// section text's first line.
type acceptProblem struct {
	line int
	msg  string
	bad  bool
}

// tail is the text after the end token CutEnd cuts text at, and its
// offset in text; ok is false when text holds no end token.
func tail(text string) (rest string, off int, ok bool) {
	cut, tok := -1, ""
	for _, t := range endTokens {
		if i := strings.Index(text, t); i > cut {
			cut, tok = i, t
		}
	}
	if cut < 0 {
		return "", 0, false
	}
	off = cut + len(tok)
	return text[off:], off, true
}

// readAccepted reads the accepted answers of an answer section's text,
// in order, and the lines after its end token that accept nothing. The
// rest of the end token's own line counts as a line.
func readAccepted(text string) (accepted []string, probs []acceptProblem) {
	rest, off, ok := tail(text)
	if !ok {
		return nil, nil
	}
	line := strings.Count(text[:off], "\n")
	for l := range strings.Lines(rest) {
		v, isAccept, err := acceptValue(l)
		switch {
		case err != nil:
			probs = append(probs, acceptProblem{line, err.Error(), true})
		case isAccept:
			accepted = append(accepted, v)
		case py.Strip(l) != "":
			probs = append(probs, acceptProblem{line, fmt.Sprintf("line %q after the answer's end token is not an accept line (- accept: TEXT) and is ignored",
				strings.TrimRight(l, "\n")), false})
		}
		line++
	}
	return accepted, probs
}

// acceptValue reads one line after an answer's end token: the text it
// accepts, whether it is an accept line at all, and why an accept line
// cannot be read.
func acceptValue(line string) (text string, isAccept bool, err error) {
	k, v, ok := metaLine(strings.TrimRight(line, "\n"))
	if !ok || k != acceptKey {
		return "", false, nil
	}
	if strings.HasPrefix(v, `"`) {
		if err := json.Unmarshal([]byte(v), &v); err != nil {
			return "", true, fmt.Errorf("accept line: %s is not one JSON string: %w", v, err)
		}
	}
	if v == "" {
		return "", true, errors.New("accept line without an answer")
	}
	return v, true, nil
}

// AcceptLine is the line, newline included, that accepts text in an
// answer section after its end token: "- accept: TEXT", TEXT written as a
// JSON string when it would not read back as itself (edge spaces, line
// breaks, a leading '"', an end token, which would move LIME's cut). The
// error says why text cannot be accepted: empty, or not UTF-8.
func AcceptLine(text string) (string, error) {
	switch {
	case text == "":
		return "", errors.New("an accepted answer cannot be empty")
	case !utf8.ValidString(text):
		return "", errors.New("an accepted answer must be UTF-8 text")
	}
	if py.Strip(text) == text && !strings.ContainsAny(text, "\r\n\x00") && !strings.HasPrefix(text, `"`) && !hasEnd(text) {
		return "- accept: " + text + "\n", nil
	}
	b, err := json.Marshal(text) // escapes '<' and '>': no "<EVAL-ENDCHAR>"
	if err != nil {
		return "", fmt.Errorf("accepted answer: %w", err)
	}
	// '|' only stands inside the string: escaped, no "|EVAL-ENDCHAR|".
	return "- accept: " + strings.ReplaceAll(string(b), "|", `\u007c`) + "\n", nil
}

// checkAccepted warns about the lines after an answer section's end token
// that accept nothing, and fails on an accept line it cannot read: a
// sheet's accepted answers are not dropped unsaid.
func (p *parser) checkAccepted(s Section) {
	_, probs := readAccepted(s.Text)
	for _, pr := range probs {
		if pr.bad {
			if p.fail == nil {
				p.fail = &Error{Diag{p.path, s.Line + 1 + pr.line, pr.msg}}
			}
			continue
		}
		p.warn(s.Line+1+pr.line, "%s", pr.msg)
	}
}
