package codemode

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/evalmd/evalmd/internal/py"
)

// Rule names how the code is taken out of a model's text (the
// code_extract meta, run --code-extract).
type Rule string

const (
	// Baseline is example_postprocess's rule, applied to prompt +
	// completion because llama-cli echoes the prompt: the text after the
	// second "return", its first line, stripped, with "[end of text]"
	// removed, is the expression answer(df) returns.
	Baseline Rule = "baseline"
	// Lenient reads code as chat models write it: a fenced block, a
	// return line, a whole def answer function, or a bare expression.
	Lenient Rule = "lenient"
)

// ParseRule reads a rule name; "" is Baseline.
func ParseRule(s string) (Rule, error) {
	switch Rule(s) {
	case "", Baseline:
		return Baseline, nil
	case Lenient:
		return Lenient, nil
	}
	return "", fmt.Errorf("code_extract %q: want baseline or lenient", s)
}

// lead is example_postprocess's function head; the expression follows it.
const lead = "def answer(df):\n    return "

// endOfText is what llama-cli prints after the last generated token.
const endOfText = "[end of text]"

// extractError is a completion from which no code could be taken. Type and
// Msg are what the original reports: the baseline's split("return")[2] on
// a text with fewer than two "return"s is an IndexError, "list index out
// of range", and becomes the answer "__CODE_ERROR__: list index out of
// range".
type extractError struct {
	Type string // Python's exception class, or "ExtractError" (lenient rule)
	Msg  string
}

func (e *extractError) Error() string { return e.Msg }

// Extract takes the code to run out of a model's text by rule. The code is
// always the source of a function answer(df), ready for Program: for a
// bare expression EXPR it is "def answer(df):\n    return EXPR", byte for
// byte what example_postprocess executes. Text that is not valid UTF-8 is
// read with U+FFFD for the invalid bytes. Failure turns the error into
// its Outcome: the Python exception class and message the original
// reports.
func Extract(rule Rule, prompt, completion string) (string, error) {
	prompt, completion = validUTF8(prompt), validUTF8(completion)
	switch rule {
	case Baseline, "":
		return extractBaseline(prompt + completion)
	case Lenient:
		return extractLenient(prompt, completion)
	}
	return "", &extractError{Type: "ExtractError", Msg: fmt.Sprintf("unknown extraction rule %q", rule)}
}

func extractBaseline(response string) (string, error) {
	parts := strings.Split(response, "return")
	if len(parts) < 3 {
		return "", &extractError{Type: "IndexError", Msg: "list index out of range"}
	}
	line, _, _ := strings.Cut(parts[2], "\n")
	return lead + strings.ReplaceAll(py.Strip(line), endOfText, ""), nil
}

var (
	defAnswerRe = regexp.MustCompile(`^[ \t]*def[ \t]+answer[ \t]*\(`)
	returnRe    = regexp.MustCompile(`^[ \t]*return\b[ \t]*(.*)$`)
	importRe    = regexp.MustCompile(`^[ \t]*(import|from)[ \t]`)
	fenceRe     = regexp.MustCompile("^[ \t]*```")
)

// extractLenient reads a chat model's reply. When the prompt ends with
// "return" and the reply's first line starts with a blank and has code, the
// reply continues that return (a completion model): that line is the
// expression (after its own "return", when the reply repeats it).
// Otherwise the first fenced block with
// any code in it is the snippet, else the whole reply; in it, in order:
//  1. a def answer(...) function (with the snippet's import lines at its
//     indentation before it);
//  2. a fenced block with a return line is the body of answer(df) (what
//     follows a return never runs); outside a block, only the first
//     return line's expression is taken (lines around it are prose);
//  3. in a fenced block, its last line is the returned expression and the
//     lines before it the body; outside a block, the first non-blank line
//     (without enclosing backticks) is the expression.
func extractLenient(prompt, completion string) (string, error) {
	text := strings.ReplaceAll(completion, endOfText, "")
	text = strings.ReplaceAll(text, "\r\n", "\n")
	if first, _, _ := strings.Cut(text, "\n"); strings.HasSuffix(strings.TrimRight(prompt, " \t"), "return") &&
		(strings.HasPrefix(first, " ") || strings.HasPrefix(first, "\t")) && !fenceRe.MatchString(first) && py.Strip(first) != "" {
		// A completion model continuing the prompt's "return"; a chat
		// model may write the return again.
		if m := returnRe.FindStringSubmatch(first); m != nil {
			return lead + py.Strip(m[1]), nil
		}
		return lead + py.Strip(first), nil
	}
	lines, fenced := fencedBlock(strings.Split(text, "\n"))
	lines = trimBlank(lines)
	if len(lines) == 0 {
		return "", &extractError{Type: "ExtractError", Msg: "no code in the completion"}
	}
	if code, ok := defAnswer(lines); ok {
		return code, nil
	}
	if !fenced {
		for _, l := range lines {
			if m := returnRe.FindStringSubmatch(l); m != nil {
				return lead + py.Strip(m[1]), nil
			}
		}
		return lead + unquoteInline(py.Strip(lines[0])), nil
	}
	indent := minIndent(lines)
	for _, l := range lines {
		if returnRe.MatchString(l) {
			// The block is the body: a return over several lines stays
			// whole, and what follows it never runs.
			return "def answer(df):\n" + strings.TrimSuffix(indentBody(lines, indent), "\n"), nil
		}
	}
	last := len(lines) - 1
	return "def answer(df):\n" + indentBody(lines[:last], indent) + "    return " + py.Strip(lines[last]), nil
}

