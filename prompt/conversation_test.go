package prompt

import (
	"reflect"
	"strings"
	"testing"

	"github.com/evalmd/evalmd/model"
)

// A question's turns go before its user message, the sheet's few-shot
// turns first; its schema asks for JSON following it; response_format
// json alone asks for JSON; text, or neither, sends no format.
func TestConversationAndFormat(t *testing.T) {
	dir := t.TempDir()
	its := items(t, dir, `# S
#### question
Answer briefly. <EVAL-ENDCHAR>
#### user
2+2?<EVAL-ENDCHAR>
#### assistant
4<EVAL-ENDCHAR>
## Q1
#### user
I am Ada.<EVAL-ENDCHAR>
#### assistant
Hello Ada.<EVAL-ENDCHAR>
#### question
Who am I?<EVAL-ENDCHAR>
#### schema
{"type": "object",
 "properties": {"name": {"type": "string"}}}<EVAL-ENDCHAR>
## Q2
#### meta
response_format: json
#### question
3+3?<EVAL-ENDCHAR>
## Q3
#### meta
response_format: text
#### question
5+5?<EVAL-ENDCHAR>
`)
	few := []model.Message{{Role: "user", Content: "2+2?"}, {Role: "assistant", Content: "4"}}
	for i, tc := range []struct {
		msgs   []model.Message
		format string
		schema string
	}{
		{append(append([]model.Message(nil), few...), model.Message{Role: "user", Content: "I am Ada."},
			model.Message{Role: "assistant", Content: "Hello Ada."}, model.Message{Role: "user", Content: "Answer briefly. Who am I?"}),
			model.ResponseSchema, `{"type":"object","properties":{"name":{"type":"string"}}}`},
		{append(append([]model.Message(nil), few...), model.Message{Role: "user", Content: "Answer briefly. 3+3?"}), model.ResponseJSON, ""},
		{append(append([]model.Message(nil), few...), model.Message{Role: "user", Content: "Answer briefly. 5+5?"}), "", ""},
	} {
		b := &Builder{Dir: dir, Model: "m"}
		req, err := b.Build(t.Context(), "input-t.md", &its[i])
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(req.Messages, tc.msgs) {
			t.Errorf("%s: messages %+v, want %+v", its[i].Name, req.Messages, tc.msgs)
		}
		if req.Settings.ResponseFormat != tc.format || string(req.Schema) != tc.schema {
			t.Errorf("%s: format %q, schema %s; want %q, %s", its[i].Name, req.Settings.ResponseFormat, req.Schema, tc.format, tc.schema)
		}
	}
}

// A model that refuses a conversation opening with an assistant turn
// (UserFirst) has the question refused at that turn's line; others send it.
func TestAssistantFirst(t *testing.T) {
	dir := t.TempDir()
	its := items(t, dir, "## Q\n#### assistant\nHi, ask me.<EVAL-ENDCHAR>\n#### question\n2+2?<EVAL-ENDCHAR>\n")
	b := &Builder{Dir: dir, Model: "anthropic/claude-x", UserFirst: true}
	_, err := b.Build(t.Context(), "input-t.md", &its[0])
	want := `input-t.md:2: question "Q": the conversation opens with an assistant turn, which anthropic/claude-x refuses`
	if err == nil || !strings.HasPrefix(err.Error(), want) || strings.Contains(err.Error(), "\n") {
		t.Fatalf("err = %v, want one line starting %q", err, want)
	}
	b = &Builder{Dir: dir, Model: "openai/gpt-4o"}
	req, err := b.Build(t.Context(), "input-t.md", &its[0])
	if err != nil || len(req.Messages) != 2 || req.Messages[0].Role != "assistant" {
		t.Fatalf("messages %+v, %v: want the assistant turn sent first", req.Messages, err)
	}
}

// A sheet without turns or a schema builds one user message and no
// format, as before either existed: its request keys as it did.
func TestNoConversation(t *testing.T) {
	dir := t.TempDir()
	its := items(t, dir, "# S\n#### question\nSys \n## Q\n#### question\nx\n")
	req, err := (&Builder{Dir: dir, Model: "m"}).Build(t.Context(), "input-t.md", &its[0])
	if err != nil {
		t.Fatal(err)
	}
	if len(req.Messages) != 1 || req.Schema != nil || !req.Settings.IsZero() {
		t.Errorf("request %+v: want one message, no schema, no settings", req.Request)
	}
}
