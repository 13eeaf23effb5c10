package model

import "strings"

// The think_tags rules: what is done with the <think> blocks at the start
// of a reply's text, which local reasoning models (DeepSeek-R1 and Qwen3
// on llama.cpp, vLLM without a reasoning parser, many ollama models) write
// into the content itself.
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

const (
	thinkOpen  = "<think>"
	thinkClose = "</think>"
)

// SplitThink applies a think_tags rule ("" is ThinkAuto) to r, the one
// place the rule is applied: every reasoning block that leads r.Text is
// taken out, and what follows them, trimmed, is the answer. A block is a
// <think>...</think> (white space before it allowed), or a text up to a
// </think> with no <think> before it (chat templates that open the block
// in the prompt, as DeepSeek-R1's does). A block never closed (the reply
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
		if after, found := strings.CutPrefix(rest, thinkOpen); found {
			block, tail, closed := strings.Cut(after, thinkClose)
			blocks++
			keep(block)
			if !closed {
				return strings.Join(thoughts, "\n\n"), "", blocks, true
			}
			text = tail
			continue
		}
		before, after, found := strings.Cut(rest, thinkClose)
		if !found || strings.Contains(before, thinkOpen) {
			return strings.Join(thoughts, "\n\n"), strings.TrimSpace(rest), blocks, false
		}
		blocks++
		keep(before)
		text = after
	}
}
