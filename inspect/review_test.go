package inspect

import (
	"encoding/json"
	"os"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/evalmd/evalmd/result"
)

// reviewedOutput is an output file of the exact grader whose first
// question a person reviewed (review), the second not: the grader marked
// both wrong.
func reviewedOutput(review *result.Review, grade bool) *result.File {
	s := func(v string) *string { return &v }
	no := false
	return &result.File{
		Sheet: result.Sheet{Name: "Reviewed", RunID: "rv1", ModelName: "m", Created: "2025-01-02T03:04:05Z"},
		Questions: []result.Question{
			{Name: "q1", Question: "Capital of France?", GroundTruth: s("Paris"), Completion: s("paris, France"),
				Grader: "exact", Grade: &grade, GradeDetail: "no exact match", Review: review},
			{Name: "q2", Question: "2+2?", GroundTruth: s("4"), Completion: s("5"), Grader: "exact", Grade: &no, GradeDetail: "no exact match"},
		},
	}
}

// A reviewed score is written as Inspect's edit_score leaves it: the
// person's value, its history the grader's score (no provenance) then the
// edit (provenance: author, reason, time), a score_edit event ending the
// sample's events, and results and reductions of the edited values.
func TestReviewedScore(t *testing.T) {
	yes, no := true, false
	const at = "2026-11-30T12:00:00Z"
	cases := []struct {
		name    string
		review  *result.Review
		grade   bool
		history string // the score's history as Inspect writes it
		expl    string // the score's explanation after the edit
		acc     float64
	}{
		{"overturned, with a reason", &result.Review{By: "alice", At: at, Reason: "same city", GraderGrade: &no}, true,
			`[{"value":"I","answer":"paris, France","explanation":"no exact match","metadata":{"grader":"exact"}},` +
				`{"value":"C","answer":"UNCHANGED","explanation":"same city","metadata":"UNCHANGED",` +
				`"provenance":{"timestamp":"2026-11-30T12:00:00Z","author":"alice","reason":"same city","metadata":{}}}]`,
			"same city", 0.5},
		{"overturned, no reason, a time with a fraction", &result.Review{By: "bob", At: "2026-11-30T13:00:00.25+01:00", GraderGrade: &yes}, false,
			`[{"value":"C","answer":"paris, France","explanation":"no exact match","metadata":{"grader":"exact"}},` +
				`{"value":"I","answer":"UNCHANGED","explanation":"a person's verdict (bob)","metadata":"UNCHANGED",` +
				`"provenance":{"timestamp":"2026-11-30T12:00:00.250000Z","author":"bob","metadata":{}}}]`,
			"a person's verdict (bob)", 0},
		{"confirmed", &result.Review{By: "carol", At: at, Reason: "wrong", GraderGrade: &no}, false,
			`[{"value":"I","answer":"paris, France","explanation":"no exact match","metadata":{"grader":"exact"}},` +
				`{"value":"I","answer":"UNCHANGED","explanation":"wrong","metadata":"UNCHANGED",` +
				`"provenance":{"timestamp":"2026-11-30T12:00:00Z","author":"carol","reason":"wrong","metadata":{}}}]`,
			"wrong", 0},
		{"the grader gave none", &result.Review{By: "dave", At: at, Reason: "close enough"}, true,
			`[{"value":"C","answer":"paris, France","explanation":"close enough","metadata":{"grader":"exact"},` +
				`"provenance":{"timestamp":"2026-11-30T12:00:00Z","author":"dave","reason":"close enough","metadata":{}}}]`,
			"close enough", 0.5},
	}
	for _, tc := range cases {
		for _, format := range []string{FormatJSON, FormatEval} {
			t.Run(tc.name+"/"+format, func(t *testing.T) {
				path, lg := writeRead(t, reviewedOutput(tc.review, tc.grade), LogOptions{Format: format})
				s := lg.Samples[0]
				sc := s.Scores["exact"]
				if sc.Value != gradeValue(tc.grade) || deref(sc.Explanation) != tc.expl || deref(sc.Answer) != "paris, France" {
					t.Errorf("score %v %q %q, want the person's %s, explanation %q and the graded answer", sc.Value, deref(sc.Explanation), deref(sc.Answer), gradeValue(tc.grade), tc.expl)
				}
				if got := compactJSON(t, sc.History); got != tc.history {
					t.Errorf("history\n got %s\nwant %s", got, tc.history)
				}
				last := s.Events[len(s.Events)-1]
				if last.ScoreEdit == nil {
					t.Fatalf("last event %q, want score_edit", last.Kind())
				}
				ev := last.ScoreEdit
				if ev.ScoreName != "exact" || ev.Timestamp != isoTime(mustReviewTime(t, tc.review)) ||
					!reflect.DeepEqual(ev.Edit, sc.History[len(sc.History)-1]) {
					t.Errorf("event %+v, want score_edit of exact at the review's time with the last edit", ev)
				}
				if n := countKind(lg.Samples[1].Events, "score_edit"); n != 0 || len(lg.Samples[1].Scores["exact"].History) != 0 {
					t.Errorf("unreviewed sample: %d score_edit events, history %v; want none", n, lg.Samples[1].Scores["exact"].History)
				}
				acc := lg.Results.Scores[0].Metrics["accuracy"].Value
				if float64(acc) != tc.acc || valueToFloat(lg.Reductions[0].Samples[0].Value) != btof(tc.grade) {
					t.Errorf("accuracy %v, reduced %v; want %v from the person's grade", acc, lg.Reductions[0].Samples[0].Value, tc.acc)
				}
				if format == FormatJSON {
					checkRawEdit(t, path, tc.review.GraderGrade == nil)
				}
			})
		}
	}
}

