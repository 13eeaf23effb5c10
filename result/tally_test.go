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
	if got, want := TallyOf(f), (Tally{Questions: 4, Correct: 2, Reused: 2, Liberal: 1}); got != want {
		t.Errorf("TallyOf = %+v, want %+v", got, want)
	}
	if got := TallyOf(&File{}); got != (Tally{}) {
		t.Errorf("TallyOf(no questions) = %+v", got)
	}
}
