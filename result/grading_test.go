package result

import "testing"

// A mode set by a source wins; with none set, an answer keeps a mode a
// flag gave it, and only a flag's.
func TestSetGrading(t *testing.T) {
	for _, tc := range []struct {
		name           string
		had, hadFrom   string // the question's record
		mode, from     string // resolved now
		want, wantFrom string
		kept           bool
	}{
		{"default over nothing", "", "", "", "", "", "", false},
		{"meta over nothing", "", "", GradingLiberal, "sheet meta", GradingLiberal, "sheet meta", false},
		{"grade -l kept by a plain rerun", GradingLiberal, GradingFromFlag, "", "", GradingLiberal, GradingFromFlag, true},
		{"a strict flag's kept too", GradingStrict, GradingFromFlag, "", "", GradingStrict, GradingFromFlag, true},
		{"meta removed: its mode goes", GradingLiberal, "sheet meta", "", "", "", "", false},
		{"config's mode goes with it", GradingLiberal, "config", "", "", "", "", false},
		{"question meta over a flag's", GradingLiberal, GradingFromFlag, GradingStrict, "question meta", GradingStrict, "question meta", false},
		{"a flag over a flag's", GradingLiberal, GradingFromFlag, GradingStrict, GradingFromFlag, GradingStrict, GradingFromFlag, false},
	} {
		q := Question{Grading: tc.had, GradingFrom: tc.hadFrom}
		kept := q.SetGrading(tc.mode, tc.from)
		if q.Grading != tc.want || q.GradingFrom != tc.wantFrom || kept != tc.kept {
			t.Errorf("%s: %q from %q, kept %v; want %q from %q, kept %v", tc.name, q.Grading, q.GradingFrom, kept, tc.want, tc.wantFrom, tc.kept)
		}
		if q.Liberal() != (tc.want == GradingLiberal) {
			t.Errorf("%s: Liberal() %v", tc.name, q.Liberal())
		}
	}
}
