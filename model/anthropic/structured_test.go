package anthropic

import (
	"errors"
	"testing"

	"github.com/evalmd/evalmd/internal/testkit/fakeserver"
	"github.com/evalmd/evalmd/model"
)

// Anthropic gets a sheet's turns as its messages and a schema as its
// structured output, output_config.format; a JSON answer without a
// schema, which Anthropic has no mode for, is not sent, and said so.
func TestStructuredOutputAnthropic(t *testing.T) {
	srv := fakeserver.NewAnthropic(t, fakeserver.Options{})
	m, err := newModel("anthropic/claude-sonnet-4-5", model.Options{BaseURL: srv.URL, APIKey: "sk-ant-test"})
	if err != nil {
		t.Fatal(err)
	}
	if !m.Info().UserFirst {
		t.Error("Info.UserFirst is false: a conversation opening with an assistant turn would reach the API")
	}
	req := model.Request{System: "Be brief.", Messages: []model.Message{
		{Role: "user", Content: "2+2?"}, {Role: "assistant", Content: "4"}, {Role: "user", Content: "Who am I?"},
	}, Schema: []byte(`{"type":"object","properties":{"name":{"type":"string"}},"required":["name"],"additionalProperties":false}`)}
	req.Settings.ResponseFormat = model.ResponseSchema
	if _, err := m.Complete(t.Context(), req); err != nil {
		t.Fatal(err)
	}
	req.Settings.ResponseFormat, req.Schema = model.ResponseJSON, nil
	if _, err := m.Complete(t.Context(), req); err != nil {
		t.Fatal(err)
	}
	calls := srv.Calls()
	want := `{"additionalProperties":false,"properties":{"name":{"type":"string"}},"required":["name"],"type":"object"}`
	if f := calls[0].Format; f.Type != "json_schema" || f.Schema != want {
		t.Errorf("format %+v, want json_schema %s", f, want)
	}
	roles := ""
	for _, msg := range calls[0].Messages {
		roles += msg.Role + ":" + msg.Text + "|"
	}
	if roles != "user:2+2?|assistant:4|user:Who am I?|" || calls[0].System != "Be brief." {
		t.Errorf("system %q, messages %s", calls[0].System, roles)
	}
	if f := calls[1].Format; f != (fakeserver.Format{}) {
		t.Errorf("JSON without a schema sent %+v, want no format", f)
	}
	sent, notes, err := model.SendSettings(m, m.Info(), model.Settings{ResponseFormat: model.ResponseJSON})
	if err != nil || sent.ResponseFormat != "" || len(notes) != 1 || notes[0].Name != "response_format" {
		t.Errorf("SendSettings = %+v, %+v, %v: want response_format left out, said once", sent, notes, err)
	}
}

// A schema Anthropic refuses (HTTP 400) fails that question alone.
func TestRefusedSchemaAnthropic(t *testing.T) {
	srv := fakeserver.NewAnthropic(t, fakeserver.Options{Reply: func(fakeserver.Call) fakeserver.Reply {
		return fakeserver.Reply{Status: 400, Message: "output_config.format.schema: For 'object' type, 'additionalProperties' must be explicitly set to false"}
	}})
	m, err := newModel("anthropic/claude-sonnet-4-5", model.Options{BaseURL: srv.URL, APIKey: "sk-ant-test"})
	if err != nil {
		t.Fatal(err)
	}
	req := model.Request{Messages: []model.Message{{Role: "user", Content: "Who am I?"}}, Schema: []byte(`{"type":"object"}`)}
	req.Settings.ResponseFormat = model.ResponseSchema
	_, err = m.Complete(t.Context(), req)
	var ae *model.APIError
	if !errors.As(err, &ae) || ae.Status != 400 || ae.Retryable || ae.Fatal {
		t.Fatalf("err = %#v, want a 400 neither retryable nor fatal", err)
	}
}
