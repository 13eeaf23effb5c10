package model

import "testing"

func TestSplitThink(t *testing.T) {
	for _, c := range []struct {
		name, text, server, rule string
		answer, reasoning        string
	}{
		{"a model that doubts aloud", "<think>Could it be B) 5? Or A) 4... I think A) 4.</think>\nA) 4", "", "",
			"A) 4", "Could it be B) 5? Or A) 4... I think A) 4."},
		{"auto by name", "  <think>x</think>y", "", ThinkAuto, "y", "x"},
		{"keep", "<think>x</think>y", "", ThinkKeep, "<think>x</think>y", ""},
		{"strip", "<think>x</think>y", "", ThinkStrip, "y", ""},
		{"cut while thinking", "<think>still going", "", "", "", "still going"},
		{"opened by the template", "x\n</think>\n\ny", "", "", "y", "x"},
		{"not at the start", "y <think>x</think>", "", "", "y <think>x</think>", ""},
		{"a close after an open mid-text", "a <think>x</think> b", "", "", "a <think>x</think> b", ""},
		{"none", "y", "", "", "y", ""},
		{"after the server's own", "<think>x</think>y", "r", "", "y", "r\n\nx"},
		{"server's own kept when stripping", "<think>x</think>y", "r", ThinkStrip, "y", "r"},
		{"empty block", "<think>\n</think>\n\ny", "", "", "y", ""},
	} {
		got := SplitThink(Response{Text: c.text, Reasoning: c.server}, c.rule)
		if got.Text != c.answer || got.Reasoning != c.reasoning {
			t.Errorf("%s: SplitThink(%q, %q) = %q, reasoning %q; want %q, %q", c.name, c.text, c.rule, got.Text, got.Reasoning, c.answer, c.reasoning)
		}
	}
}
