package anthropic

import (
	"strings"
	"unicode/utf8"

	"github.com/evalmd/evalmd/model"
)

// cacheControl marks the end of a prefix for Anthropic's prompt cache:
// the request up to and including the block that carries it is cached
// (for five minutes, "ephemeral", the only type).
type cacheControl struct {
	Type string `json:"type"`
}

// cacheMin is the fewest tokens of a prefix Anthropic's prompt cache keeps
// for a model; a shorter prefix marked is sent uncached, at no extra cost.
// Opus 4.5 and 4.6 and Haiku 4.5 keep 4,096, Sonnet 4.6 and the Haiku 3
// models 2,048, the other Claude 3 and 4 models 1,024 (Anthropic's prompt
// caching page). A model not listed takes 4,096: the newer models' figure,
// so no run waits for a prefix too short to be kept.
func cacheMin(name string) int {
	for _, m := range []struct {
		part string
		min  int
	}{
		{"opus-4-5", 4096}, {"opus-4-6", 4096}, {"haiku-4-5", 4096},
		{"sonnet-4-6", 2048}, {"3-5-haiku", 2048}, {"3-haiku", 2048},
		{"opus-4-1", 1024}, {"opus-4", 1024}, {"sonnet-4-5", 1024}, {"sonnet-4", 1024},
		{"3-7-sonnet", 1024}, {"3-5-sonnet", 1024}, {"3-opus", 1024}, {"3-sonnet", 1024},
	} {
		if strings.Contains(name, m.part) {
			return m.min
		}
	}
	return 4096
}

// cacheAt says where a request's prefix ends among the blocks params
// builds: whether on the system block, else the message (of req) and
// where in its text; marked is false when the prefix is not marked (none,
// or shorter than the model keeps).
type cacheAt struct {
	marked bool
	system bool
	msg    int // the message of req whose text the prefix ends in, or after
	text   int // bytes of that message's text in the prefix; 0: the prefix ends before it
}

// cachePoint is where req's prefix ends, for a model keeping min tokens.
func cachePoint(req model.Request, min int) cacheAt {
	p := req.Prefix
	if p.IsZero() || min <= 0 || p.Tokens < min {
		return cacheAt{}
	}
	if p.Messages == 0 && p.Text == 0 {
		return cacheAt{marked: p.System, system: p.System}
	}
	return cacheAt{marked: true, msg: p.Messages, text: p.Text}
}

// split says whether req's prefix ends inside the text of its message i,
// and if so the text block of the shared start (marked) and the rest of
// the text, which joined are the message's text.
func (c cacheAt) split(i int, content string) (shared block, own string, ok bool) {
	if !c.marked || c.system || c.msg != i || c.text <= 0 || c.text > len(content) ||
		(c.text < len(content) && !utf8.RuneStart(content[c.text])) {
		// Never inside a character: the halves would not encode back to
		// the text.
		return block{}, "", false
	}
	shared = textBlock(content[:c.text])
	shared.CacheControl = ephemeral()
	return shared, content[c.text:], true
}

// endsBefore says the prefix ends with the whole of req's message i
// (the message before the one it ends in, when it ends between two).
func (c cacheAt) endsBefore(i int) bool {
	return c.marked && !c.system && c.text == 0 && i == c.msg-1
}

func ephemeral() *cacheControl { return &cacheControl{Type: "ephemeral"} }

// markTurns marks the end of an agent's conversation so far (a request
// offering tools, past its first message), where the sheet's prefix is
// marked: each turn sends the one before it again, so the next turn
// reads from the cache what this one writes. With the prefix's, two of
// the four marks a request may carry.
func (c cacheAt) markTurns(p *request, req model.Request) {
	if !c.marked || len(req.Tools) == 0 || len(p.Messages) < 2 {
		return
	}
	last := p.Messages[len(p.Messages)-1].Content
	if n := len(last); n > 0 && last[n-1].CacheControl == nil && (last[n-1].Type != "text" || *last[n-1].Text != "") {
		last[n-1].CacheControl = ephemeral()
	}
}
