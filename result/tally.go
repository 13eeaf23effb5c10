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
