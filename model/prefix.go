package model

import (
	"bytes"
	"strings"
	"unicode/utf8"
)

// Prefix is the start of a request that other requests send too, byte for
// byte: the system message, whole messages from the first (images
// included), then the first Text bytes of the next message's Content,
// which a provider sends before that message's images. A provider's prompt
// cache keeps it once and serves it to the rest (Info.CacheMin).
type Prefix struct {
	System   bool // the system message is shared (and not empty)
	Messages int  // whole messages shared, from the first
	Text     int  // bytes of Content of message Messages shared
	// Tokens is the shared part's size in tokens, as estimated by the
	// caller; providers compare it with their minimum.
	Tokens int
}

// IsZero says p shares nothing.
func (p Prefix) IsZero() bool { return p == Prefix{} }

// SharedText is the text p covers in r: the system message, if shared,
// then each shared message's content, then the shared start of the next.
func (p Prefix) SharedText(r Request) string {
	var b strings.Builder
	if p.System {
		b.WriteString(r.System)
	}
	for i := 0; i < p.Messages && i < len(r.Messages); i++ {
		b.WriteString(r.Messages[i].Content)
	}
	if p.Messages < len(r.Messages) {
		b.WriteString(r.Messages[p.Messages].Content[:min(p.Text, len(r.Messages[p.Messages].Content))])
	}
	return b.String()
}

// CommonPrefix finds the prefix a set of requests share, one request at
// a time (Add), holding only the first: a sheet of a million questions is
// not held to find it.
type CommonPrefix struct {
	first Request
	p     Prefix
	n     int
}

// Add takes one more request.
func (c *CommonPrefix) Add(r Request) {
	c.n++
	if c.n == 1 {
		c.first = r
		c.p = Prefix{System: r.System != "", Messages: len(r.Messages)}
		return
	}
	if r.System != c.first.System {
		c.p = Prefix{}
		return
	}
	k := 0
	for k < c.p.Messages && k < len(r.Messages) && sameMessage(c.first.Messages[k], r.Messages[k]) {
		k++
	}
	// The requests before r share the first's message k whole when k is
	// below the earlier count, so r alone bounds the text shared in it.
	text := 0
	if k < len(c.first.Messages) && k < len(r.Messages) {
		text = sharedBytes(c.first.Messages[k], r.Messages[k])
	}
	if k == c.p.Messages {
		text = min(text, c.p.Text)
	}
	c.p.Messages, c.p.Text = k, text
}

// Prefix is what every request added starts with, the text of a message
// shared in part cut back to the end of a line (a question's own text may
// start with the words of another's), else to a whole character; nothing
// for fewer than two requests. Its Tokens are left to the caller.
func (c *CommonPrefix) Prefix() Prefix {
	p := c.p
	if c.n < 2 {
		return Prefix{}
	}
	if p.Messages >= len(c.first.Messages) {
		p.Text = 0
		return p
	}
	content := c.first.Messages[p.Messages].Content
	if p.Text == 0 {
		return p
	}
	s := content[:p.Text]
	if nl := strings.LastIndexByte(s, '\n'); nl >= 0 {
		p.Text = nl + 1
		return p
	}
	for p.Text > 0 && p.Text < len(content) && !utf8.RuneStart(content[p.Text]) {
		p.Text--
	}
	return p
}

// SharedText is the text of the prefix found so far, in the first request
// added (Prefix.SharedText).
func (c *CommonPrefix) SharedText() string { return c.Prefix().SharedText(c.first) }

// sharedBytes is how many bytes of content a and b share from the start;
// 0 when their role differs or they call tools. Their images may differ
// (a question's own figure): providers send a message's images after the
// text its prefix shares (OpenAI's text first, Anthropic's split).
func sharedBytes(a, b Message) int {
	if a.Role != b.Role || len(a.ToolCalls) > 0 || len(b.ToolCalls) > 0 {
		return 0
	}
	i := 0
	for i < len(a.Content) && i < len(b.Content) && a.Content[i] == b.Content[i] {
		i++
	}
	return i
}

// sameMessage says a and b are one message as a provider sends it.
func sameMessage(a, b Message) bool {
	if a.Role != b.Role || a.Content != b.Content || a.ToolCallID != b.ToolCallID ||
		len(a.ToolCalls) > 0 || len(b.ToolCalls) > 0 || len(a.ReasoningBlocks) > 0 || len(b.ReasoningBlocks) > 0 {
		return false
	}
	return sameImages(a.Images, b.Images)
}

func sameImages(a, b []Image) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].MediaType != b[i].MediaType || !bytes.Equal(a[i].Data, b[i].Data) {
			return false
		}
	}
	return true
}
