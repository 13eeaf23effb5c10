package setting

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// A reader is how a setting reads its value: set parses the text into
// Values (its error says what was wanted, without the setting's name),
// and schema is the JSON Schema of what set takes, made beside it so that
// the two say the same. A value may be text (a meta line's, a quoted YAML
// string) or, in a config file, what YAML reads a bare number or list as.
type reader struct {
	set    func(v *Values, text string) error
	schema map[string]any
}

// The texts readers take, as regular expressions that ECMA-262 (editors'
// JSON Schema validators) and Go's RE2 read alike, unanchored. Each is no
// looser than its reader: a text one matches is one the reader takes,
// but for numbers too large to hold (TestSchemaAgreesWithReaders). So is
// a number's schema, but for a whole number written as a float in YAML
// (max_tokens: 1e3), an integer to JSON Schema, whose text evalmd reads
// and refuses.
const (
	unsignedWhole = `\+?[0-9]+`
	signedWhole   = `[+-]?[0-9]+`
	duration      = `\+?(?:(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:ns|us|µs|μs|ms|s|m|h))+`
	size          = `\+?0*[1-9][0-9]*(?:[KkMmGg](?:[Ii]?[Bb])?|[Bb])?`
)

// decimal is a number as text; signed when negative ones are taken.
func decimal(signed bool) string {
	sign := `\+?`
	if signed {
		sign = `[+-]?`
	}
	return sign + `(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?`
}

// numeric is the schema of a number: a JSON (YAML) number of kind
// ("integer" or "number") from least to most (nil: no bound), or text
// matching pattern.
func numeric(kind string, least, most *float64, pattern string) map[string]any {
	n := map[string]any{"type": kind}
	if least != nil {
		n["minimum"] = *least
	}
	if most != nil {
		n["maximum"] = *most
	}
	return map[string]any{"anyOf": []any{n, map[string]any{"type": "string", "pattern": "^(?:" + pattern + ")$"}}}
}

// enum is the schema of one of choices.
func enum(choices ...string) map[string]any {
	return map[string]any{"type": "string", "enum": choices}
}

func ptr(f float64) *float64 { return &f }

// secondsSchema is seconds (a number, or its text) or a Go duration.
func secondsSchema() map[string]any {
	return numeric("number", ptr(0), nil, decimal(false)+"|"+duration)
}

// stopSchema is stop sequences: a YAML list, or text that is not None
// (Python's), a JSON array or string, or A|B.
func stopSchema() map[string]any {
	return map[string]any{"anyOf": []any{
		map[string]any{"type": "array", "items": map[string]any{"type": "string"}},
		map[string]any{"type": "string", "pattern": `^(?:[^["].*|\[.*\]|".*")?$`, "not": enum("None", "null")},
	}}
}

// upTo is the whole numbers from 1 to n as text (leading zeros allowed):
// those with fewer digits than n, then those with as many, digit by
// digit below n's, then n.
func upTo(n int) string {
	d := strconv.Itoa(n)
	var alts []string
	if len(d) > 1 {
		alts = append(alts, fmt.Sprintf("[1-9][0-9]{0,%d}", len(d)-2))
	}
	for i := 0; i < len(d); i++ {
		lo := byte('0')
		if i == 0 {
			lo = '1'
		}
		if d[i] > lo {
			alts = append(alts, fmt.Sprintf("%s[%c-%c][0-9]{%d}", d[:i], lo, d[i]-1, len(d)-i-1))
		}
	}
	return "0*(?:" + strings.Join(append(alts, d), "|") + ")"
}

// Schema is the JSON Schema of the setting's value, described: what it
// does, its values, default, ceiling and sources.
func (s *Setting) Schema() map[string]any {
	out := map[string]any{}
	for k, v := range s.schema {
		out[k] = v
	}
	desc := fmt.Sprintf("%s. Value: %s; default: %s", s.Doc, s.Type, s.Default)
	if s.Ceiling != "" {
		desc += "; a sheet or a workspace evalmd.yaml may set at most " + s.Ceiling + " (--ceiling raises it)"
	}
	out["description"] = desc + "; from: " + s.where(func(f string) string { return f }) + "."
	return out
}

// SchemaURL is where the project publishes its JSON Schemas (docs/schema
// on its main branch): a schema's $id is SchemaURL and its file name.
const SchemaURL = "https://raw.githubusercontent.com/evalmd/evalmd/main/docs/schema/"

// Document is a JSON Schema (draft-07, which YAML language servers read)
// of an object with properties alone, named file under SchemaURL, as
// evalmd schema prints it: indented, ending with a newline.
func Document(file, title, description string, properties map[string]any) ([]byte, error) {
	doc := map[string]any{
		"$schema": "http://json-schema.org/draft-07/schema#", "$id": SchemaURL + file,
		"title": title, "description": description,
		"type": "object", "properties": properties, "additionalProperties": false,
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// MetaSchema is the JSON Schema of a sheet's meta section (file
// meta.json): the settings a sheet may set, the other keys read (Keys),
// LIME's data keys and data, the keys benchmarks declare as theirs; any
// other key is one evalmd warns about (KeyChecker).
func MetaSchema(data []string) ([]byte, error) {
	props := map[string]any{}
	for _, s := range All {
		if s.From&Meta != 0 {
			props[s.Name] = s.Schema()
		}
	}
	add := func(name, doc string) {
		if _, ok := props[name]; !ok {
			props[name] = map[string]any{"description": doc}
		}
	}
	for _, k := range Keys {
		add(k.Name, k.Doc+".")
	}
	for _, k := range LIMEData {
		add(k, "LIME's data about the question, for its readers.")
	}
	for _, k := range data {
		add(k, "A benchmark's data about the question (its converter writes it).")
	}
	return Document("meta.json", "evalmd sheet meta",
		"The meta section of an evalmd sheet (#### meta): key: value lines, the question's over the sheet's. Values are text; a key no setting or package reads draws a warning. README: Settings.", props)
}
