package result

// Tally counts an output file's questions as a run's summary shows them:
// how many, how many graded correct, answered from an earlier output
// (ReusedFrom), graded liberally and graded by a person's verdict
// (Review). A run adds each question as it is
// settled, so the summary never reads an output back.
type Tally struct {
	Questions, Correct, Reused, Liberal, Reviewed int
}

// Add counts q.
func (t *Tally) Add(q *Question) {
	t.Questions++
	if q.Grade != nil && *q.Grade {
		t.Correct++
	}
	if q.ReusedFrom != "" {
		t.Reused++
	}
	if q.Liberal() {
		t.Liberal++
	}
	if q.Review != nil {
		t.Reviewed++
	}
}

// AddTokens adds the token counts of u, a question's (Question.Tokens)
// or another run's totals, to t's: input and output tokens, and their
// parts counted apart (reasoning, cache read and cache write). It is the
// one sum of them, for the totals of a run's parts and agg's per model.
func (t *Totals) AddTokens(u *Totals) {
	t.InputTokens += u.InputTokens
	t.OutputTokens += u.OutputTokens
	t.ReasoningTokens += u.ReasoningTokens
	t.CacheReadTokens += u.CacheReadTokens
	t.CacheWriteTokens += u.CacheWriteTokens
}

// Tokens is q's token counts as Totals holds them, the rest zero.
func (q *Question) Tokens() Totals {
	return Totals{InputTokens: q.InputTokens, OutputTokens: q.OutputTokens, ReasoningTokens: q.ReasoningTokens,
		CacheReadTokens: q.CacheReadTokens, CacheWriteTokens: q.CacheWriteTokens}
}
