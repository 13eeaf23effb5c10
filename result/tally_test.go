package result

import "testing"

func TestTally(t *testing.T) {
	yes, no := true, false
	f := &File{Questions: []Question{
		{Name: "a", Grade: &yes},
		{Name: "b", Grade: &no, ReusedFrom: "output-x.json"},
		{Name: "c", Grade: &yes, Grading: GradingLiberal, ReusedFrom: "output-x.json"},
		{Name: "d"},
	}}
	if got, want := tallyOf(f), (Tally{Questions: 4, Correct: 2, Reused: 2, Liberal: 1}); got != want {
		t.Errorf("tally = %+v, want %+v", got, want)
	}
	if got := tallyOf(&File{}); got != (Tally{}) {
		t.Errorf("tally(no questions) = %+v", got)
	}
}

// tallyOf counts the questions of f, one by one.
func tallyOf(f *File) Tally {
	var t Tally
	for i := range f.Questions {
		t.Add(&f.Questions[i])
	}
	return t
}

// TestAddTokens: the one sum of token counts adds each of the five, of a
// question or of a run's totals, and nothing else.
func TestAddTokens(t *testing.T) {
	cost := 0.5
	q := Question{InputTokens: 100, OutputTokens: 20, ReasoningTokens: 5, CacheReadTokens: 60, CacheWriteTokens: 10, Cost: &cost}
	for _, tc := range []struct {
		name string
		add  []Totals
		want Totals
	}{
		{"none", nil, Totals{}},
		{"a question", []Totals{q.Tokens()}, Totals{InputTokens: 100, OutputTokens: 20, ReasoningTokens: 5, CacheReadTokens: 60, CacheWriteTokens: 10}},
		{"a question twice", []Totals{q.Tokens(), q.Tokens()}, Totals{InputTokens: 200, OutputTokens: 40, ReasoningTokens: 10, CacheReadTokens: 120, CacheWriteTokens: 20}},
		{"totals", []Totals{{Questions: 3, Answered: 2, InputTokens: 7, OutputTokens: 1, Cost: &cost, WallSeconds: 9}, {InputTokens: 1, CacheWriteTokens: 4}},
			Totals{InputTokens: 8, OutputTokens: 1, CacheWriteTokens: 4}},
	} {
		var got Totals
		for _, u := range tc.add {
			got.AddTokens(&u)
		}
		if got != tc.want {
			t.Errorf("%s: %+v, want %+v", tc.name, got, tc.want)
		}
	}
}
