package grade

import (
	"context"
	"testing"
)

const choiceQ = "Q: What is the maximum number of guesses you can make in a game of Wordle?\nA) 5\nB) 6\nC) 7\nD) No limit\n"
const choiceQLower = "Which letter is green?\na) the first\nb) the second\nc) the third\nd) none\n"
const choiceQParen = "How many tiles?\n(A) 25\n(B) 30\n(C) 35\n(D) 40\n(E) 45\n"

// TestChoice grades realistic completions; each verdict is what a careful
// person marking the answer sheet would give.
func TestChoice(t *testing.T) {
	tests := []struct {
		name, question, truth, completion string
		want                              bool
	}{
		// Bare and decorated letters.
		{"bare", choiceQ, "D", "D", true},
		{"bare wrong", choiceQ, "B) 6", "D", false},
		{"answer colon", choiceQ, "D", "Answer: D", true},
		{"answer em dash", choiceQ, "C", "Answer — C", true},
		{"bold paren", choiceQ, "D) No limit", "**(D)**", true},
		{"correct option is", choiceQ, "D", "the correct option is D. 75", true},
		{"label and text", choiceQ, "B) 6", "B) 6", true},
		{"label and text wrong", choiceQ, "B) 6", "A) 5", false},
		{"letter dot text", choiceQ, "C", "C. 7", true},
		{"backticks", choiceQ, "B", "`B`", true},
		{"heading", choiceQ, "B", "### Answer\nB", true},
		{"trailing period", choiceQ, "B", "B.", true},
		{"letter then explanation", choiceQ, "B", "B\n\nWordle gives you six tries to guess the word.", true},
		{"letter dash", choiceQ, "B", "B - six guesses", true},
		{"quoted", choiceQ, "C", "\"C\"", true},
		{"bracket", choiceQ, "C", "[C]", true},
		{"lowercase bare uppercase set", choiceQ, "B", "b", true},
		{"lowercase label uppercase set", choiceQ, "B", "b) 6", true},

		// Chatty replies.
		{"chatty answer is", choiceQ, "B", "Great question! The answer is B, since Wordle allows six guesses.", true},
		{"chatty i choose", choiceQ, "B", "After thinking it over, I choose B.", true},
		{"chatty go with", choiceQ, "B", "I'd go with option B) 6.", true},
		{"chatty probably", choiceQ, "B", "The answer is probably (B).", true},
		{"stated correct", choiceQ, "B", "B) 6 is correct because the game gives you six rows.", true},
		{"article then letter", choiceQ, "C", "A good choice is C", true},
		{"article then wrong letter", choiceQ, "B", "A good choice is C", false},
		{"pronoun then letter", choiceQ, "B", "I think B", true},
		{"pronoun answer", choiceQ, "B", "I believe the answer is B.", true},
		{"not sure but commits", choiceQ, "B", "I'm not sure, but the answer is probably B.", true},
		{"option mention", choiceQ, "D", "Option D, because there is no limit in the unlimited variant.", true},
		{"answer is not A", choiceQ, "B", "The answer is B, not A.", true},
		{"eg abbreviation", choiceQ, "B", "Six guesses, e.g. a full board, so B.", true},

		// Markdown and JSON.
		{"bold answer", choiceQ, "C", "**Answer:** C", true},
		{"bold final", choiceQ, "C", "Some reasoning here.\n\n**Final answer: (C)**", true},
		{"json", choiceQ, "A", `{"answer": "A", "reason": "five guesses"}`, true},
		{"json wrong", choiceQ, "B", `{"answer": "A", "reason": "five guesses"}`, false},
		{"json fenced", choiceQ, "B", "```json\n{\"answer\": \"B\"}\n```", true},
		{"table", choiceQ, "B", "| field | value |\n|---|---|\n| answer | B |", true},

		// Chain of thought.
		{"cot final", choiceQ, "C", "Let's go through the options. A) 5 is too few. B) 6 is the standard game. Hmm, but the question says maximum.\nFinal answer: C", true},
		{"cot final wrong", choiceQ, "B", "Let's go through the options. A) 5 is too few. B) 6 is the standard game.\nFinal answer: C", false},
		{"cot therefore", choiceQ, "B", "Option A is incorrect because you get more than five tries. Option C is incorrect too. Therefore, the answer is B.", true},
		{"cot stated correct last", choiceQ, "B", "A) is incorrect. C) is incorrect. B) is correct.", true},
		{"final outranks later mention", choiceQ, "C", "Final answer: C. Option A would have been wrong.", true},
		{"answer twice last wins", choiceQ, "D", "My first answer was A. On reflection the answer is D.", true},

		// Refusals and hedges.
		{"refusal", choiceQ, "B", "I cannot answer this question.", false},
		{"dont know", choiceQ, "B", "I don't know.", false},
		{"hedge either", choiceQ, "B", "It could be either B or C.", false},
		{"hedge not sure two", choiceQ, "B", "I'm not sure whether it's B or C.", false},
		{"cannot determine", choiceQ, "B", "Cannot be determined from the information given.", false},
		{"hedge maybe", choiceQ, "A", "The answer is not clear; maybe A.", false},
		{"hedge could be", choiceQ, "B", "It could be B.", false},
		{"decides after weighing two", choiceQ, "C", "Both B and C seem plausible, but I'll go with C.", true},
		{"xml tags", choiceQ, "B", "<answer>B</answer>", true},
		{"answer then confidence", choiceQ, "B", "Answer: B\nConfidence: high", true},
		{"empty", choiceQ, "B", "", false},
		{"no letter", choiceQ, "B", "Six guesses.", false},

		// Several options named.
		{"a or b", choiceQ, "A", "A or B", false},
		{"a and c", choiceQ, "A", "A and C", false},
		{"answer a or b", choiceQ, "B", "The answer is A or B.", false},
		{"slash", choiceQ, "B", "Answer: B/C", false},
		{"comma list", choiceQ, "B", "Answer: B, C", false},
		{"labels or", choiceQ, "A", "A) 5 or B) 6", false},
		{"both correct", choiceQ, "A", "Both A and C are correct.", false},
		{"two mentions", choiceQ, "C", "Option A says five; option C says seven.", false},

		// Lower-case option sets.
		{"lower bare", choiceQLower, "b", "b", true},
		{"lower label", choiceQLower, "b) the second", "b) the second", true},
		{"lower answer", choiceQLower, "c", "The answer is c.", true},
		{"lower article", choiceQLower, "c", "a reasonable pick is c", true},
		{"lower upper reply", choiceQLower, "b", "Answer: B", true},
		{"lower wrong", choiceQLower, "b", "The answer is d.", false},
		{"lower article only", choiceQLower, "a", "a good question, hard to say", false},

		// Parenthesised option sets and five options.
		{"paren e", choiceQParen, "(E) 45", "(E) 45", true},
		{"paren e wrong", choiceQParen, "(E) 45", "The answer is (D) 40.", false},
		{"paren sentence", choiceQParen, "E", "There are 45 tiles, so the answer is (E).", true},
		{"letter not offered", choiceQ, "B", "The answer is E.", false},
		{"truth with answer prefix", choiceQ, "Answer: B", "B", true},
	}
	ctx := context.Background()
	g := newChoice(Options{})
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, err := g.Grade(ctx, Input{Question: tt.question, Truth: tt.truth, Completion: tt.completion})
			if err != nil {
				t.Fatal(err)
			}
			if v.Correct == nil || *v.Correct != tt.want {
				t.Errorf("completion %q truth %q: got %s, want %t (%s)", tt.completion, tt.truth, limeFmtBool(v.Correct), tt.want, v.Detail)
			}
		})
	}
	if len(tests) < 60 {
		t.Errorf("only %d cases", len(tests))
	}
}

