package config

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"go.yaml.in/yaml/v3"
)

// The members the schema and the messages list are Config's fields, in
// order, by their yaml tags.
func TestMembersAreTheFields(t *testing.T) {
	var tags []string
	ct := reflect.TypeOf(Config{})
	for i := 0; i < ct.NumField(); i++ {
		tag := ct.Field(i).Tag.Get("yaml")
		if tag != "" && tag != "-" && !strings.HasPrefix(tag, ",") {
			tags = append(tags, tag)
		}
	}
	if got, want := memberNames(), strings.Join(tags, ", "); got != want {
		t.Errorf("members %q, Config's fields %q", got, want)
	}
}

// compileSchema compiles the config schema as a file of it is read.
func compileSchema(t *testing.T) *jsonschema.Schema {
	t.Helper()
	data, err := Schema()
	if err != nil {
		t.Fatal(err)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource("mem:///config.json", doc); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile("mem:///config.json")
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// yamlValue is a YAML file's document as JSON values, as a YAML language
// server checks it.
func yamlValue(t *testing.T, text string) any {
	t.Helper()
	var v any
	if err := yaml.Unmarshal([]byte(text), &v); err != nil {
		t.Fatal(err)
	}
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

// The schema takes a config file as Parse takes it: each file below is
// taken by both or refused by both.
func TestSchemaAgreesWithParse(t *testing.T) {
	sch := compileSchema(t)
	for _, c := range []struct {
		text string
		ok   bool
	}{
		{"models: [openai/gpt-4o-mini, ollama/llama3]\nconcurrency: 8\njudge: openai/gpt-4o\nlatest_version: true\n", true},
		{"base_urls:\n  ollama: http://gpu-box:11434/v1\nprices:\n  ollama/llama3: 0,0\n  m: $2.5, 10\n", true},
		{"concurrency: auto\ntemperature: 0\ntool_timeout: 90s\nquestion_timeout: 30\nstop: [a, b]\nepochs: 3\n", true},
		{"sandbox: none\ndata_roots: [/data]\nceilings:\n  tool_memory: 8G\n  max_tokens: 100000\n", true},
		{"reasoning_effort: xhigh\nthinking: adaptive\nverbosity: low\ntable_rows: all\n", true},
		{"temprature: 0\n", false},
		{"reasoning_effort: extreme\n", false},
		{"concurrency: 0\n", false},
		{"concurrency: lots\n", false},
		{"models: [\"a,b\"]\n", false},
		{"prices:\n  m: \"1\"\n", false},
		{"ceilings:\n  temperature: 1\n", false},
		{"ceilings:\n  tool_memory: lots\n", false},
		{"base_urls:\n  x: ftp://h\n", false},
		{"tool_timeout: -1\n", false},
		{"epochs: 0\n", false},
		{"max_tokens: 1.5\n", false},
		{"reformat: required\n", false},
		{"stop: None\n", false},
	} {
		_, err := Parse("evalmd.yaml", []byte(c.text))
		verr := sch.Validate(yamlValue(t, c.text))
		if (err == nil) != c.ok || (verr == nil) != c.ok {
			t.Errorf("%q: Parse %v, schema %v; want taken %v", c.text, err, verr, c.ok)
		}
	}
}
