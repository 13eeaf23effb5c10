package verdict

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// header opens a verdicts file evalmd makes.
const header = "# evalmd verdicts: a person's grade of one answer a line (docs/grading.md).\n" +
	"# right|wrong sheet= q= [n=] model= truth= answer= (digests) by= at= grader= reason= said=\n"

// saidRunes bounds Said as written: enough to recognise the answer.
const saidRunes = 60

// Line is v as a line of the file, without its newline.
func Line(v Verdict) string {
	var b strings.Builder
	b.WriteString(word(v.Right))
	field := func(k, val string) {
		b.WriteString(" " + k + "=" + quote(val))
	}
	field("sheet", v.Sheet)
	field("q", v.Question)
	if v.N > 1 {
		field("n", strconv.Itoa(v.N))
	}
	field("model", v.Model)
	field("truth", v.Truth)
	field("answer", v.Answer)
	if v.By != "" {
		field("by", v.By)
	}
	if !v.At.IsZero() {
		field("at", v.At.UTC().Format(time.RFC3339))
	}
	field("grader", GradeWord(v.Grader))
	if v.Reason != "" {
		field("reason", v.Reason)
	}
	if said := shorten(v.Said); said != "" {
		field("said", said)
	}
	return b.String()
}

func word(right bool) string {
	if right {
		return "right"
	}
	return "wrong"
}

// GradeWord names a grade as the file does: right, wrong, or none for
// no grade.
func GradeWord(g *bool) string {
	if g == nil {
		return "none"
	}
	return word(*g)
}

// shorten is s on one line, cut to saidRunes.
func shorten(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if utf8.RuneCountInString(s) <= saidRunes {
		return s
	}
	return string([]rune(s)[:saidRunes]) + "…"
}

// quote writes val bare when it reads back as itself, else as a Go string.
func quote(val string) string {
	if val == "" || strings.ContainsAny(val, "\"\\") || strings.IndexFunc(val, func(r rune) bool {
		return unicode.IsSpace(r) || !unicode.IsPrint(r)
	}) >= 0 {
		return strconv.Quote(val)
	}
	return val
}

// ParseLine reads one line of the file: a verdict, or ok false for a
// blank line or a comment.
func ParseLine(line string) (v Verdict, ok bool, err error) {
	line = strings.TrimSpace(line)
	if line == "" || strings.HasPrefix(line, "#") {
		return v, false, nil
	}
	w, rest, _ := strings.Cut(line, " ")
	switch w {
	case "right", "wrong":
		v.Right = w == "right"
	default:
		return v, false, fmt.Errorf("starts with %q, not right or wrong", shorten(w))
	}
	seen := map[string]bool{}
	for rest = strings.TrimLeft(rest, " \t"); rest != ""; rest = strings.TrimLeft(rest, " \t") {
		k, val, tail, err := nextField(rest)
		if err != nil {
			return v, false, err
		}
		if seen[k] {
			return v, false, fmt.Errorf("%s= twice", k)
		}
		seen[k] = true
		if err := v.set(k, val); err != nil {
			return v, false, err
		}
		rest = tail
	}
	for _, k := range []string{"sheet", "q", "model", "truth", "answer"} {
		if !seen[k] {
			return v, false, fmt.Errorf("no %s=", k)
		}
	}
	if v.N == 0 {
		v.N = 1
	}
	return v, true, nil
}

// nextField reads `key=value` from the start of s.
func nextField(s string) (k, val, rest string, err error) {
	eq := strings.IndexByte(s, '=')
	if sp := strings.IndexAny(s, " \t"); eq < 0 || sp >= 0 && sp < eq {
		return "", "", "", fmt.Errorf("%q is not key=value", shorten(strings.Fields(s)[0]))
	}
	k, s = s[:eq], s[eq+1:]
	if strings.HasPrefix(s, `"`) {
		q, err := strconv.QuotedPrefix(s)
		if err != nil {
			return "", "", "", fmt.Errorf("%s=: an unfinished quoted value", k)
		}
		val, _ = strconv.Unquote(q)
		rest = s[len(q):]
		if rest != "" && rest[0] != ' ' && rest[0] != '\t' {
			return "", "", "", fmt.Errorf("%s=: text after its quoted value", k)
		}
		return k, val, rest, nil
	}
	end := strings.IndexAny(s, " \t")
	if end < 0 {
		end = len(s)
	}
	return k, s[:end], s[end:], nil
}

