package openai

import (
	"context"
	"strings"
	"testing"

	"github.com/evalmd/evalmd/internal/testkit/fakeserver"
	"github.com/evalmd/evalmd/model"
)

// OpenAI caches a prompt's start on its own (1,024 tokens or more): what a
// sheet's questions share must come first in what is sent, byte for byte,
// with nothing of a question's own before it: the system message, then the
// user message's text, its image after the text. Chat and Responses both.
func TestSharedPrefixSentFirst(t *testing.T) {
	shared := strings.Repeat("The workbook reads: revenue 12, costs 7.\n", 200)
	png := []model.Image{{MediaType: "image/png", Data: []byte("\x89PNG fake")}}
	reqs := []model.Request{
		{System: "You are a data analyst.", Messages: []model.Message{{Role: "user", Content: shared + "Question 1: what is the margin?", Images: png}}},
		{System: "You are a data analyst.", Messages: []model.Message{{Role: "user", Content: shared + "Question 2: and the growth?"}}},
	}
	var c model.CommonPrefix
	for _, r := range reqs {
		c.Add(r)
	}
	want := c.SharedText()
	if want != "You are a data analyst."+shared {
		t.Fatalf("shared text is not the system message and the context: %.80q", want)
	}
	for _, api := range []struct {
		name  string
		start func(testing.TB, fakeserver.Options) *fakeserver.Server
		model string
	}{
		{"chat", fakeserver.NewOpenAI, "openai/gpt-4o"},
		{"responses", fakeserver.NewOpenAIResponses, "openai-responses/gpt-4o"},
	} {
		t.Run(api.name, func(t *testing.T) {
			srv := api.start(t, fakeserver.Options{})
			m, err := newModel(api.model, model.Options{BaseURL: srv.URL, APIKey: "test-key"})
			if err != nil {
				t.Fatal(err)
			}
			if m.Info().CacheMin != 1024 {
				t.Errorf("CacheMin = %d, want 1024", m.Info().CacheMin)
			}
			for _, r := range reqs {
				r.Prefix = c.Prefix()
				if _, err := m.Complete(context.Background(), r); err != nil {
					t.Fatal(err)
				}
			}
			for _, call := range srv.Calls() {
				if got := promptStream(call.Body); !strings.HasPrefix(got, want) {
					t.Errorf("call %d: the prompt sent does not start with the shared prefix: %.80q", call.N, got)
				}
			}
		})
	}
}

// promptStream is what a chat or Responses body sends the model, in
// order: instructions, then each message's text parts and images (an
// image as "\x00image\x00").
func promptStream(body map[string]any) string {
	var b strings.Builder
	if s, ok := body["instructions"].(string); ok {
		b.WriteString(s)
	}
	items, _ := body["messages"].([]any)
	if in, ok := body["input"].([]any); ok {
		items = in
	}
	for _, ri := range items {
		m, _ := ri.(map[string]any)
		switch c := m["content"].(type) {
		case string:
			b.WriteString(c)
		case []any:
			for _, rp := range c {
				p, _ := rp.(map[string]any)
				switch p["type"] {
				case "text", "input_text":
					b.WriteString(p["text"].(string))
				default:
					b.WriteString("\x00image\x00")
				}
			}
		}
	}
	return b.String()
}
