package evalmdcmd

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"go.yaml.in/yaml/v3"

	"github.com/evalmd/evalmd/internal/testkit/golden"
	"github.com/evalmd/evalmd/sheet"
)

// schemaDir is where the repository ships the schemas.
const schemaDir = "../../../docs/schema"

// shippedSchema prints a schema with evalmd schema, checks the shipped
// file is it (go test -update rewrites it), and compiles it.
func shippedSchema(t *testing.T, name string) *jsonschema.Schema {
	t.Helper()
	stdout, stderr, code := evalmd(t, testEnv("", nil), "schema", name)
	if code != 0 || stderr != "" {
		t.Fatalf("evalmd schema %s: exit %d, %s", name, code, stderr)
	}
	golden.Check(t, filepath.Join(schemaDir, name+".json"), []byte(stdout))
	doc, err := jsonschema.UnmarshalJSON(strings.NewReader(stdout))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	url := "file:///" + name + ".json"
	if err := c.AddResource(url, doc); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile(url)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return s
}

// jsonValue is v as JSON values, as a validator sees a document.
func jsonValue(t *testing.T, v any) any {
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

// yamlDoc is a YAML text as a YAML language server checks it.
func yamlDoc(t *testing.T, text string) any {
	t.Helper()
	var v any
	if err := yaml.Unmarshal([]byte(text), &v); err != nil {
		t.Fatal(err)
	}
	return jsonValue(t, v)
}

// The schemas docs/schema ships are what evalmd schema prints (made from
// the settings' declarations and the config's members); the config one
// takes the evalmd.yaml evalmd init writes and the README's example, the
// meta one every meta section of the shipped sheets; both refuse a
// misspelt key and a value out of range.
func TestShippedSchemas(t *testing.T) {
	cfg, meta := shippedSchema(t, "config"), shippedSchema(t, "meta")

	starter, err := os.ReadFile("../starter/files/evalmd.yaml")
	if err != nil {
		t.Fatal(err)
	}
	page, err := os.ReadFile("../../../docs/settings.md")
	if err != nil {
		t.Fatal(err)
	}
	_, example, _ := strings.Cut(string(page), "\n## The config file\n")
	_, example, _ = strings.Cut(example, "```yaml\n")
	example, _, _ = strings.Cut(example, "```")
	for name, text := range map[string]string{"init's evalmd.yaml": string(starter), "docs/settings.md's example": example} {
		if err := cfg.Validate(yamlDoc(t, text)); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}

	sheets, _ := filepath.Glob("../../../sheets/*.md")
	sheets = append(sheets, "../starter/files/input-first-steps.md")
	metas := 0
	for _, path := range sheets {
		doc, err := sheet.ParseFile(path, nil)
		if err != nil {
			t.Fatal(err)
		}
		info, items := doc.Resolve()
		all := []map[string]string{info.Meta}
		for _, it := range items {
			all = append(all, it.Meta)
		}
		for _, m := range all {
			if m == nil {
				continue
			}
			metas++
			if err := meta.Validate(jsonValue(t, m)); err != nil {
				t.Errorf("%s: meta %v: %v", path, m, err)
			}
		}
	}
	if len(sheets) < 3 || metas < len(sheets) {
		t.Errorf("checked %d meta sections of %d sheets", metas, len(sheets))
	}

	for _, c := range []struct {
		schema *jsonschema.Schema
		doc    any
	}{
		{cfg, yamlDoc(t, "temprature: 0\n")},
		{cfg, yamlDoc(t, "reasoning_effort: extreme\n")},
		{cfg, yamlDoc(t, "epochs: 0\n")},
		{meta, jsonValue(t, map[string]string{"max_token": "10"})},
		{meta, jsonValue(t, map[string]string{"tool_memory": "lots"})},
		{meta, jsonValue(t, map[string]string{"mode": "agents"})},
		{meta, jsonValue(t, map[string]string{"sandbox": "none"})}, // your own choice, never a sheet's
	} {
		if c.schema.Validate(c.doc) == nil {
			t.Errorf("the schema takes %v", c.doc)
		}
	}
	if _, stderr, code := evalmd(t, testEnv("", nil), "schema", "sheet"); code != 2 || !strings.Contains(stderr, "give config or meta") {
		t.Errorf("evalmd schema sheet: exit %d, %s", code, stderr)
	}
}
