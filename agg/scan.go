package agg

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"

	"github.com/evalmd/evalmd/result"
)

// scanner reads an output file in one pass over its bytes. Prompts and
// completions are most of a file, so strings are skipped with
// bytes.IndexByte (vectorised) instead of byte by byte, and nothing agg does
// not use is decoded. The structure is checked as it is walked (every
// object and array closed, members separated, literals spelled out), so a
// half-written file fails with the offset where it ends.
type scanner struct {
	data []byte
	pos  int
	// keys are the meta keys kept (Data.keys); "benchmark" is 0.
	keys map[string]uint8
}

// errEOF reports a file that ends inside a value.
var errEOF = errors.New("unexpected end of JSON input")

func (s *scanner) errorf(format string, args ...any) error {
	line := bytes.Count(s.data[:min(s.pos, len(s.data))], []byte("\n")) + 1
	return fmt.Errorf("line %d: %s", line, fmt.Sprintf(format, args...))
}

func (s *scanner) ws() {
	for s.pos < len(s.data) {
		switch s.data[s.pos] {
		case ' ', '\t', '\n', '\r':
			s.pos++
		default:
			return
		}
	}
}

// peek returns the next non-space byte, or 0 at the end.
func (s *scanner) peek() byte {
	s.ws()
	if s.pos >= len(s.data) {
		return 0
	}
	return s.data[s.pos]
}

func (s *scanner) expect(c byte) error {
	switch s.peek() {
	case c:
		s.pos++
		return nil
	case 0:
		return errEOF
	}
	return s.errorf("want %q, found %q", c, s.data[s.pos])
}

// rawString reads a string and returns its bytes between the quotes, and
// whether it holds an escape.
func (s *scanner) rawString() ([]byte, bool, error) {
	if err := s.expect('"'); err != nil {
		return nil, false, err
	}
	start := s.pos
	escaped := false
	for {
		i := bytes.IndexByte(s.data[s.pos:], '"')
		if i < 0 {
			s.pos = len(s.data)
			return nil, false, errEOF
		}
		end := s.pos + i
		// The quote is escaped when an odd number of backslashes precede it.
		n := 0
		for j := end - 1; j >= start && s.data[j] == '\\'; j-- {
			n++
		}
		if !escaped && bytes.IndexByte(s.data[s.pos:end], '\\') >= 0 {
			escaped = true
		}
		s.pos = end + 1
		if n%2 == 0 {
			if at, what := badInString(s.data[start:end], escaped); at >= 0 {
				s.pos = start + at
				return nil, false, s.errorf("%s in string literal", what)
			}
			return s.data[start:end], escaped, nil
		}
	}
}

// badInString finds what JSON forbids between a string's quotes (as
// encoding/json, which result.Parse uses, does): a raw control character,
// or a backslash not starting \" \\ \/ \b \f \n \r \t or \u and four hex
// digits. It returns the offset and what is wrong, or -1. Control
// characters are looked for eight bytes at a time, so a long completion
// costs little more than finding its end.
func badInString(b []byte, escaped bool) (int, string) {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	for i := 0; i < len(b); i += 8 {
		if i+8 <= len(b) {
			// A byte below 0x20 is the only way (x - 0x20 each byte) &^ x
			// can have a high bit set (Hacker's Delight's "hasless").
			if x := binary.LittleEndian.Uint64(b[i:]); (x-ones*0x20)&^x&highs == 0 {
				continue
			}
		}
		for j := i; j < min(i+8, len(b)); j++ {
			if b[j] < 0x20 {
				return j, fmt.Sprintf("invalid character %q", b[j])
			}
		}
	}
	if !escaped {
		return -1, ""
	}
	for i := 0; ; i++ {
		k := bytes.IndexByte(b[i:], '\\')
		if k < 0 {
			return -1, ""
		}
		i += k + 1 // the escaped character
		if i == len(b) {
			return i - 1, "a backslash ends it"
		}
		switch b[i] {
		case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
		case 'u':
			if i+5 > len(b) || !isHex4(b[i+1:i+5]) {
				return i - 1, `\u without four hex digits`
			}
			i += 4
		default:
			return i - 1, fmt.Sprintf("invalid escape %q", b[i-1:i+1])
		}
	}
}

func isHex4(b []byte) bool {
	for _, c := range b {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
			return false
		}
	}
	return true
}

