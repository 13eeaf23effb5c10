// Package schematest compiles JSON Schemas and reads documents as a
// validator sees them, for the tests of the schemas evalmd makes (evalmd
// schema): a schema from its JSON, a Go value or a YAML file as the
// JSON values a YAML language server checks.
package schematest

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"go.yaml.in/yaml/v3"
)

// Compile compiles the schema whose JSON is data, as a file of it is
// read.
func Compile(t testing.TB, data []byte) *jsonschema.Schema {
	t.Helper()
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource("mem:///schema.json", doc); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile("mem:///schema.json")
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// JSON is v as a validator sees a document: its JSON, read back.
func JSON(t testing.TB, v any) any {
	t.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	out, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// YAML is a YAML text's document as a YAML language server checks it.
func YAML(t testing.TB, text string) any {
	t.Helper()
	var v any
	if err := yaml.Unmarshal([]byte(text), &v); err != nil {
		t.Fatal(err)
	}
	return JSON(t, v)
}
