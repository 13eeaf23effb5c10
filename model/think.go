package model

import "strings"

// The think_tags rules: what is done with the reasoning blocks at the
// start of a reply's text, which local reasoning models (DeepSeek-R1 and
// Qwen3 on llama.cpp, vLLM without a reasoning parser, gpt-oss without its
// harmony parser, many ollama models) write into the content itself.
const (
	// ThinkAuto moves the blocks to Response.Reasoning: the answer is what
	// follows them. The default.
	ThinkAuto = "auto"
	// ThinkKeep leaves the text as the server sent it, but for a reply cut
	// inside its reasoning, which has no answer under every rule.
	ThinkKeep = "keep"
	// ThinkStrip drops the blocks: the answer is what follows them, and
	// the reasoning is not kept.
	ThinkStrip = "strip"
)

// thinkNames are the tags a reasoning block is found in, matched in any
// case: <think> (DeepSeek-R1, Qwen3), <thinking> and <reasoning> (other
// fine-tunes and prompted models). A block opened by one name is closed by
// the same name.
var thinkNames = [...]string{"think", "thinking", "reasoning"}

// The markers of gpt-oss's harmony format, which a server without its
// parser returns in the content: messages on channels, the answer on
// "final", the reasoning on "analysis" (and tool preambles on
// "commentary").
const (
	harmonyStart   = "<|start|>"
	harmonyChannel = "<|channel|>"
	harmonyMessage = "<|message|>"
	harmonyFinal   = "final"
)

// harmonyEnds are the markers that end a harmony message.
var harmonyEnds = [...]string{"<|end|>", "<|return|>", "<|call|>"}

// SplitThink applies a think_tags rule ("" is ThinkAuto) to r, the one
// place the rule is applied: every reasoning block that leads r.Text is
// taken out, and what follows them, trimmed, is the answer. A block is a
// <think>...</think> or one of the other thinkNames' tags, in any case
// (white space before it allowed); a text up to a closing tag with no
// opening tag before it (chat templates that open the block in the
// prompt, as DeepSeek-R1's does); or harmony messages up to the final
// channel's, whose text is the answer. A block never closed (the reply
// was cut while thinking) is all reasoning and leaves no answer, under
// every rule: ThinkKeep keeps such a text as the reasoning. Reasoning the
// server returned apart comes first in Reasoning. Splitting what a split
// left changes nothing, so a recorded answer grades as it was graded.
func SplitThink(r Response, rule string) Response {
	thought, answer, blocks, cut := cutThink(r.Text)
	switch {
	case blocks == 0, rule == ThinkKeep && !cut:
		return r
	case rule == ThinkStrip:
		r.Text = answer
		return r
	}
	r.Text = answer
	if thought == "" {
		return r
	}
	if r.Reasoning != "" {
		thought = r.Reasoning + "\n\n" + thought
	}
	r.Reasoning = thought
	return r
}

// cutThink splits text into the contents of its leading reasoning blocks
// (joined by a blank line) and what follows them; blocks says how many
// there were, cut whether the last was never closed (then answer is "").
func cutThink(text string) (thought, answer string, blocks int, cut bool) {
	var thoughts []string
	keep := func(s string) {
		if s = strings.TrimSpace(s); s != "" {
			thoughts = append(thoughts, s)
		}
	}
	for {
		rest := strings.TrimLeft(text, " \t\r\n")
		if strings.HasPrefix(rest, harmonyStart) || strings.HasPrefix(rest, harmonyChannel) {
			if reasoning, final, ok := cutHarmony(rest); ok {
				blocks++
				keep(reasoning)
				if final == nil {
					return strings.Join(thoughts, "\n\n"), "", blocks, true
				}
				text = *final
				continue
			}
		}
		if name, n := openTag(rest); n > 0 {
			block, tail, closed := cutClose(rest[n:], name)
			blocks++
			keep(block)
			if !closed {
				return strings.Join(thoughts, "\n\n"), "", blocks, true
			}
			text = tail
			continue
		}
		before, after, found := loneClose(rest)
		if !found {
			return strings.Join(thoughts, "\n\n"), strings.TrimSpace(rest), blocks, false
		}
		blocks++
		keep(before)
		text = after
	}
}

// openTag is the name of the reasoning tag s opens with and the tag's
// length, or 0 when s opens with none.
func openTag(s string) (name string, n int) {
	for _, name := range thinkNames {
		tag := "<" + name + ">"
		if len(s) >= len(tag) && asciiLower(s[:len(tag)]) == tag {
			return name, len(tag)
		}
	}
	return "", 0
}

// cutClose cuts s around the first closing tag of name, in any case.
func cutClose(s, name string) (before, after string, found bool) {
	tag := "</" + name + ">"
	i := strings.Index(asciiLower(s), tag)
	if i < 0 {
		return s, "", false
	}
	return s[:i], s[i+len(tag):], true
}

// loneClose cuts s around the first closing tag of any name when no
// opening tag comes before it: a block the chat template opened in the
// prompt, as DeepSeek-R1's does.
func loneClose(s string) (before, after string, found bool) {
	lower := asciiLower(s)
	at, width := -1, 0
	for _, name := range thinkNames {
		tag := "</" + name + ">"
		if i := strings.Index(lower, tag); i >= 0 && (at < 0 || i < at) {
			at, width = i, len(tag)
		}
	}
	if at < 0 {
		return s, "", false
	}
	for _, name := range thinkNames {
		if strings.Contains(lower[:at], "<"+name+">") {
			return s, "", false
		}
	}
	return s[:at], s[at+width:], true
}

// asciiLower lowers ASCII letters alone, so that the result has s's
// length and an index in it is an index in s.
func asciiLower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

// cutHarmony reads s as harmony messages: the reasoning is what every
// channel but the final one holds, and final what the final channel
// holds, nil when the reply ended before it (cut while thinking). ok is
// false when s is not harmony (no channel marked where one must be).
func cutHarmony(s string) (reasoning string, final *string, ok bool) {
	var thoughts []string
	for s != "" {
		s = strings.TrimPrefix(s, harmonyStart)
		i := strings.Index(s, harmonyChannel)
		j := strings.Index(s, harmonyMessage)
		if i < 0 || j < i {
			return "", nil, false
		}
		channel := strings.TrimSpace(s[i+len(harmonyChannel) : j])
		if k := strings.IndexAny(channel, " <"); k >= 0 {
			channel = channel[:k]
		}
		body, rest := cutHarmonyEnd(s[j+len(harmonyMessage):])
		if channel == harmonyFinal {
			return strings.Join(thoughts, "\n\n"), &body, true
		}
		if body = strings.TrimSpace(body); body != "" {
			thoughts = append(thoughts, body)
		}
		s = strings.TrimLeft(rest, " \t\r\n")
	}
	return strings.Join(thoughts, "\n\n"), nil, true
}

// cutHarmonyEnd cuts s at the first marker that ends a message, or keeps
// it whole when the reply ended inside it.
func cutHarmonyEnd(s string) (body, rest string) {
	at, width := len(s), 0
	for _, end := range harmonyEnds {
		if i := strings.Index(s, end); i >= 0 && i < at {
			at, width = i, len(end)
		}
	}
	return s[:at], s[at+width:]
}
