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
		{"two blocks, the truth in the second", "<think>A?</think>\n<think>no, B</think>\nA", "", "", "A", "A?\n\nno, B"},
		{"two blocks stripped", "<think>A?</think><think>no, B</think> A", "", ThinkStrip, "A", ""},
		{"two blocks kept", "<think>A?</think><think>B</think>A", "", ThinkKeep, "<think>A?</think><think>B</think>A", ""},
		{"opened by the template, then a block", "x</think>\n<think>y</think>z", "", "", "z", "x\n\ny"},
		{"a second lone close", "x</think>y</think>z", "", "", "z", "x\n\ny"},
		{"cut in the second block", "<think>a</think><think>b, the truth", "", "", "", "a\n\nb, the truth"},
		{"cut while thinking, kept", "<think>B, or A", "", ThinkKeep, "", "B, or A"},
		{"cut while thinking, kept, after the server's own", "<think>B", "r", ThinkKeep, "", "r\n\nB"},
		{"cut while thinking, stripped", "<think>B, or A", "", ThinkStrip, "", ""},
		{"cut in the second block, kept", "<think>a</think><think>b", "", ThinkKeep, "", "a\n\nb"},
	} {
		got := SplitThink(Response{Text: c.text, Reasoning: c.server}, c.rule)
		if got.Text != c.answer || got.Reasoning != c.reasoning {
			t.Errorf("%s: SplitThink(%q, %q) = %q, reasoning %q; want %q, %q", c.name, c.text, c.rule, got.Text, got.Reasoning, c.answer, c.reasoning)
		}
	}
}

// FuzzSplitThink: every rule leaves an answer that the same rule, applied
// again, leaves as it is (a recorded answer is graded as it was at run
// time), with no leading block, and a reply cut inside its reasoning has no
// answer under every rule.
func FuzzSplitThink(f *testing.F) {
	for _, s := range []string{"<think>a</think>b", "<think>a</think><think>b</think>c", "a</think>b</think>c",
		"<think>a", " <think>a</think> b <think>c</think>", "a <think>b</think> c</think> d", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		_, _, _, cut := cutThink(text)
		for _, rule := range []string{ThinkAuto, ThinkKeep, ThinkStrip} {
			once := SplitThink(Response{Text: text}, rule)
			twice := SplitThink(Response{Text: once.Text}, rule)
			if twice.Text != once.Text || twice.Reasoning != "" {
				t.Errorf("%s: SplitThink(%q) = %q, again %q (reasoning %q)", rule, text, once.Text, twice.Text, twice.Reasoning)
			}
			if cut && once.Text != "" {
				t.Errorf("%s: %q was cut inside its reasoning but answers %q", rule, text, once.Text)
			}
		}
	})
}
