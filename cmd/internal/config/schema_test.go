package config

import (
	"reflect"
	"strings"
	"testing"

	"github.com/evalmd/evalmd/internal/testkit/schematest"
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

// The schema takes a config file as Parse takes it: each file below is
// taken by both or refused by both.
func TestSchemaAgreesWithParse(t *testing.T) {
	data, err := Schema()
	if err != nil {
		t.Fatal(err)
	}
	sch := schematest.Compile(t, data)
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
		{"prices:\n  m: 3, 15, 0.3, 3.75\n  n: 2.5,10,1.25\n", true},
		{"prices:\n  m: 1,2,3,4,5\n", false},
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
		verr := sch.Validate(schematest.YAML(t, c.text))
		if (err == nil) != c.ok || (verr == nil) != c.ok {
			t.Errorf("%q: Parse %v, schema %v; want taken %v", c.text, err, verr, c.ok)
		}
	}
}