func (v *Verdict) set(k, val string) error {
	var err error
	switch k {
	case "sheet":
		v.Sheet = val
	case "q":
		v.Question = val
	case "n":
		v.N, err = strconv.Atoi(val)
		if err == nil && v.N < 1 {
			err = errors.New("below 1")
		}
	case "model":
		v.Model = val
	case "truth":
		v.Truth = val
	case "answer":
		v.Answer = val
	case "by":
		v.By = val
	case "at":
		v.At, err = time.Parse(time.RFC3339, val)
	case "grader":
		switch val {
		case "right", "wrong":
			g := val == "right"
			v.Grader = &g
		case "none":
		default:
			err = errors.New("not right, wrong or none")
		}
	case "reason":
		v.Reason = val
	case "said":
		v.Said = val
	default:
		return fmt.Errorf("unknown field %q (sheet, q, n, model, truth, answer, by, at, grader, reason, said)", shorten(k))
	}
	if err != nil {
		return fmt.Errorf("%s=%s: %w", k, shorten(val), err)
	}
	return nil
}

// LineError is a line of a verdicts file that is no verdict.
type LineError struct {
	Path string
	Line int
	Err  error
}

func (e *LineError) Error() string { return fmt.Sprintf("%s:%d: %v", e.Path, e.Line, e.Err) }
func (e *LineError) Unwrap() error { return e.Err }

// Parse reads a verdicts file's bytes: the verdicts of every line it can
// read, and a *LineError for each it cannot.
func Parse(path string, data []byte) (*Set, []error) {
	var vs []Verdict
	var bad []error
	for i, line := range lines(data) {
		v, ok, err := ParseLine(line)
		if err != nil {
			bad = append(bad, &LineError{Path: path, Line: i + 1, Err: err})
		}
		if ok {
			v.Line = i + 1
			vs = append(vs, v)
		}
	}
	return NewSet(path, vs), bad
}

func lines(data []byte) []string {
	if len(data) == 0 {
		return nil
	}
	return strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
}

// merge adds vs to the file's lines: a verdict on an answer the file
// judges already replaces its line where it stands, and a new one goes
// before the first verdict that sorts after it. Every other line (a
// comment, one that is no verdict) is kept as it is.
func merge(data []byte, vs []Verdict) []byte {
	ls := lines(data)
	if len(ls) == 0 {
		ls = lines([]byte(header))
	}
	for _, v := range vs {
		ls = mergeOne(ls, v)
	}
	var b bytes.Buffer
	for _, l := range ls {
		b.WriteString(l + "\n")
	}
	return b.Bytes()
}

func mergeOne(ls []string, v Verdict) []string {
	at := len(ls)
	for i, l := range ls {
		old, ok, _ := ParseLine(l)
		if !ok {
			continue
		}
		if old.Key == v.Key {
			ls[i] = Line(v)
			return ls
		}
		if at == len(ls) && compareKeys(v.Key, old.Key) < 0 {
			at = i
		}
	}
	return append(ls[:at:at], append([]string{Line(v)}, ls[at:]...)...)
}

func compareKeys(a, b Key) int {
	return cmp.Or(cmp.Compare(a.Sheet, b.Sheet), cmp.Compare(a.Question, b.Question), cmp.Compare(a.N, b.N),
		cmp.Compare(a.Model, b.Model), cmp.Compare(a.Truth, b.Truth), cmp.Compare(a.Answer, b.Answer))
}
