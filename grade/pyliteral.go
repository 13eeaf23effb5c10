package grade

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// pyMaxDepth bounds the nesting of a Python literal, as encoding/json
// bounds JSON's, so that a reply of a million '[' is an error, not a
// stack overflow.
const pyMaxDepth = 1000

// pyParse reads s, trimmed, as one Python literal, the notation of
// DSBench's truths (`{'Q': 1, '# of words': 7}`), into the values
// encoding/json gives: dicts are objects (a key that is not a string is
// its literal's text: {1: 'a'} has member "1"), lists, tuples and sets
// are arrays, True, False and None are true, false and null, numbers are
// json.Number. What ast.literal_eval reads beyond that (complex numbers,
// bytes, arithmetic) is an error.
func pyParse(s string) (any, error) {
	v, n, err := pyPrefix(s)
	if err != nil {
		return nil, err
	}
	if rest := strings.TrimSpace(s[n:]); rest != "" {
		return nil, fmt.Errorf("python literal: text after the value at byte %d", n)
	}
	return v, nil
}

// pyPrefix reads the Python literal at the start of s (after space) and
// returns it with the bytes it took.
func pyPrefix(s string) (any, int, error) {
	p := &pyParser{s: s}
	v, err := p.value(0)
	if err != nil {
		return nil, 0, err
	}
	return v, p.i, nil
}

type pyParser struct {
	s string
	i int
}

func (p *pyParser) errorf(format string, a ...any) error {
	return fmt.Errorf("python literal: at byte %d: %s", p.i, fmt.Sprintf(format, a...))
}

func (p *pyParser) space() {
	for p.i < len(p.s) && strings.IndexByte(" \t\r\n", p.s[p.i]) >= 0 {
		p.i++
	}
}

func (p *pyParser) value(depth int) (any, error) {
	if depth > pyMaxDepth {
		return nil, p.errorf("nested too deep")
	}
	p.space()
	if p.i >= len(p.s) {
		return nil, p.errorf("unexpected end")
	}
	switch c := p.s[p.i]; {
	case c == '{':
		return p.dict(depth)
	case c == '[':
		return p.seq(depth, ']')
	case c == '(':
		return p.seq(depth, ')')
	case c == '\'' || c == '"':
		return p.str()
	case c == '-' || c == '+' || c == '.' || c >= '0' && c <= '9':
		return p.number()
	}
	for word, v := range map[string]any{"True": true, "False": false, "None": nil} {
		if strings.HasPrefix(p.s[p.i:], word) && !pyIdent(p.s, p.i+len(word)) {
			p.i += len(word)
			return v, nil
		}
	}
	if c := p.s[p.i]; c == 'u' || c == 'U' || c == 'r' || c == 'R' {
		if p.i+1 < len(p.s) && (p.s[p.i+1] == '\'' || p.s[p.i+1] == '"') {
			raw := c == 'r' || c == 'R'
			p.i++
			if raw {
				return p.rawStr()
			}
			return p.str()
		}
	}
	return nil, p.errorf("not a literal")
}

// pyIdent says whether s[i] continues an identifier (so "Truest" is not
// True).
func pyIdent(s string, i int) bool {
	return i < len(s) && (choiceIsAlnum(s[i]) || s[i] == '_')
}

// items reads comma-separated elements up to end, allowing a trailing
// comma, calling each for every element.
func (p *pyParser) items(end byte, each func() error) error {
	p.i++ // the opening bracket
	for {
		p.space()
		if p.i < len(p.s) && p.s[p.i] == end {
			p.i++
			return nil
		}
		if err := each(); err != nil {
			return err
		}
		p.space()
		switch {
		case p.i >= len(p.s):
			return p.errorf("unexpected end, want %q", end)
		case p.s[p.i] == ',':
			p.i++
		case p.s[p.i] != end:
			return p.errorf("want ',' or %q", end)
		}
	}
}

func (p *pyParser) seq(depth int, end byte) (any, error) {
	out := []any{}
	err := p.items(end, func() error {
		v, err := p.value(depth + 1)
		out = append(out, v)
		return err
	})
	return out, err
}

