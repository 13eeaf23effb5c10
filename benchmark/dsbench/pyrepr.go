package dsbench

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"strconv"
	"strings"
	"unicode"

	"github.com/evalmd/evalmd/internal/py"
)

// member is one key and value of a JSON object, kept in written order
// (Python dicts keep insertion order, so str() prints keys as written).
type member struct {
	key   string
	value any
}

// decodeOrdered decodes one JSON value into string, json.Number, []any or
// []member (an object), keeping object keys in order. A key written twice
// keeps its first position and its last value, as a Python dict display does.
func decodeOrdered(data []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	return decodeValue(dec)
}

func decodeValue(dec *json.Decoder) (any, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '[':
			var list []any
			for dec.More() {
				v, err := decodeValue(dec)
				if err != nil {
					return nil, err
				}
				list = append(list, v)
			}
			_, err := dec.Token() // ]
			return list, err
		case '{':
			var obj []member
			for dec.More() {
				k, err := dec.Token()
				if err != nil {
					return nil, err
				}
				key, _ := k.(string)
				v, err := decodeValue(dec)
				if err != nil {
					return nil, err
				}
				replaced := false
				for i := range obj {
					if obj[i].key == key {
						obj[i].value, replaced = v, true
					}
				}
				if !replaced {
					obj = append(obj, member{key, v})
				}
			}
			_, err := dec.Token() // }
			return obj, err
		}
	case string, json.Number:
		return t, nil
	}
	return nil, fmt.Errorf("unexpected JSON token %v", tok)
}

// pyRepr is Python's repr() of a value decoded by decodeOrdered.
func pyRepr(v any) string {
	switch t := v.(type) {
	case string:
		return pyStrRepr(t)
	case json.Number:
		return pyNumber(string(t))
	case []any:
		parts := make([]string, len(t))
		for i, e := range t {
			parts[i] = pyRepr(e)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case []member:
		parts := make([]string, len(t))
		for i, m := range t {
			parts[i] = pyStrRepr(m.key) + ": " + pyRepr(m.value)
		}
		return "{" + strings.Join(parts, ", ") + "}"
	}
	return fmt.Sprint(v)
}

// pyNumber is repr() of the int or float Python's parser makes of a JSON
// number: integers (no '.', 'e' or 'E') are exact at any size; the rest are
// floats printed the way Python's float repr prints them.
func pyNumber(s string) string {
	if !strings.ContainsAny(s, ".eE") {
		n, ok := new(big.Int).SetString(s, 10)
		if !ok {
			return s
		}
		return n.String() // "-0" is 0 in Python
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil && !errors.Is(err, strconv.ErrRange) {
		return s
	}
	return py.Repr(f)
}

// pyStrRepr is Python's repr() of a str: single quotes unless the text has a
// single quote and no double quote; backslash, the quote, \t \n \r escaped;
// other non-printable characters as \xhh, \uhhhh or \Uhhhhhhhh. Printable
// means Python's str.isprintable, which is Go's unicode.IsPrint (letters,
// marks, numbers, punctuation, symbols and the ASCII space).
func pyStrRepr(s string) string {
	quote := byte('\'')
	if strings.Contains(s, "'") && !strings.Contains(s, `"`) {
		quote = '"'
	}
	var b strings.Builder
	b.WriteByte(quote)
	for _, r := range s {
		switch {
		case r == '\\':
			b.WriteString(`\\`)
		case r == rune(quote):
			b.WriteByte('\\')
			b.WriteByte(quote)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r < 0x80 && r >= 0x20 && r != 0x7f, r >= 0x80 && unicode.IsPrint(r):
			b.WriteRune(r)
		case r < 0x100:
			fmt.Fprintf(&b, `\x%02x`, r)
		case r < 0x10000:
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			fmt.Fprintf(&b, `\U%08x`, r)
		}
	}
	b.WriteByte(quote)
	return b.String()
}
