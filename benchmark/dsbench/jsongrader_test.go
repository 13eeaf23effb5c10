package dsbench

import (
	"context"
	"strings"
	"testing"

	"github.com/evalmd/evalmd/grade"
	"github.com/evalmd/evalmd/internal/testkit/shared"
)

// The json grader reads every DSBench truth that is not a string as the
// sheets write it (Python's str of the answer: `{'Q': 1, '# of words':
// 7}`), and finds it equal to the answer's JSON (the answer_json meta) and
// to itself: it can grade DSBench's dict answers beside the judge.
func TestJSONGraderReadsTruths(t *testing.T) {
	comps, errs := Load(shared.Path(t, "corpora", "dsbench"))
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	g, err := grade.NewRegistry().New("json", grade.Options{})
	if err != nil {
		t.Fatal(err)
	}
	n := map[answerKind]int{}
	for _, c := range comps {
		for _, q := range c.Questions {
			a := q.Answer
			if a.Kind == kindString {
				continue
			}
			n[a.Kind]++
			in := grade.Input{Truth: a.Python()}
			if err := grade.Check(g, &in.Truth, in); err != nil {
				t.Errorf("%s %s: %v", c.ID, q.Name, err)
				continue
			}
			for _, reply := range []string{a.JSON, a.Python(), "```json\n" + a.JSON + "\n```"} {
				in.Completion = reply
				v, err := g.Grade(context.Background(), in)
				if err != nil || v.Correct == nil || !*v.Correct {
					t.Errorf("%s %s: truth %q, reply %q: %v %q", c.ID, q.Name, a.Python(), reply, err, v.Detail)
				}
			}
		}
	}
	if n[kindObject] == 0 {
		t.Errorf("no dict answers read: %v", n)
	}
	// The converter asks for the json verdict beside the judge's on the
	// dicts, and nowhere else.
	for _, c := range comps {
		doc := c.Sheet()
		for i, q := range c.Questions {
			meta := doc.Blocks[i+1].Sections[0].Text
			if has := strings.Contains(meta, "\nalso_grade: json\n"); has != (q.Answer.Kind == kindObject) {
				t.Errorf("%s %s (%v): also_grade in meta %v", c.ID, q.Name, q.Answer.Kind, has)
			}
		}
	}
	t.Logf("truths read by the json grader: %d numbers, %d objects, %d arrays", n[kindNumber], n[kindObject], n[kindArray])
}