// dict reads a dict, or a set (arrays, as a set is written with braces
// and no colons).
func (p *pyParser) dict(depth int) (any, error) {
	obj := map[string]any{}
	var set []any
	err := p.items('}', func() error {
		k, err := p.value(depth + 1)
		if err != nil {
			return err
		}
		p.space()
		if p.i >= len(p.s) || p.s[p.i] != ':' {
			if len(obj) > 0 {
				return p.errorf("want ':'")
			}
			set = append(set, k)
			return nil
		}
		if set != nil {
			return p.errorf("a ':' in a set")
		}
		p.i++
		v, err := p.value(depth + 1)
		if err != nil {
			return err
		}
		obj[pyKey(k)] = v
		return nil
	})
	if set != nil {
		return set, err
	}
	return obj, err
}

// pyKey is a dict key as a member name: a string as it is, anything else
// as JSON writes it (1 is "1", None is "null").
func pyKey(k any) string {
	if s, ok := k.(string); ok {
		return s
	}
	b, _ := json.Marshal(k)
	return string(b)
}

func (p *pyParser) number() (any, error) {
	start := p.i
	for p.i < len(p.s) && strings.IndexByte("+-0123456789.eE_", p.s[p.i]) >= 0 {
		if (p.s[p.i] == '+' || p.s[p.i] == '-') && p.i > start && p.s[p.i-1] != 'e' && p.s[p.i-1] != 'E' {
			break
		}
		p.i++
	}
	text := strings.ReplaceAll(strings.TrimPrefix(p.s[start:p.i], "+"), "_", "")
	f, err := strconv.ParseFloat(text, 64)
	if err != nil && !isRangeErr(err) {
		p.i = start
		return nil, p.errorf("not a number")
	}
	// json.Number wants JSON's form (no "00", ".5" or "5."); a number out
	// of float64's range stays as written, compared by its text.
	if !json.Valid([]byte(text)) && err == nil {
		return json.Number(strconv.FormatFloat(f, 'g', -1, 64)), nil
	}
	return json.Number(text), nil
}

func isRangeErr(err error) bool {
	ne, ok := err.(*strconv.NumError)
	return ok && ne.Err == strconv.ErrRange
}

// str reads a quoted string with Python's escapes (one or three quotes).
func (p *pyParser) str() (any, error) {
	q := p.s[p.i]
	triple := strings.HasPrefix(p.s[p.i:], strings.Repeat(string(q), 3))
	closing := string(q)
	if triple {
		closing = strings.Repeat(closing, 3)
		p.i += 3
	} else {
		p.i++
	}
	var b strings.Builder
	for p.i < len(p.s) {
		if strings.HasPrefix(p.s[p.i:], closing) {
			p.i += len(closing)
			return b.String(), nil
		}
		c := p.s[p.i]
		if c == '\n' && !triple {
			break
		}
		if c != '\\' {
			b.WriteByte(c)
			p.i++
			continue
		}
		if err := p.escape(&b); err != nil {
			return nil, err
		}
	}
	return nil, p.errorf("unterminated string")
}

// rawStr reads an r'...' string: backslashes stay.
func (p *pyParser) rawStr() (any, error) {
	q := p.s[p.i]
	p.i++
	start := p.i
	for p.i < len(p.s) && p.s[p.i] != q && p.s[p.i] != '\n' {
		if p.s[p.i] == '\\' && p.i+1 < len(p.s) {
			p.i++
		}
		p.i++
	}
	if p.i >= len(p.s) || p.s[p.i] != q {
		return nil, p.errorf("unterminated string")
	}
	p.i++
	return p.s[start : p.i-1], nil
}

// escape reads one backslash escape at p.i into b.
func (p *pyParser) escape(b *strings.Builder) error {
	if p.i+1 >= len(p.s) {
		return p.errorf("unterminated string")
	}
	c := p.s[p.i+1]
	p.i += 2
	if r, ok := map[byte]string{'n': "\n", 't': "\t", 'r': "\r", '\\': "\\", '\'': "'", '"': "\"", 'a': "\a", 'b': "\b", 'f': "\f", 'v': "\v", '0': "\x00", '\n': ""}[c]; ok {
		b.WriteString(r)
		return nil
	}
	width := map[byte]int{'x': 2, 'u': 4, 'U': 8}[c]
	if width == 0 {
		b.WriteByte('\\') // Python keeps an unknown escape as written
		b.WriteByte(c)
		return nil
	}
	if p.i+width > len(p.s) {
		return p.errorf("short \\%c escape", c)
	}
	n, err := strconv.ParseUint(p.s[p.i:p.i+width], 16, 32)
	if err != nil || n > utf8.MaxRune {
		return p.errorf("bad \\%c escape", c)
	}
	p.i += width
	b.WriteRune(rune(n))
	return nil
}
