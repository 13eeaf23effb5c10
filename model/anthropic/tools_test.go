package anthropic

import (
	"encoding/json"
	"testing"

	"github.com/evalmd/evalmd/model"
)

// A tool is sent with an object input_schema whatever its parameters say,
// which the API requires: none given is an object of no properties.
func TestToolInputSchema(t *testing.T) {
	m, err := newModel("anthropic/claude-sonnet-4-5", model.Options{APIKey: "k", BaseURL: "http://127.0.0.1:1"})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		params string
		want   string
	}{
		{"", `{"type":"object"}`},
		{`{"type":"object","properties":{"code":{"type":"string"}},"required":["code"]}`, `{"type":"object","properties":{"code":{"type":"string"}},"required":["code"]}`},
		{`{"properties":{}}`, `{"type":"object","properties":{}}`},
		{`{"type":"object","required":[]}`, `{"type":"object","required":[]}`},
	} {
		req := model.Request{Messages: []model.Message{{Role: "user", Content: "hi"}},
			Tools: []model.Tool{{Name: "python", Description: "runs code", Parameters: json.RawMessage(tc.params)}}}
		line, err := m.(*messagesModel).BatchLine("q", req)
		if err != nil {
			t.Fatal(err)
		}
		var body struct {
			Params struct {
				Tools []struct {
					Name        string          `json:"name"`
					InputSchema json.RawMessage `json:"input_schema"`
				} `json:"tools"`
			} `json:"params"`
		}
		if err := json.Unmarshal(line, &body); err != nil {
			t.Fatal(err)
		}
		if len(body.Params.Tools) != 1 || string(body.Params.Tools[0].InputSchema) != tc.want {
			t.Errorf("parameters %s: tools %+v, want input_schema %s", tc.params, body.Params.Tools, tc.want)
		}
	}
	req := model.Request{Messages: []model.Message{{Role: "user", Content: "hi"}}, Tools: []model.Tool{{Name: "bad", Parameters: json.RawMessage(`[1]`)}}}
	if _, err := m.(*messagesModel).BatchLine("q", req); err == nil {
		t.Error("parameters that are not an object were sent")
	}
}
