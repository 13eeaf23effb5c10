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
