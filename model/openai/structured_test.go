package openai

import (
	"errors"
	"testing"

	"github.com/evalmd/evalmd/internal/testkit/fakeserver"
	"github.com/evalmd/evalmd/model"
)

// conversation is a sheet's few-shot turns and question, asking for an
// answer that follows a schema.
func conversation(format string) model.Request {
	req := model.Request{System: "Be brief.", Messages: []model.Message{
		{Role: "user", Content: "2+2?"}, {Role: "assistant", Content: "4"},
		{Role: "user", Content: "Who am I? Answer in JSON."},
	}}
	req.Settings.ResponseFormat = format
	if format == model.ResponseSchema {
		req.Schema = []byte(`{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}`)
	}
	return req
}

// sortedSchema is conversation's schema as the fake reads it back.
const sortedSchema = `{"properties":{"name":{"type":"string"}},"required":["name"],"type":"object"}`

// Each OpenAI-compatible API gets the turns as its messages and the
// structured output as it documents it: chat's and the completions
// endpoint's response_format (json_schema named, or json_object), the
// Responses API's text.format; text asks for no format.
func TestStructuredOutputOpenAI(t *testing.T) {
	for _, tc := range []struct {
		name, model, format string
		fake                func(testing.TB, fakeserver.Options) *fakeserver.Server
		opt                 any
		want                fakeserver.Format
	}{
		{"chat schema", "openai/gpt-4o", model.ResponseSchema, fakeserver.NewOpenAI, nil, fakeserver.Format{Type: "json_schema", Name: "answer", Schema: sortedSchema}},
		{"chat json", "openai/gpt-4o", model.ResponseJSON, fakeserver.NewOpenAI, nil, fakeserver.Format{Type: "json_object"}},
		{"chat text", "openai/gpt-4o", "", fakeserver.NewOpenAI, nil, fakeserver.Format{}},
		{"vllm schema", "vllm/qwen", model.ResponseSchema, fakeserver.NewOpenAI, nil, fakeserver.Format{Type: "json_schema", Name: "answer", Schema: sortedSchema}},
		{"responses schema", "openai-responses/gpt-4.1", model.ResponseSchema, fakeserver.NewOpenAIResponses, nil, fakeserver.Format{Type: "json_schema", Name: "answer", Schema: sortedSchema}},
		{"responses json", "openai-responses/gpt-4.1", model.ResponseJSON, fakeserver.NewOpenAIResponses, nil, fakeserver.Format{Type: "json_object"}},
		{"responses text", "openai-responses/gpt-4.1", "", fakeserver.NewOpenAIResponses, nil, fakeserver.Format{}},
		{"completions schema", "vllm/qwen", model.ResponseSchema, fakeserver.NewOpenAICompletions, Options{CompletionAPI: true}, fakeserver.Format{Type: "json_schema", Name: "answer", Schema: sortedSchema}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := tc.fake(t, fakeserver.Options{})
			opt := model.Options{BaseURL: srv.URL, APIKey: "sk-test"}
			if tc.opt != nil {
				opt.Provider = []any{tc.opt}
			}
			m, err := newModel(tc.model, opt)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := m.Complete(t.Context(), conversation(tc.format)); err != nil {
				t.Fatal(err)
			}
			c := srv.Calls()[0]
			if c.Format.Type != tc.want.Type || c.Format.Name != tc.want.Name || c.Format.Schema != tc.want.Schema || c.Format.Strict != nil {
				t.Errorf("format %+v, want %+v", c.Format, tc.want)
			}
			if tc.opt != nil {
				// One text: the turns as they are, a blank line between.
				if want := "Be brief.\n\n2+2?\n\n4\n\nWho am I? Answer in JSON."; c.LastUserText() != want {
					t.Errorf("prompt %q, want %q", c.LastUserText(), want)
				}
				return
			}
			roles := ""
			for _, msg := range c.Messages {
				if msg.Role != "system" { // chat's fake keeps it among the messages
					roles += msg.Role + ":" + msg.Text + "|"
				}
			}
			if want := "user:2+2?|assistant:4|user:Who am I? Answer in JSON.|"; c.System != "Be brief." || roles != want {
				t.Errorf("system %q, messages %s; want %s", c.System, roles, want)
			}
		})
	}
}

// A schema the server refuses (HTTP 400) fails that question alone: the
// error is neither retried nor fatal to the run.
func TestRefusedSchemaIsTheQuestions(t *testing.T) {
	srv := fakeserver.NewOpenAI(t, fakeserver.Options{Reply: func(fakeserver.Call) fakeserver.Reply {
		return fakeserver.Reply{Status: 400, Message: "Invalid schema for response_format 'answer'"}
	}})
	m, err := newModel("openai/gpt-4o", model.Options{BaseURL: srv.URL, APIKey: "sk-test"})
	if err != nil {
		t.Fatal(err)
	}
	_, err = m.Complete(t.Context(), conversation(model.ResponseSchema))
	var ae *model.APIError
	if !errors.As(err, &ae) || ae.Status != 400 || ae.Retryable || ae.Fatal {
		t.Fatalf("err = %#v, want a 400 neither retryable nor fatal", err)
	}
}