// indentBody re-indents lines from indent to four spaces, one per line
// with its newline.
func indentBody(lines []string, indent int) string {
	var b strings.Builder
	for _, l := range lines {
		if strings.TrimSpace(l) == "" {
			b.WriteString("\n")
			continue
		}
		b.WriteString("    " + dedent(l, indent) + "\n")
	}
	return b.String()
}

// fencedBlock returns the lines of the first fenced block that has a
// non-blank line (an unclosed fence runs to the end), or, when there is
// none, the lines that are not fences and false.
func fencedBlock(lines []string) ([]string, bool) {
	for i := 0; i < len(lines); i++ {
		if !fenceRe.MatchString(lines[i]) {
			continue
		}
		j := i + 1
		for j < len(lines) && !fenceRe.MatchString(lines[j]) {
			j++
		}
		if len(trimBlank(lines[i+1:j])) > 0 {
			return lines[i+1 : j], true
		}
		i = j
	}
	var rest []string
	for _, l := range lines {
		if !fenceRe.MatchString(l) {
			rest = append(rest, l)
		}
	}
	return rest, false
}

// defAnswer finds a def answer( line and returns that function (the line
// and every following blank or deeper-indented line), dedented, after the
// import lines at the same indentation that precede it.
func defAnswer(lines []string) (string, bool) {
	for i, l := range lines {
		if !defAnswerRe.MatchString(l) {
			continue
		}
		indent := indentOf(l)
		var out []string
		for _, p := range lines[:i] {
			if importRe.MatchString(p) && indentOf(p) == indent {
				out = append(out, dedent(p, indent))
			}
		}
		out = append(out, dedent(l, indent))
		for _, n := range lines[i+1:] {
			if strings.TrimSpace(n) != "" && indentOf(n) <= indent {
				break
			}
			out = append(out, dedent(n, indent))
		}
		return strings.Join(trimBlank(out), "\n"), true
	}
	return "", false
}

// unquoteInline drops one pair of enclosing backticks (`df.shape[0]`).
func unquoteInline(s string) string {
	if len(s) >= 2 && s[0] == '`' && s[len(s)-1] == '`' {
		return py.Strip(s[1 : len(s)-1])
	}
	return s
}

func trimBlank(lines []string) []string {
	for len(lines) > 0 && strings.TrimSpace(lines[0]) == "" {
		lines = lines[1:]
	}
	for len(lines) > 0 && strings.TrimSpace(lines[len(lines)-1]) == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}

// indentOf is the width of l's leading blanks, a tab counting as one.
func indentOf(l string) int { return len(l) - len(strings.TrimLeft(l, " \t")) }

func minIndent(lines []string) int {
	min := -1
	for _, l := range lines {
		if strings.TrimSpace(l) == "" {
			continue
		}
		if n := indentOf(l); min < 0 || n < min {
			min = n
		}
	}
	return max(min, 0)
}

// dedent drops up to n leading blanks.
func dedent(l string, n int) string {
	i := 0
	for i < n && i < len(l) && (l[i] == ' ' || l[i] == '\t') {
		i++
	}
	return l[i:]
}