// checkRawEdit checks the edit as written: UNCHANGED as a string (the
// metadata of an edit that makes the score, fresh, is an object), the
// grader's score without provenance (Inspect writes no None).
func checkRawEdit(t *testing.T, path string, fresh bool) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var raw struct {
		Samples []struct {
			Events []map[string]any `json:"events"`
		} `json:"samples"`
	}
	if err := json.Unmarshal(data, &raw); err != nil {
		t.Fatal(err)
	}
	evs := raw.Samples[0].Events
	ev := evs[len(evs)-1]
	edit, _ := ev["edit"].(map[string]any)
	_, object := edit["metadata"].(map[string]any)
	if ev["event"] != "score_edit" || object != fresh || !fresh && edit["metadata"] != unchanged ||
		edit["provenance"] == nil || ev["working_start"] == nil {
		t.Errorf("score_edit event as written: %v", ev)
	}
	if strings.Contains(string(data), `"provenance": null`) {
		t.Errorf("a null provenance written; Inspect leaves None out")
	}
}

func mustReviewTime(t *testing.T, r *result.Review) time.Time {
	t.Helper()
	at, err := reviewTime(r)
	if err != nil {
		t.Fatal(err)
	}
	return at
}

func btof(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

func countKind(evs []event, kind string) int {
	n := 0
	for _, e := range evs {
		if e.Kind() == kind {
			n++
		}
	}
	return n
}

func compactJSON(t *testing.T, v any) string {
	t.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// A review whose time Inspect cannot parse stops the log with one line
// naming the sheet, the question and the time; nothing is written.
func TestReviewBadTime(t *testing.T) {
	no := false
	for _, at := range []string{"", "yesterday", "2026-11-30 12:00"} {
		dir := t.TempDir()
		_, err := WriteLog(dir, reviewedOutput(&result.Review{By: "alice", At: at, GraderGrade: &no}, true), LogOptions{})
		if err == nil || !strings.Contains(err.Error(), `"Reviewed"`) || !strings.Contains(err.Error(), `"q1"`) ||
			!strings.Contains(err.Error(), `review.at "`+at+`"`) || strings.Contains(err.Error(), "\n") {
			t.Errorf("at %q: error %v, want one line naming the sheet, q1 and the time", at, err)
		}
		if entries, _ := os.ReadDir(dir); len(entries) != 0 {
			t.Errorf("at %q: %d files written, want none", at, len(entries))
		}
	}
}
