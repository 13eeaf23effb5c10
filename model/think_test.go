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
		{"upper case, auto", "<THINK>the answer is B) 5</THINK>\nA) 4", "", ThinkAuto, "A) 4", "the answer is B) 5"},
		{"thinking, auto", "<thinking>the answer is B) 5</thinking>\nA) 4", "", ThinkAuto, "A) 4", "the answer is B) 5"},
		{"reasoning, auto", "<reasoning>the answer is B) 5</reasoning>\nA) 4", "", ThinkAuto, "A) 4", "the answer is B) 5"},
		{"mixed case, opened by the template, auto", "the answer is B) 5\n</Thinking>\nA) 4", "", ThinkAuto, "A) 4", "the answer is B) 5"},
		{"harmony, auto", "<|channel|>analysis<|message|>The right one is B) 5? No: A) 4 is wrong, so B) 5.<|end|><|start|>assistant<|channel|>final<|message|>A) 4", "", ThinkAuto, "A) 4", "The right one is B) 5? No: A) 4 is wrong, so B) 5."},
		{"harmony ended by return, auto", "<|start|>assistant<|channel|>analysis<|message|>B) 5<|end|><|start|>assistant<|channel|>final<|message|>A) 4<|return|>", "", ThinkAuto, "A) 4", "B) 5"},
		{"harmony cut while thinking, auto", "<|channel|>analysis<|message|>B) 5, or", "", ThinkAuto, "", "B) 5, or"},
		{"upper case, keep", "<THINK>the answer is B) 5</THINK>\nA) 4", "", ThinkKeep, "<THINK>the answer is B) 5</THINK>\nA) 4", ""},
		{"thinking, keep", "<thinking>the answer is B) 5</thinking>\nA) 4", "", ThinkKeep, "<thinking>the answer is B) 5</thinking>\nA) 4", ""},
		{"reasoning, keep", "<reasoning>the answer is B) 5</reasoning>\nA) 4", "", ThinkKeep, "<reasoning>the answer is B) 5</reasoning>\nA) 4", ""},
		{"mixed case, opened by the template, keep", "the answer is B) 5\n</Thinking>\nA) 4", "", ThinkKeep, "the answer is B) 5\n</Thinking>\nA) 4", ""},
		{"harmony, keep", "<|channel|>analysis<|message|>The right one is B) 5? No: A) 4 is wrong, so B) 5.<|end|><|start|>assistant<|channel|>final<|message|>A) 4", "", ThinkKeep, "<|channel|>analysis<|message|>The right one is B) 5? No: A) 4 is wrong, so B) 5.<|end|><|start|>assistant<|channel|>final<|message|>A) 4", ""},
		{"harmony ended by return, keep", "<|start|>assistant<|channel|>analysis<|message|>B) 5<|end|><|start|>assistant<|channel|>final<|message|>A) 4<|return|>", "", ThinkKeep, "<|start|>assistant<|channel|>analysis<|message|>B) 5<|end|><|start|>assistant<|channel|>final<|message|>A) 4<|return|>", ""},
		{"harmony cut while thinking, keep", "<|channel|>analysis<|message|>B) 5, or", "", ThinkKeep, "", "B) 5, or"},
		{"upper case, strip", "<THINK>the answer is B) 5</THINK>\nA) 4", "", ThinkStrip, "A) 4", ""},
		{"thinking, strip", "<thinking>the answer is B) 5</thinking>\nA) 4", "", ThinkStrip, "A) 4", ""},
		{"reasoning, strip", "<reasoning>the answer is B) 5</reasoning>\nA) 4", "", ThinkStrip, "A) 4", ""},
		{"mixed case, opened by the template, strip", "the answer is B) 5\n</Thinking>\nA) 4", "", ThinkStrip, "A) 4", ""},
		{"harmony, strip", "<|channel|>analysis<|message|>The right one is B) 5? No: A) 4 is wrong, so B) 5.<|end|><|start|>assistant<|channel|>final<|message|>A) 4", "", ThinkStrip, "A) 4", ""},
		{"harmony ended by return, strip", "<|start|>assistant<|channel|>analysis<|message|>B) 5<|end|><|start|>assistant<|channel|>final<|message|>A) 4<|return|>", "", ThinkStrip, "A) 4", ""},
		{"harmony cut while thinking, strip", "<|channel|>analysis<|message|>B) 5, or", "", ThinkStrip, "", ""},
		{"a close of another name inside a block", "<think>a</reasoning>b</think>c", "", "", "c", "a</reasoning>b"},
		{"not harmony", "<|channel|>no message marker", "", "", "<|channel|>no message marker", ""},
		{"harmony mid-text", "A) 4 <|channel|>final<|message|>B", "", "", "A) 4 <|channel|>final<|message|>B", ""},
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
		"<think>a", " <think>a</think> b <think>c</think>", "a <think>b</think> c</think> d", "",
		"<THINKING>a</thinking>b", "<|channel|>analysis<|message|>a<|end|><|channel|>final<|message|><think>b</think>c",
		"<|start|>x<|channel|>commentary<|message|>a", "a</REASONING>b<think>c"} {
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
