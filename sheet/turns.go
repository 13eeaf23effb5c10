package sheet

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
)

// Turn is one turn of a conversation before a question: a "user" or
// "assistant" section, its text cut at the end token.
type Turn struct {
	Role string // "user" or "assistant"
	Text string
	Line int // the line of its "####" header
}

// isTurn says whether a section kind is a turn of a conversation.
func isTurn(kind string) bool { return kind == "user" || kind == "assistant" }

// turns are a block's turn sections, in order.
func turns(b *Block) []Turn {
	var out []Turn
	for _, s := range b.Sections {
		if isTurn(s.Kind) {
			out = append(out, Turn{Role: s.Kind, Text: CutEnd(s.Text), Line: s.Line})
		}
	}
	return out
}

// checkTurns refuses a question's turn that stands after its question
// section: the question is the conversation's last user turn, so a turn
// after it would be sent before it, not where the sheet shows it.
func (p *parser) checkTurns(b *Block) {
	asked := 0
	for _, s := range b.Sections {
		switch {
		case s.Kind == "question" && asked == 0:
			asked = s.Line
		case isTurn(s.Kind) && asked > 0 && p.fail == nil:
			p.fail = &Error{Diag{p.path, s.Line, fmt.Sprintf(
				"%s turn after the question section (line %d): a question's turns come before its question, which is the last user turn", s.Kind, asked)}}
		}
	}
}

// checkSchema refuses a schema section that is not a JSON Schema, at the
// line of the fault when the JSON itself is bad.
func (p *parser) checkSchema(s Section) {
	if p.fail != nil {
		return
	}
	text := CutEnd(s.Text)
	if err := CheckSchema([]byte(text)); err != nil {
		line := s.Line
		if se, ok := errors.AsType[*json.SyntaxError](err); ok {
			line += lineAt(text, int(min(se.Offset, int64(len(text)))))
		}
		p.fail = &Error{Diag{p.path, line, "schema section is not a JSON Schema: " + err.Error()}}
	}
}

// CheckSchema says whether data is a JSON Schema a provider can be sent:
// one JSON object whose keywords have the types JSON Schema gives them
// (type a type name or a list of them; properties an object of schemas;
// required a list of names; items, additionalProperties and the
// combinators schemas), checked all the way down.
func CheckSchema(data []byte) error {
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err == io.EOF {
		return fmt.Errorf("no JSON in it")
	} else if err != nil {
		return err
	}
	if d.More() {
		return fmt.Errorf("text after the schema's JSON value")
	}
	if _, ok := v.(map[string]any); !ok {
		return fmt.Errorf("a schema is a JSON object, not %s", jsonKind(v))
	}
	return checkSchema("$", v)
}

// schemaTypes are JSON Schema's type names.
var schemaTypes = map[string]bool{"object": true, "array": true, "string": true, "number": true,
	"integer": true, "boolean": true, "null": true}

// checkSchema checks the schema v found at path.
func checkSchema(path string, v any) error {
	if _, ok := v.(bool); ok {
		return nil // true and false are schemas below the top
	}
	m, ok := v.(map[string]any)
	if !ok {
		return fmt.Errorf("%s: a schema is an object or a boolean, not %s", path, jsonKind(v))
	}
	if err := checkType(path, m["type"]); err != nil {
		return err
	}
	for _, key := range []string{"properties", "$defs", "definitions", "patternProperties"} {
		if err := checkSchemaMap(path+"."+key, m[key]); err != nil {
			return err
		}
	}
	for _, key := range []string{"items", "additionalProperties", "not", "contains"} {
		if sub, ok := m[key]; ok {
			if err := checkSchema(path+"."+key, sub); err != nil {
				return err
			}
		}
	}
	for _, key := range []string{"anyOf", "oneOf", "allOf", "prefixItems"} {
		if err := checkSchemaList(path+"."+key, m[key]); err != nil {
			return err
		}
	}
	if err := checkNames(path+".required", m["required"]); err != nil {
		return err
	}
	if e, ok := m["enum"]; ok {
		if _, ok := e.([]any); !ok {
			return fmt.Errorf("%s.enum: a list of values, not %s", path, jsonKind(e))
		}
	}
	return nil
}

// checkType checks a type keyword: a type name or a list of them.
func checkType(path string, t any) error {
	names, ok := t.([]any)
	if !ok && t != nil {
		names = []any{t}
	}
	for _, n := range names {
		if s, ok := n.(string); !ok || !schemaTypes[s] {
			return fmt.Errorf("%s.type: %s is not a JSON Schema type (object, array, string, number, integer, boolean, null)", path, show(n))
		}
	}
	return nil
}

// checkSchemaMap checks a keyword whose value is an object of schemas.
func checkSchemaMap(path string, v any) error {
	if v == nil {
		return nil
	}
	m, ok := v.(map[string]any)
	if !ok {
		return fmt.Errorf("%s: an object of schemas, not %s", path, jsonKind(v))
	}
	// Sorted, so the first fault named is the same on every run.
	for _, k := range slices.Sorted(maps.Keys(m)) {
		if err := checkSchema(path+"."+k, m[k]); err != nil {
			return err
		}
	}
	return nil
}

// checkSchemaList checks a keyword whose value is a list of schemas.
func checkSchemaList(path string, v any) error {
	if v == nil {
		return nil
	}
	l, ok := v.([]any)
	if !ok {
		return fmt.Errorf("%s: a list of schemas, not %s", path, jsonKind(v))
	}
	for i, sub := range l {
		if err := checkSchema(fmt.Sprintf("%s[%d]", path, i), sub); err != nil {
			return err
		}
	}
	return nil
}

// checkNames checks the required keyword: a list of property names.
func checkNames(path string, v any) error {
	if v == nil {
		return nil
	}
	l, ok := v.([]any)
	if !ok {
		return fmt.Errorf("%s: a list of property names, not %s", path, jsonKind(v))
	}
	for _, n := range l {
		if _, ok := n.(string); !ok {
			return fmt.Errorf("%s: %s is not a property name", path, show(n))
		}
	}
	return nil
}

// jsonKind names the kind of a decoded JSON value.
func jsonKind(v any) string {
	switch v.(type) {
	case map[string]any:
		return "an object"
	case []any:
		return "a list"
	case string:
		return "a string"
	case json.Number:
		return "a number"
	case bool:
		return "a boolean"
	}
	return "null"
}

// show is a decoded JSON value as JSON, for messages.
func show(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return jsonKind(v)
	}
	s := string(b)
	if len(s) > 40 {
		s = s[:40] + "..."
	}
	return strings.ToValidUTF8(s, "")
}
