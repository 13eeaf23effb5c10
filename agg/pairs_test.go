package agg

import (
	"fmt"
	"strings"
	"testing"
)

// McNemar's test with epochs compares each model's first epoch: a
// question whose first epoch has no grade (its call failed) is left out,
// not graded by a later epoch's answer.
func TestPairsFirstEpoch(t *testing.T) {
	file := func(model string, epoch int, qs ...string) string {
		return fmt.Sprintf(`{"sheet": {"name": "S", "model_name": %q, "run_id": "r", "epoch": %d, "epochs": 2}, "questions": [%s]}`,
			model, epoch, strings.Join(qs, ", "))
	}
	right := func(q string) string { return `{"name": "` + q + `", "grade": true}` }
	wrong := func(q string) string { return `{"name": "` + q + `", "grade": false}` }
	failed := func(q string) string { return `{"name": "` + q + `", "grade": null, "error": "HTTP 500"}` }
	d := dataFrom(t,
		file("a", 1, right("q1"), failed("q2"), right("q3")),
		file("a", 2, right("q1"), right("q2"), wrong("q3")),
		file("b", 1, wrong("q1"), wrong("q2"), wrong("q3")),
		file("b", 2, wrong("q1"), wrong("q2"), right("q3")),
	)
	ps := d.Pairs()
	if len(ps) != 1 {
		t.Fatalf("pairs %+v", ps)
	}
	if p := ps[0]; p.Both != 2 || p.OnlyA != 2 || p.OnlyB != 0 || p.ACorrect != 2 || p.BCorrect != 0 {
		t.Errorf("pair %+v; want q1 and q3 of epoch 1 compared (2, a right on both), q2 left out", p)
	}
}
