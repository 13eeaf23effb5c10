package evalmdcmd

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/evalmd/evalmd/internal/testkit/golden"
	"github.com/evalmd/evalmd/internal/testkit/schematest"
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
	return schematest.Compile(t, []byte(stdout))
}

// The schemas docs/schema ships are what evalmd schema prints (made from
// the settings' declarations and the config's members); the config one
// takes the evalmd.yaml evalmd init writes and docs/settings.md's example, the
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
		if err := cfg.Validate(schematest.YAML(t, text)); err != nil {
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
			if err := meta.Validate(schematest.JSON(t, m)); err != nil {
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
		{cfg, schematest.YAML(t, "temprature: 0\n")},
		{cfg, schematest.YAML(t, "reasoning_effort: extreme\n")},
		{cfg, schematest.YAML(t, "epochs: 0\n")},
		{meta, schematest.JSON(t, map[string]string{"max_token": "10"})},
		{meta, schematest.JSON(t, map[string]string{"tool_memory": "lots"})},
		{meta, schematest.JSON(t, map[string]string{"mode": "agents"})},
		{meta, schematest.JSON(t, map[string]string{"sandbox": "none"})}, // your own choice, never a sheet's
	} {
		if c.schema.Validate(c.doc) == nil {
			t.Errorf("the schema takes %v", c.doc)
		}
	}
	if _, stderr, code := evalmd(t, testEnv("", nil), "schema", "sheet"); code != 2 || !strings.Contains(stderr, "give config or meta") {
		t.Errorf("evalmd schema sheet: exit %d, %s", code, stderr)
	}
}
