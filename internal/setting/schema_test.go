package setting

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/evalmd/evalmd/internal/testkit/schematest"
)

// compile compiles a schema made as Go values, as a file of its JSON is.
func compile(t *testing.T, doc any) *jsonschema.Schema {
	t.Helper()
	data, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	return schematest.Compile(t, data)
}

// schemaSamples are texts tried on every setting: values of each kind,
// near misses and junk.
var schemaSamples = []string{"", " ", "0", "1", "+5", "-1", "-0.5", "0.5", ".5", "5.", "1e3", "1.5e-3", "2", "20", "50", "9999", "10000", "10001",
	"abc", "None", "null", "all", "90s", "1h30m", "1.5h", "-5s", "5x", "2G", "512MiB", "2GB", "0G", "1k", "3T",
	`["\n", "END"]`, `["a"`, `"x"`, "A|B", "inf", "NaN", "0x10", "1_000", "High", "XHIGH", "none,low"}

// Every setting's schema is no looser than its reader: a text the schema
// takes (as a meta value) is one the reader takes, and a number it takes
// (as a config file's bare YAML number) reads too; and it takes every
// value the reader takes but these, which it asks written otherwise.
func TestSchemaAgreesWithReaders(t *testing.T) {
	// What a reader takes and the schema asks written otherwise:
	// another case than the choices', digits apart, a plus sign.
	asksOtherwise := map[string]bool{"High": true, "XHIGH": true, "None": true, "1_000": true, "+5": true}
	for _, s := range All {
		sch := compile(t, s.Schema())
		samples := append([]string(nil), schemaSamples...)
		if e, ok := s.schema["enum"].([]string); ok {
			samples = append(samples, e...)
		}
		for _, text := range samples {
			schemaOK := sch.Validate(text) == nil
			readerOK := s.Check(text) == nil
			switch {
			case schemaOK && !readerOK:
				t.Errorf("%s: the schema takes %q, which the reader refuses (%v)", s.Name, text, s.Check(text))
			case readerOK && !schemaOK && !asksOtherwise[text] && strings.TrimSpace(text) == text && text != "":
				t.Errorf("%s: the reader takes %q, which the schema refuses", s.Name, text)
			}
		}
		// Numbers as they are written (the text is what evalmd reads): a
		// whole number written as a float (1e3, 100.0) is the one gap,
		// an integer to the schema, refused by the reader.
		for _, n := range []json.Number{"0", "1", "-1", "0.5", "2", "10000", "10001", "2.5e-1"} {
			if sch.Validate(schematest.JSON(t, n)) == nil && s.Check(string(n)) != nil {
				t.Errorf("%s: the schema takes the number %s, which the reader refuses", s.Name, n)
			}
		}
	}
}

// upTo's text is exactly the whole numbers from 1 to n.
func TestUpTo(t *testing.T) {
	for _, n := range []int{1, 9, 10, 20, 57, 100, 10000, 32767} {
		sch := compile(t, map[string]any{"type": "string", "pattern": "^(?:" + upTo(n) + ")$"})
		for i := 0; i <= n+11; i++ {
			if got, want := sch.Validate(fmt.Sprint(i)) == nil, i >= 1 && i <= n; got != want {
				t.Errorf("upTo(%d) takes %d: %v", n, i, got)
			}
		}
	}
}