// str reads a string value as bytes (pointing into the file's data when it
// has no escape, so a question name costs no allocation until interned);
// null gives nil, a number or boolean its text (a run id written as a number
// still counts), anything else is skipped. An empty string is non-nil.
func (s *scanner) str() ([]byte, error) {
	switch c := s.peek(); {
	case c == '"':
		raw, esc, err := s.rawString()
		if err != nil {
			return nil, err
		}
		if !esc {
			return raw, nil
		}
		var v string
		// Escapes are rare in names; the standard decoder knows JSON's rules.
		if err := json.Unmarshal(s.data[s.pos-len(raw)-2:s.pos], &v); err != nil {
			return nil, s.errorf("bad string: %v", err)
		}
		return append(make([]byte, 0, len(v)), v...), nil
	case c == '-' || c >= '0' && c <= '9' || c == 't' || c == 'f':
		start := s.pos
		if err := s.skip(); err != nil {
			return nil, err
		}
		return s.data[start:s.pos], nil
	}
	return nil, s.skip()
}

// literal reads true, false or null.
func (s *scanner) literal(word string) error {
	if len(s.data)-s.pos < len(word) {
		return errEOF
	}
	if string(s.data[s.pos:s.pos+len(word)]) != word {
		return s.errorf("bad literal")
	}
	s.pos += len(word)
	return nil
}

// number reads a number's text.
func (s *scanner) number() ([]byte, error) {
	start := s.pos
	for s.pos < len(s.data) {
		c := s.data[s.pos]
		if c >= '0' && c <= '9' || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E' {
			s.pos++
			continue
		}
		break
	}
	if s.pos == start {
		if c := s.data[s.pos]; c == 'N' || c == 'I' {
			return nil, s.errorf("NaN or Infinity is not a JSON number (Python's json writes it for a float it cannot represent)")
		}
		return nil, s.errorf("want a value, found %q", s.data[s.pos])
	}
	if s.pos == len(s.data) {
		return nil, errEOF
	}
	if raw := s.data[start:s.pos]; !isJSONNumber(raw) {
		s.pos = start
		return nil, s.errorf("bad number %q", raw)
	}
	return s.data[start:s.pos], nil
}

// isJSONNumber reports whether b is a number as JSON spells it:
// -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?.
func isJSONNumber(b []byte) bool {
	i := 0
	digits := func() bool {
		j := i
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
		return i > j
	}
	if i < len(b) && b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case !digits():
		return false
	}
	if i < len(b) && b[i] == '.' {
		i++
		if !digits() {
			return false
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if !digits() {
			return false
		}
	}
	return i == len(b)
}

// skip reads any value and drops it.
func (s *scanner) skip() error {
	switch c := s.peek(); c {
	case 0:
		return errEOF
	case '"':
		_, _, err := s.rawString()
		return err
	case '{':
		return s.object(func([]byte) error { return s.skip() })
	case '[':
		return s.array(s.skip)
	case 't':
		return s.literal("true")
	case 'f':
		return s.literal("false")
	case 'n':
		return s.literal("null")
	default:
		_, err := s.number()
		return err
	}
}

// object reads an object, calling member for each key with the scanner at
// the member's value; member must read the value.
func (s *scanner) object(member func(key []byte) error) error {
	if err := s.expect('{'); err != nil {
		return err
	}
	if s.peek() == '}' {
		s.pos++
		return nil
	}
	for {
		raw, esc, err := s.rawString()
		if err != nil {
			return err
		}
		// The key points into the data; callers switch on string(key),
		// which Go compares without allocating.
		key := raw
		if esc {
			var k string
			if err := json.Unmarshal(s.data[s.pos-len(raw)-2:s.pos], &k); err != nil {
				return s.errorf("bad key: %v", err)
			}
			key = []byte(k)
		}
		if err := s.expect(':'); err != nil {
			return err
		}
		if err := member(key); err != nil {
			return err
		}
		switch s.peek() {
		case ',':
			s.pos++
		case '}':
			s.pos++
			return nil
		case 0:
			return errEOF
		default:
			return s.errorf("want ',' or '}' in object, found %q", s.data[s.pos])
		}
	}
}

