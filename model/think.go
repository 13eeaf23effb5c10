package model

import "strings"

// The think_tags rules: what is done with a <think> block at the start of
// a reply's text, which local reasoning models (DeepSeek-R1 and Qwen3 on
// llama.cpp, vLLM without a reasoning parser, many ollama models) write
// into the content itself.
const (
	// ThinkAuto moves the block to Response.Reasoning: the answer is what
	// follows it. The default.
	ThinkAuto = "auto"
	// ThinkKeep leaves the text as the server sent it.
	ThinkKeep = "keep"
	// ThinkStrip drops the block: the answer is what follows it, and the
	// reasoning is not kept.
	ThinkStrip = "strip"
)

const (
	thinkOpen  = "<think>"
	thinkClose = "</think>"
)

// SplitThink applies a think_tags rule ("" is ThinkAuto) to r: a text that
// starts (after white space) with <think> has its block up to </think>
// taken out, and what follows, trimmed, is the answer. A block never
// closed (the reply was cut while thinking) is all reasoning and leaves no
// answer. A text holding </think> with no <think> before it (chat
// templates that open the block in the prompt, as DeepSeek-R1's does) has
// what precedes it taken as the block. Reasoning the server returned apart
// comes first in Reasoning.
func SplitThink(r Response, rule string) Response {
	if rule == ThinkKeep {
		return r
	}
	thought, answer, ok := cutThink(r.Text)
	if !ok {
		return r
	}
	r.Text = answer
	if rule == ThinkStrip || thought == "" {
		return r
	}
	if r.Reasoning != "" {
		thought = r.Reasoning + "\n\n" + thought
	}
	r.Reasoning = thought
	return r
}

// cutThink splits text into a leading think block's content and what
// follows it; ok is false when text has no such block.
func cutThink(text string) (thought, answer string, ok bool) {
	rest := strings.TrimLeft(text, " \t\r\n")
	if after, found := strings.CutPrefix(rest, thinkOpen); found {
		thought, answer, closed := strings.Cut(after, thinkClose)
		if !closed {
			return strings.TrimSpace(after), "", true
		}
		return strings.TrimSpace(thought), strings.TrimSpace(answer), true
	}
	before, after, found := strings.Cut(text, thinkClose)
	if !found || strings.Contains(before, thinkOpen) {
		return "", "", false
	}
	return strings.TrimSpace(before), strings.TrimSpace(after), true
}
