package anthropic

import (
	"context"
	"strings"
	"testing"

	"github.com/evalmd/evalmd/internal/testkit/fakeserver"
	"github.com/evalmd/evalmd/model"
)

// A request's shared prefix (model.Request.Prefix) is marked with one
// cache_control breakpoint where it ends, splitting the text it ends in
// so that the blocks joined are the message as it was; a prefix shorter
// than the model's minimum, or none, is sent unmarked.
func TestCacheBreakpoints(t *testing.T) {
	ctx := strings.Repeat("workbook row\n", 400)
	few := model.Message{Role: "user", Content: "Example: 2+2?"}
	ans := model.Message{Role: "assistant", Content: "4"}
	q := model.Message{Role: "user", Content: ctx + "Question: the mean?"}
	for _, tc := range []struct {
		name  string
		model string
		req   model.Request
		where string // the block marked; "" for none
		text  string // the prefix the mark keeps
		order string // the first message's block types, when checked
	}{
		{"context in the question's message", "claude-sonnet-4-5",
			model.Request{System: "sys", Messages: []model.Message{q}, Prefix: model.Prefix{System: true, Text: len(ctx), Tokens: 1200}},
			"messages[0].content[0]", "sys" + ctx, "text text"},
		{"the question's image after the shared text", "claude-sonnet-4-5",
			model.Request{Messages: []model.Message{{Role: "user", Content: q.Content, Images: []model.Image{{MediaType: "image/png", Data: []byte("png")}}}},
				Prefix: model.Prefix{Text: len(ctx), Tokens: 1200}},
			"messages[0].content[0]", ctx, "text image text"},
		{"unmarked, the image first", "claude-sonnet-4-5",
			model.Request{Messages: []model.Message{{Role: "user", Content: q.Content, Images: []model.Image{{MediaType: "image/png", Data: []byte("png")}}}}},
			"", "", "image text"},
		{"below the model's minimum", "claude-haiku-4-5",
			model.Request{System: "sys", Messages: []model.Message{q}, Prefix: model.Prefix{System: true, Text: len(ctx), Tokens: 1200}},
			"", "", "text"},
		{"past Haiku 4.5's 4096", "claude-haiku-4-5",
			model.Request{Messages: []model.Message{q}, Prefix: model.Prefix{Text: len(ctx), Tokens: 5000}},
			"messages[0].content[0]", ctx, "text text"},
		{"the system message alone", "claude-sonnet-4-5",
			model.Request{System: ctx, Messages: []model.Message{{Role: "user", Content: "q"}}, Prefix: model.Prefix{System: true, Tokens: 1200}},
			"system[0]", ctx, "text"},
		{"whole few-shot turns", "claude-sonnet-4-5",
			model.Request{Messages: []model.Message{few, ans, {Role: "user", Content: "q"}}, Prefix: model.Prefix{Messages: 2, Tokens: 2000}},
			"messages[1].content[0]", few.Content + ans.Content, "text"},
		{"no prefix", "claude-sonnet-4-5", model.Request{System: "sys", Messages: []model.Message{q}}, "", "", "text"},
		{"never inside a character", "claude-sonnet-4-5",
			model.Request{Messages: []model.Message{{Role: "user", Content: "é" + q.Content}}, Prefix: model.Prefix{Text: 1, Tokens: 2000}},
			"", "", "text"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := newFakeAnthropic(t, fakeserver.Options{})
			m, err := newModel("anthropic/"+tc.model, model.Options{BaseURL: srv.URL, APIKey: "sk-ant-test"})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := m.Complete(context.Background(), tc.req); err != nil {
				t.Fatal(err)
			}
			c := srv.Calls()[0]
			switch {
			case tc.where == "" && len(c.CacheMarks) > 0:
				t.Errorf("marks %+v, want none", c.CacheMarks)
			case tc.where != "" && (len(c.CacheMarks) != 1 || c.CacheMarks[0].Where != tc.where || c.CacheMarks[0].Prefix != tc.text):
				t.Errorf("marks %+v, want one at %s", c.CacheMarks, tc.where)
			}
			if tc.order != "" {
				var kinds []string
				for _, rb := range c.Body["messages"].([]any)[0].(map[string]any)["content"].([]any) {
					kinds = append(kinds, rb.(map[string]any)["type"].(string))
				}
				if got := strings.Join(kinds, " "); got != tc.order {
					t.Errorf("blocks %s, want %s", got, tc.order)
				}
			}
			// What the model reads is what it read before: the text
			// blocks of each message joined are its content.
			msgs := c.Body["messages"].([]any)
			for i, rm := range msgs {
				var joined strings.Builder
				for _, rb := range rm.(map[string]any)["content"].([]any) {
					if b := rb.(map[string]any); b["type"] == "text" {
						joined.WriteString(b["text"].(string))
					}
				}
				if joined.String() != tc.req.Messages[i].Content {
					t.Errorf("message %d reads %.40q..., want its content", i, joined.String())
				}
			}
		})
	}
}

// cacheMin gives each model Anthropic's minimum.
func TestCacheMin(t *testing.T) {
	for name, want := range map[string]int{
		"claude-opus-4-6": 4096, "claude-opus-4-5-20251101": 4096, "claude-haiku-4-5": 4096,
		"claude-sonnet-4-6": 2048, "claude-3-5-haiku-20241022": 2048, "claude-3-haiku-20240307": 2048,
		"claude-sonnet-4-5": 1024, "claude-opus-4-1": 1024, "claude-opus-4-20250514": 1024, "claude-sonnet-4": 1024,
		"claude-3-7-sonnet-latest": 1024, "claude-next-9": 4096,
	} {
		if got := cacheMin(name); got != want {
			t.Errorf("cacheMin(%s) = %d, want %d", name, got, want)
		}
	}
}

// An agent's turn marks the end of its conversation too, so the next turn
// reads what this one sent: two marks, the sheet's prefix and the turn's.
func TestCacheBreakpointsAgentTurn(t *testing.T) {
	ctx := strings.Repeat("workbook row\n", 400)
	req := model.Request{
		Messages: []model.Message{
			{Role: "user", Content: ctx + "Question: the mean?"},
			{Role: "assistant", ToolCalls: []model.ToolCall{{ID: "c1", Name: "python", Arguments: `{"code":"1"}`}}},
			{Role: "tool", ToolCallID: "c1", Content: "1"},
		},
		Tools:  []model.Tool{{Name: "python", Description: "run", Parameters: []byte(`{"type":"object","properties":{"code":{"type":"string"}}}`)}},
		Prefix: model.Prefix{Text: len(ctx), Tokens: 1500},
	}
	srv := newFakeAnthropic(t, fakeserver.Options{})
	m, err := newModel("anthropic/claude-sonnet-4-5", model.Options{BaseURL: srv.URL, APIKey: "sk-ant-test"})
	if err != nil {
		t.Fatal(err)
	}
	for _, prefix := range []model.Prefix{req.Prefix, {}} {
		req.Prefix = prefix
		if _, err := m.Complete(context.Background(), req); err != nil {
			t.Fatal(err)
		}
	}
	calls := srv.Calls()
	var where []string
	for _, mk := range calls[0].CacheMarks {
		where = append(where, mk.Where)
	}
	if got := strings.Join(where, " "); got != "messages[0].content[0] messages[2].content[0]" {
		t.Errorf("marks at %s", got)
	}
	if len(calls[1].CacheMarks) != 0 {
		t.Errorf("no prefix, yet marks %+v", calls[1].CacheMarks)
	}
}