// array reads an array, calling elem with the scanner at each element.
func (s *scanner) array(elem func() error) error {
	if err := s.expect('['); err != nil {
		return err
	}
	if s.peek() == ']' {
		s.pos++
		return nil
	}
	for {
		if err := elem(); err != nil {
			return err
		}
		switch s.peek() {
		case ',':
			s.pos++
		case ']':
			s.pos++
			return nil
		case 0:
			return errEOF
		default:
			return s.errorf("want ',' or ']' in array, found %q", s.data[s.pos])
		}
	}
}

// boolean reads true or false (ok set); null or another type is skipped.
func (s *scanner) boolean() (v, ok bool, err error) {
	switch s.peek() {
	case 't':
		return true, true, s.literal("true")
	case 'f':
		return false, true, s.literal("false")
	}
	return false, false, s.skip()
}

// float reads a number (ok set); null or another type is skipped.
func (s *scanner) float() (x float64, ok bool, err error) {
	c := s.peek()
	if c != '-' && (c < '0' || c > '9') {
		return 0, false, s.skip()
	}
	raw, err := s.number()
	if err != nil {
		return 0, false, err
	}
	x, err = strconv.ParseFloat(string(raw), 64)
	if err != nil {
		return 0, false, s.errorf("bad number %q", raw)
	}
	return x, true, nil
}

// isNull reads a value and reports whether it was null.
func (s *scanner) isNull() (bool, error) {
	if s.peek() == 'n' {
		return true, s.literal("null")
	}
	return false, s.skip()
}

// decodeOutput reads the members agg needs from an output file. It is used
// instead of result.Parse, which decodes every object twice to keep unknown
// members for rewriting: agg only reads, and a 10,000-file folder makes the
// difference.
func decodeOutput(data []byte, keys map[string]uint8) (*jsFile, error) {
	var f jsFile
	if err := decodeInto(data, &f, keys); err != nil {
		return nil, err
	}
	return &f, nil
}

// decodeInto is decodeOutput into f, reusing its question slice.
func decodeInto(data []byte, f *jsFile, keys map[string]uint8) error {
	s := &scanner{data: data, keys: keys}
	f.Sheet = jsSheet{}
	f.Questions = f.Questions[:0]
	var haveSheet, haveQuestions bool
	err := s.object(func(key []byte) error {
		switch string(key) {
		case "sheet":
			if s.peek() != '{' {
				return s.skip()
			}
			haveSheet = true
			return s.sheet(&f.Sheet)
		case "questions":
			if s.peek() == 'n' {
				// A sheet without questions: evalmd before 2026-11 wrote
				// null where it now writes [], and those files exist.
				haveQuestions = true
				return s.skip()
			}
			if s.peek() != '[' {
				return s.skip()
			}
			haveQuestions = true
			f.Questions = f.Questions[:0]
			return s.array(func() error {
				switch s.peek() {
				case '{':
				case 0:
					return errEOF
				default:
					return s.errorf("question %d is not an object", len(f.Questions)+1)
				}
				// Reuse the meta slice of the question this one replaces.
				var meta []jsMeta
				if n := len(f.Questions); n < cap(f.Questions) {
					meta = f.Questions[:n+1][n].Meta[:0]
				}
				f.Questions = append(f.Questions, jsQuestion{Grade: gradeNull, Meta: meta})
				return s.question(&f.Questions[len(f.Questions)-1], len(f.Questions))
			})
		}
		return s.skip()
	})
	if err != nil {
		return err
	}
	if s.peek() != 0 {
		return s.errorf("data after the top-level object")
	}
	if !haveSheet || !haveQuestions {
		return result.ErrNotOutput
	}
	if err := result.CheckEpoch(f.Sheet.Epoch, f.Sheet.Epochs); err != nil {
		return fmt.Errorf("sheet: %w", err)
	}
	return nil
}

