package model

import "testing"

// CommonPrefix finds what every request starts with: the system message,
// whole messages, then the start of the next cut back to a line's end.
func TestCommonPrefix(t *testing.T) {
	user := func(texts ...string) []Message {
		var ms []Message
		for _, s := range texts {
			ms = append(ms, Message{Role: "user", Content: s})
		}
		return ms
	}
	png := []Image{{MediaType: "image/png", Data: []byte{1, 2}}}
	for _, tc := range []struct {
		name string
		reqs []Request
		want Prefix
	}{
		{"one request", []Request{{System: "s", Messages: user("ctx\nq1")}}, Prefix{}},
		{"sheet text", []Request{{Messages: user("Intro\nWhat is 1?")}, {Messages: user("Intro\nWhat is 2?")}},
			Prefix{Text: len("Intro\n")}},
		{"system and text", []Request{{System: "s", Messages: user("ab\ncd")}, {System: "s", Messages: user("ab\nce")}, {System: "s", Messages: user("ab\nc")}},
			Prefix{System: true, Text: 3}},
		{"system differs", []Request{{System: "s1", Messages: user("ab\ncd")}, {System: "s2", Messages: user("ab\ncd")}}, Prefix{}},
		{"system only", []Request{{System: "s", Messages: user("x")}, {System: "s", Messages: user("y")}}, Prefix{System: true}},
		{"few-shot turns whole", []Request{{Messages: user("shot", "ctx\nq1")}, {Messages: user("shot", "ctx\nq2")}},
			Prefix{Messages: 1, Text: 4}},
		{"a later request shares less", []Request{{Messages: user("a\nb\nc1")}, {Messages: user("a\nb\nc2")}, {Messages: user("a\nx")}},
			Prefix{Text: 2}},
		{"no line end: a whole character", []Request{{Messages: user("héllo1")}, {Messages: user("hé")}, {Messages: user("h\xc3x")}},
			Prefix{Text: len("h")}},
		{"other images", []Request{{Messages: []Message{{Role: "user", Content: "ctx\nq", Images: png}}}, {Messages: user("ctx\nq2")}}, Prefix{Text: 4}},
		{"a whole message with other images", []Request{{Messages: []Message{{Role: "user", Content: "shot", Images: png}, {Role: "user", Content: "q"}}}, {Messages: user("shot", "q")}},
			Prefix{Text: 4}},
		{"same images", []Request{{Messages: []Message{{Role: "user", Content: "ctx\nq", Images: png}}}, {Messages: []Message{{Role: "user", Content: "ctx\nq2", Images: png}}}},
			Prefix{Text: 4}},
		{"one is a prefix of the other", []Request{{Messages: user("ctx\n")}, {Messages: user("ctx\nmore")}}, Prefix{Text: 4}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var c CommonPrefix
			for _, r := range tc.reqs {
				c.Add(r)
			}
			got := c.Prefix()
			if got != tc.want {
				t.Fatalf("prefix = %+v, want %+v", got, tc.want)
			}
			// Every request starts with the text the prefix covers.
			shared := c.SharedText()
			for i, r := range tc.reqs {
				var all string
				all += r.System
				for _, m := range r.Messages {
					all += m.Content
				}
				if len(all) < len(shared) || all[:len(shared)] != shared {
					t.Errorf("request %d does not start with %q", i, shared)
				}
			}
		})
	}
}
