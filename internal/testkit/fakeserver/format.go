package fakeserver

import (
	"encoding/json"
	"fmt"
	"net/http"
)

// Format is the structured output a call asked for, read as each API
// documents it: OpenAI chat's (and the completions endpoint's, as vLLM
// takes it) response_format, the Responses API's text.format,
// Anthropic's output_config.format. Type is "json_object" or
// "json_schema" ("" when none was asked); Name is the schema's name
// (OpenAI's); Schema is the schema as JSON with its members sorted.
type Format struct {
	Type   string
	Name   string
	Schema string
	Strict *bool
}

// openAIFormat reads chat's response_format: {"type": "json_object"} or
// {"type": "json_schema", "json_schema": {"name", "schema", "strict"}},
// where name is required, as OpenAI answers 400 without it.
func openAIFormat(body map[string]any) (Format, error) {
	raw, ok := body["response_format"]
	if !ok {
		return Format{}, nil
	}
	rf, ok := raw.(map[string]any)
	if !ok {
		return Format{}, fmt.Errorf("response_format: want an object, got %T", raw)
	}
	f := Format{Type: stringField(rf, "type")}
	switch f.Type {
	case "text":
		return Format{}, nil
	case "json_object":
		return f, nil
	case "json_schema":
		js, ok := rf["json_schema"].(map[string]any)
		if !ok {
			return f, &APIError{http.StatusBadRequest, "Missing required parameter: 'response_format.json_schema'."}
		}
		return schemaMembers(f, js, "response_format.json_schema", true)
	}
	return f, &APIError{http.StatusBadRequest, fmt.Sprintf("Invalid value: %q. Supported values are: 'json_object', 'json_schema', and 'text'.", f.Type)}
}

// responsesFormat reads the Responses API's text.format, whose
// json_schema form is flat: {"type": "json_schema", "name", "schema",
// "strict"}.
func responsesFormat(body map[string]any) (Format, error) {
	text, _ := body["text"].(map[string]any)
	raw, ok := text["format"]
	if !ok {
		return Format{}, nil
	}
	tf, ok := raw.(map[string]any)
	if !ok {
		return Format{}, fmt.Errorf("text.format: want an object, got %T", raw)
	}
	f := Format{Type: stringField(tf, "type")}
	switch f.Type {
	case "text":
		return Format{}, nil
	case "json_object":
		return f, nil
	case "json_schema":
		return schemaMembers(f, tf, "text.format", true)
	}
	return f, &APIError{http.StatusBadRequest, fmt.Sprintf("Invalid value: %q for text.format.type.", f.Type)}
}

// anthropicFormat reads Anthropic's output_config.format: {"type":
// "json_schema", "schema"}, its only type.
func anthropicFormat(body map[string]any) (Format, error) {
	oc, _ := body["output_config"].(map[string]any)
	raw, ok := oc["format"]
	if !ok {
		return Format{}, nil
	}
	of, ok := raw.(map[string]any)
	if !ok {
		return Format{}, fmt.Errorf("output_config.format: want an object, got %T", raw)
	}
	f := Format{Type: stringField(of, "type")}
	if f.Type != "json_schema" {
		return f, &APIError{http.StatusBadRequest, fmt.Sprintf("output_config.format.type: Input should be 'json_schema', not %q", f.Type)}
	}
	return schemaMembers(f, of, "output_config.format", false)
}

// schemaMembers reads a json_schema format's schema (an object, required)
// and, with named, its name (required) and strict.
func schemaMembers(f Format, m map[string]any, where string, named bool) (Format, error) {
	schema, ok := m["schema"].(map[string]any)
	if !ok {
		return f, &APIError{http.StatusBadRequest, fmt.Sprintf("Missing required parameter: '%s.schema'.", where)}
	}
	b, err := json.Marshal(schema)
	if err != nil {
		return f, err
	}
	f.Schema = string(b)
	if !named {
		return f, nil
	}
	if f.Name = stringField(m, "name"); f.Name == "" {
		return f, &APIError{http.StatusBadRequest, fmt.Sprintf("Missing required parameter: '%s.name'.", where)}
	}
	if s, ok := m["strict"].(bool); ok {
		f.Strict = &s
	}
	return f, nil
}