func (s *scanner) sheet(sh *jsSheet) error {
	return s.object(func(key []byte) error {
		var err error
		switch string(key) {
		case "name":
			sh.Name, err = s.str()
		case "run_id":
			sh.RunID, err = s.str()
		case "model_name":
			sh.ModelName, err = s.str()
		case "dry_run":
			sh.DryRun, _, err = s.boolean()
		case "epoch", "epochs":
			var x float64
			var ok bool
			x, ok, err = s.float()
			if err == nil && (!ok || x != math.Trunc(x) || x < 0 || x > result.MaxEpochs+1) {
				err = s.errorf("%s is not a whole number of epochs", key)
			}
			if string(key) == "epoch" {
				sh.Epoch = int(x)
			} else {
				sh.Epochs = int(x)
			}
		case "subset":
			start := s.pos
			err = s.skip()
			sh.Subset = bytes.TrimSpace(s.data[start:s.pos])
		case "meta_data":
			return s.meta(func(k uint8, v []byte) {
				if k == 0 {
					sh.Benchmark = v
				}
			})
		case "settings":
			if s.peek() != '{' {
				return s.skip()
			}
			return s.object(func(key []byte) error {
				switch string(key) {
				case "reasoning_effort":
					v, err := s.str()
					sh.Effort = v
					return err
				case "reasoning_tokens":
					x, _, err := s.float()
					// As result.Parse reads it: a whole number (a
					// budget of 0 or less is none).
					if err == nil && (x != math.Trunc(x) || math.Abs(x) > 1<<62) {
						err = s.errorf("settings: reasoning_tokens is not a whole number of tokens")
					}
					sh.Thinking = int(max(min(x, math.MaxInt32), 0))
					return err
				}
				return s.skip()
			})
		default:
			err = s.skip()
		}
		return err
	})
}

// meta reads a meta_data object (or null), calling set for the keys agg
// keeps ("benchmark" and the metrics' keys), by their index.
func (s *scanner) meta(set func(key uint8, value []byte)) error {
	if s.peek() != '{' {
		return s.skip()
	}
	return s.object(func(key []byte) error {
		k, ok := s.keys[string(key)]
		if !ok && string(key) == "benchmark" {
			k, ok = 0, true
		}
		if !ok {
			return s.skip()
		}
		v, err := s.str()
		if err == nil && v != nil {
			set(k, v)
		}
		return err
	})
}

// question reads the n-th question (from 1).
func (s *scanner) question(q *jsQuestion, n int) error {
	return s.object(func(key []byte) error {
		var err error
		switch string(key) {
		case "name":
			q.Name, err = s.str()
		case "meta_data":
			err = s.meta(func(k uint8, v []byte) {
				if k == 0 {
					q.Benchmark = v
				} else {
					q.Meta = append(q.Meta, jsMeta{k, v})
				}
			})
		case "error":
			var null bool
			null, err = s.isNull()
			q.Errored = !null
		case "completion":
			if s.peek() == '"' {
				var raw []byte
				raw, _, err = s.rawString()
				q.Responded = len(raw) > 0
			} else {
				err = s.skip()
			}
		case "eval_time":
			q.EvalTime, q.HasEvalTime, err = s.float()
		case "grade":
			var v, ok bool
			v, ok, err = s.boolean()
			switch {
			case !ok:
				q.Grade = gradeNull
			case v:
				q.Grade = gradeTrue
			default:
				q.Grade = gradeFalse
			}
		case "input_tokens", "output_tokens", "reasoning_tokens":
			var x float64
			x, _, err = s.float()
			switch string(key) {
			case "input_tokens":
				q.InputTokens = int64(x)
			case "output_tokens":
				q.OutputTokens = int64(x)
			default:
				q.ReasoningTokens = int64(x)
			}
		case "cost":
			q.Cost, q.HasCost, err = s.float()
		case "unanswered":
			q.Unanswered, _, err = s.boolean()
		case "batch_id":
			if s.peek() == '"' {
				var raw []byte
				raw, _, err = s.rawString()
				q.Batched = len(raw) > 0
			} else {
				err = s.skip()
			}
		case "limit":
			if s.peek() == '"' {
				var raw []byte
				raw, _, err = s.rawString()
				q.Limited = len(raw) > 0
			} else {
				err = s.skip()
			}
		case "sub_answers":
			if s.peek() != '[' {
				return s.skip()
			}
			err = s.array(func() error {
				if s.peek() != '{' {
					return s.skip()
				}
				q.SubTotal++
				return s.object(func(k []byte) error {
					if string(k) != "correct" {
						return s.skip()
					}
					b, _, err := s.boolean()
					if b {
						q.SubCorrect++
					}
					return err
				})
			})
		default:
			err = s.skip()
		}
		if err != nil {
			return fmt.Errorf("question %d, field %q: %w", n, key, err)
		}
		return nil
	})
}
