package fakeserver

import (
	"net/http"
	"strings"
	"testing"
)

// The fake checks cache_control as Anthropic's API does: the type
// ephemeral with an optional ttl, on blocks that take it, at most four.
func TestAnthropicCacheControlRules(t *testing.T) {
	srv := NewAnthropic(t, Options{})
	mark := func(cc string) string { return `{"type":"text","text":"ctx","cache_control":` + cc + `}` }
	for _, c := range []struct {
		name, content string
		status        int
		msg           string
	}{
		{"ephemeral", mark(`{"type":"ephemeral"}`), 200, ""},
		{"an hour", mark(`{"type":"ephemeral","ttl":"1h"}`), 200, ""},
		{"bad ttl", mark(`{"type":"ephemeral","ttl":"2h"}`), 400, "ttl"},
		{"bad type", mark(`{"type":"persistent"}`), 400, "ephemeral"},
		{"extra member", mark(`{"type":"ephemeral","scope":"x"}`), 400, "extra inputs"},
		{"not an object", mark(`"ephemeral"`), 400, "want an object"},
		{"empty text", `{"type":"text","text":"","cache_control":{"type":"ephemeral"}}`, 400, "empty text"},
		{"four", strings.Repeat(mark(`{"type":"ephemeral"}`)+",", 3) + mark(`{"type":"ephemeral"}`), 200, ""},
		{"five", strings.Repeat(mark(`{"type":"ephemeral"}`)+",", 4) + mark(`{"type":"ephemeral"}`), 400, "maximum of 4"},
	} {
		body := `{"model":"m","max_tokens":100,"messages":[{"role":"user","content":[` + c.content + `]}]}`
		status, reply, err := post(t, http.DefaultClient, srv.URL+"/v1/messages", body)
		if err != nil || status != c.status || !strings.Contains(reply, c.msg) {
			t.Errorf("%s: status %d (%v) %s; want %d %q", c.name, status, err, reply, c.status, c.msg)
		}
	}
	calls := srv.Calls()
	if len(calls) == 0 || len(calls[0].CacheMarks) != 1 || calls[0].CacheMarks[0] != (CacheMark{Where: "messages[0].content[0]", Prefix: "ctx"}) {
		t.Errorf("first call's marks: %+v", calls[0].CacheMarks)
	}
}
