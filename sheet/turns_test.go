package sheet

import (
	"reflect"
	"strings"
	"testing"
)

// A sheet's turns are few-shot examples every question gets first; a
// question's own turns come after them, in order, and its question is
// the last user turn.
func TestTurns(t *testing.T) {
	const src = "# S\n#### system\nBe brief.<EVAL-ENDCHAR>\n" +
		"#### user\n2+2?<EVAL-ENDCHAR>\n#### assistant\n4<EVAL-ENDCHAR>\n" +
		"## Q1\n#### user\nMy name is Ada.<EVAL-ENDCHAR>\n#### assistant\nHello Ada.<EVAL-ENDCHAR>\n" +
		"#### user\nI like tea.<EVAL-ENDCHAR>\n#### question\nWhat is my name?<EVAL-ENDCHAR>\n#### answer\nAda<EVAL-ENDCHAR>\n" +
		"## Q2\n#### question\n3+3?<EVAL-ENDCHAR>\n"
	doc, err := Parse("conv.md", []byte(src), nil)
	if err != nil {
		t.Fatal(err)
	}
	_, items := doc.Resolve()
	few := []Turn{{"user", "2+2?", 4}, {"assistant", "4", 6}}
	for _, tc := range []struct {
		name string
		want []Turn
		text string
	}{
		{"Q1", append(append([]Turn(nil), few...), Turn{"user", "My name is Ada.", 9}, Turn{"assistant", "Hello Ada.", 11}, Turn{"user", "I like tea.", 13}), "What is my name?"},
		{"Q2", few, "3+3?"},
	} {
		var it *Item
		for i := range items {
			if items[i].Name == tc.name {
				it = &items[i]
			}
		}
		if it == nil {
			t.Fatalf("no item %s in %+v", tc.name, items)
		}
		if !reflect.DeepEqual(it.Turns, tc.want) || it.Prompt != tc.text {
			t.Errorf("%s: turns %+v, prompt %q; want %+v, %q", tc.name, it.Turns, it.Prompt, tc.want, tc.text)
		}
	}
}

// A sheet without turns resolves with none (nil), as before they existed.
func TestNoTurns(t *testing.T) {
	doc, err := Parse("plain.md", []byte("# S\n#### question\nSys\n## Q\n#### question\nx\n"), nil)
	if err != nil {
		t.Fatal(err)
	}
	_, items := doc.Resolve()
	if items[0].Turns != nil || items[0].Schema != nil {
		t.Errorf("turns %#v, schema %#v: want nil", items[0].Turns, items[0].Schema)
	}
}

// Turns and schemas out of place, or schemas that are not schemas, are
// refused at their line, in one line.
func TestTurnAndSchemaErrors(t *testing.T) {
	for _, tc := range []struct {
		name, in, err string
	}{
		{"user after question", "## Q\n#### question\nx\n#### user\ny\n", `bad.md:4: user turn after the question section (line 2)`},
		{"assistant after question", "## Q\n#### user\na\n#### question\nx\n#### answer\n1\n#### assistant\ny\n", `bad.md:8: assistant turn after the question section (line 4)`},
		{"not JSON", "## Q\n#### schema\n{\"type\": \"object\",\n  \"properties\": oops}\n#### question\nx\n", `bad.md:4: schema section is not a JSON Schema: invalid character 'o'`},
		{"empty", "## Q\n#### schema\n<EVAL-ENDCHAR>\n#### question\nx\n", `bad.md:2: schema section is not a JSON Schema: no JSON in it`},
		{"a list", "## Q\n#### schema\n[1, 2]\n#### question\nx\n", `bad.md:2: schema section is not a JSON Schema: a schema is a JSON object, not a list`},
		{"bad type", "# S\n#### schema\n{\"type\": \"dict\"}\n## Q\n#### question\nx\n", `bad.md:2: schema section is not a JSON Schema: $.type: "dict" is not a JSON Schema type`},
		{"nested bad type", "## Q\n#### schema\n{\"type\": \"object\", \"properties\": {\"Q\": {\"type\": [\"integer\", 7]}}}\n#### question\nx\n", `$.properties.Q.type: 7 is not a JSON Schema type`},
		{"required not names", "## Q\n#### schema\n{\"required\": \"Q\"}\n#### question\nx\n", `$.required: a list of property names, not a string`},
		{"items not a schema", "## Q\n#### schema\n{\"type\": \"array\", \"items\": 3}\n#### question\nx\n", `$.items: a schema is an object or a boolean, not a number`},
		{"two values", "## Q\n#### schema\n{} {}\n#### question\nx\n", `text after the schema's JSON value`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse("bad.md", []byte(tc.in), nil)
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Fatalf("err = %v, want %q", err, tc.err)
			}
			if strings.Contains(err.Error(), "\n") || !fileLine.MatchString(err.Error()) {
				t.Errorf("error is not one line with file:line: %q", err)
			}
		})
	}
}

// A question's schema wins over its sheet's; turns before the question
// and a schema anywhere in the question are accepted.
func TestSchemaCascade(t *testing.T) {
	const src = "# S\n#### schema\n{\"type\": \"object\"}\n## Q1\n#### question\nx\n" +
		"## Q2\n#### user\nu\n#### question\ny\n#### schema\n{\"type\": \"object\", \"properties\": {\"Q\": {\"type\": \"integer\"}}, \"required\": [\"Q\"]}<EVAL-ENDCHAR>\n"
	doc, err := Parse("s.md", []byte(src), nil)
	if err != nil {
		t.Fatal(err)
	}
	_, items := doc.Resolve()
	if got := items[0].Schema; got == nil || got.Text != "{\"type\": \"object\"}\n" || got.Line != 2 {
		t.Errorf("Q1 schema %+v: want the sheet's", got)
	}
	if got := items[1].Schema; got == nil || !strings.Contains(got.Text, `"required": ["Q"]`) || got.Line != 12 {
		t.Errorf("Q2 schema %+v: want its own", got)
	}
}
