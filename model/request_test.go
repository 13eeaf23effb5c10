package model

import (
	"strings"
	"testing"
)

// Check refuses what no provider can send, naming the message (and the
// image) at fault; a request every provider takes passes.
func TestRequestCheck(t *testing.T) {
	png := Image{MediaType: "image/png", Data: []byte{1}}
	for _, tc := range []struct {
		msgs []Message
		want string // "" for none
	}{
		{nil, "request has no messages"},
		{[]Message{{Role: "user", Content: "hi", Images: []Image{png}}, {Role: "assistant", ToolCalls: []ToolCall{{ID: "c1"}}},
			{Role: "tool", ToolCallID: "c1", Content: "4"}}, ""},
		{[]Message{{Role: "system", Content: "x"}}, `message 0: unknown role "system"`},
		{[]Message{{Role: "user"}, {Role: "assistant", Images: []Image{png}}}, "message 1: assistant messages cannot carry images"},
		{[]Message{{Role: "user"}, {Role: "tool", Content: "4"}}, "message 1: a tool result without the id of its call"},
		{[]Message{{Role: "user", Images: []Image{png, {MediaType: "image/png"}}}}, "message 0, image 1: no media type or no data"},
		{[]Message{{Role: "user", Images: []Image{{Data: []byte{1}}}}}, "message 0, image 0: no media type or no data"},
	} {
		err := Request{Messages: tc.msgs}.Check()
		if (err == nil) != (tc.want == "") || (err != nil && !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("%+v: %v, want %q", tc.msgs, err, tc.want)
		}
	}
}