func TestChoiceTruthLetter(t *testing.T) {
	tests := []struct {
		truth string
		want  byte
	}{
		{"B", 'B'}, {"B) 6", 'B'}, {"(b)", 'b'}, {"**C.** 12", 'C'}, {"Answer: D", 'D'},
		{" d: none ", 'd'}, {"6", 0}, {"Blue", 0}, {"", 0}, {"A, the first", 'A'},
	}
	for _, tt := range tests {
		got, ok := choiceTruthLetter(tt.truth)
		if got != tt.want || ok != (tt.want != 0) {
			t.Errorf("choiceTruthLetter(%q) = %q, %t; want %q", tt.truth, got, ok, tt.want)
		}
	}
}

func TestChoiceNoTruthLetter(t *testing.T) {
	v, err := newChoice(Options{}).Grade(context.Background(), Input{Truth: "six", Completion: "B"})
	if err != nil || v.Correct != nil {
		t.Errorf("truth without a letter: got %s, %v; want null", limeFmtBool(v.Correct), err)
	}
}

func FuzzChoiceExtract(f *testing.F) {
	for _, s := range []string{"ȺȺȺȺ B is correct", "İİİİİİ answer: B", "D", "Answer: D", "**(D)**", "A or B", "A good choice is C", "Final answer: C", "a", "I", "(", "answer:", "e.g.", "\xff"} {
		f.Add(s, choiceQ)
	}
	f.Fuzz(func(t *testing.T, completion, question string) {
		set := choiceOptionSet(question, 'B')
		c, why := choiceExtract(completion, set)
		if why == "" {
			t.Fatalf("no reason for %q", completion)
		}
		if c != 0 && !choiceIsLetter(c) {
			t.Fatalf("extracted non-letter %q from %q", c, completion)
		}
		if _, err := newChoice(Options{}).Grade(context.Background(), Input{Truth: "B", Completion: completion, Question: question}); err != nil {
			t.Fatal(err)
		}
	})
}
