package inspect

// This file is a person's verdict on an answer (result.Review), written
// as Inspect's edit_score (log/_score.py) leaves an edited score: the
// score holds the verdict, its history the grader's score and the edit,
// and a score_edit event ends the sample's transcript.

import (
	"fmt"
	"time"

	"github.com/evalmd/evalmd/result"
)

// unchanged is Inspect's UNCHANGED: a member of an edit that keeps the
// score's own.
const unchanged = "UNCHANGED"

// scoreEdit is one state of a score in its history (Inspect's ScoreEdit).
// Members Inspect writes as None are left out, as its writer (which
// excludes None) leaves them: Answer and Explanation are a string,
// unchanged or absent; Metadata an object or unchanged; Provenance is
// absent for the scorer's own score and set for an edit.
type scoreEdit struct {
	Value       any         `json:"value"`
	Answer      any         `json:"answer,omitempty"`
	Explanation any         `json:"explanation,omitempty"`
	Metadata    any         `json:"metadata"`
	Provenance  *provenance `json:"provenance,omitempty"`
}

// provenance says who edited a score, when and why (ProvenanceData).
type provenance struct {
	Timestamp string         `json:"timestamp"` // as pydantic writes a UTC time: "2026-11-30T12:00:00Z"
	Author    string         `json:"author"`
	Reason    string         `json:"reason,omitempty"`
	Metadata  map[string]any `json:"metadata"`
}

// scoreEditEvent records an edit in the sample's transcript
// (ScoreEditEvent), which Inspect's viewer shows as "Edit Score".
type scoreEditEvent struct {
	Event        string    `json:"event"` // "score_edit"
	Timestamp    string    `json:"timestamp"`
	WorkingStart float     `json:"working_start"`
	ScoreName    string    `json:"score_name"`
	Edit         scoreEdit `json:"edit"`
}

// gradeValue is a grade as a score value: "C" correct, "I" incorrect.
func gradeValue(right bool) string {
	if right {
		return "C"
	}
	return "I"
}

// reviewTime is when a person gave the verdict (review.at, RFC 3339).
func reviewTime(r *result.Review) (time.Time, error) {
	t, err := time.Parse(time.RFC3339Nano, r.At)
	if err != nil {
		return time.Time{}, fmt.Errorf("review.at %q is not an RFC 3339 time", r.At)
	}
	return t.UTC(), nil
}

// checkReviews reports the first question whose review a log cannot
// carry: Inspect's provenance needs a time it can parse.
func checkReviews(files []*result.File) error {
	for _, f := range files {
		for i := range f.Questions {
			q := &f.Questions[i]
			if q.Review == nil || q.Grade == nil {
				continue
			}
			if _, err := reviewTime(q.Review); err != nil {
				return fmt.Errorf("inspect log for %q: question %q: %w", f.Sheet.Name, q.Name, err)
			}
		}
	}
	return nil
}

// pydanticTime is a UTC time as pydantic writes one: "Z" for the
// offset, microseconds only when there are some.
func pydanticTime(t time.Time) string {
	if t.Nanosecond()/1000 != 0 {
		return t.Format("2006-01-02T15:04:05.000000Z")
	}
	return t.Format("2006-01-02T15:04:05Z")
}

// reviewEdit is the edit a person's verdict makes to the grader's score
// (the person's value, their reason as the explanation). fresh says the
// grader gave no score, so the edit makes one: as Inspect's edit_score
// makes a new score from the edit alone, the edit then carries the
// answer and metadata the score keeps.
func reviewEdit(q *result.Question, graded sampleScore, fresh bool) scoreEdit {
	r := q.Review
	at, _ := reviewTime(r) // checkReviews has checked it
	why := r.Reason
	if why == "" {
		why = "a person's verdict (" + r.By + ")"
	}
	e := scoreEdit{Value: gradeValue(*q.Grade), Answer: unchanged, Explanation: why, Metadata: unchanged,
		Provenance: &provenance{Timestamp: pydanticTime(at), Author: r.By, Reason: r.Reason, Metadata: map[string]any{}}}
	if fresh {
		e.Answer = nil
		if graded.Answer != nil {
			e.Answer = *graded.Answer
		}
		e.Metadata = graded.Metadata
	}
	return e
}

// applyReview edits sc, the grader's score of q (fresh when the grader
// gave none), as edit_score does: the history gets the grader's score (a
// ScoreEdit without provenance) unless it is fresh, then the edit; the
// score takes the edit's value and explanation. It returns the event
// that records the edit.
func applyReview(q *result.Question, name string, sc *sampleScore, fresh bool, workingStart float64) scoreEditEvent {
	edit := reviewEdit(q, *sc, fresh)
	if !fresh {
		orig := scoreEdit{Value: sc.Value, Metadata: sc.Metadata}
		if sc.Metadata == nil {
			orig.Metadata = map[string]any{}
		}
		if sc.Answer != nil {
			orig.Answer = *sc.Answer
		}
		if sc.Explanation != nil {
			orig.Explanation = *sc.Explanation
		}
		sc.History = append(sc.History, orig)
	}
	sc.Value = edit.Value
	why := edit.Explanation.(string)
	sc.Explanation = &why
	sc.History = append(sc.History, edit)
	at, _ := reviewTime(q.Review)
	return scoreEditEvent{Event: "score_edit", Timestamp: isoTime(at), WorkingStart: float(workingStart), ScoreName: name, Edit: edit}
}
