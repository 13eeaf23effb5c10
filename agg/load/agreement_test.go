package load

import (
	"fmt"
	"slices"
	"testing"

	"github.com/evalmd/evalmd/result"
)

// A verdict over no grader's grade is no measure of the grader; the
// answers graded otherwise are listed by sheet, question, occurrence,
// model, run and epoch.
func TestAgreements(t *testing.T) {
	d, err := NewData(nil)
	if err != nil {
		t.Fatal(err)
	}
	yes, no := true, false
	wrong := func(q result.Question) result.Question { q.Grade = &no; return q }
	d.Add(&result.File{Sheet: result.Sheet{Name: "S", ModelName: "m", RunID: "r", Epoch: 2, Epochs: 2}, Questions: []result.Question{
		reviewedQ("b", "exact", "", &yes), reviewedQ("a", "exact", "", nil), reviewedQ("b", "exact", "", &no),
		wrong(reviewedQ("a", "exact", "", &yes)), {Name: "c", Grade: &yes}}})
	ags := d.Agreements()
	if len(ags) != 1 || ags[0].Grader != "exact" || ags[0].Counts.N() != 3 || ags[0].Counts.BothRight != 1 || ags[0].Counts.OnlyA != 1 || ags[0].Counts.OnlyB != 1 {
		t.Fatalf("agreements %+v, want 3 answers of exact: one both right, one right by each alone", ags)
	}
	var got []string
	for _, x := range ags[0].Differ {
		got = append(got, fmt.Sprint(x.Name, x.Occ, " ", x.RunLabel(), " ", x.Person))
	}
	if want := []string{"a1 r (epoch 2) false", "b1 r (epoch 2) true"}; !slices.Equal(got, want) {
		t.Errorf("answers graded otherwise %q, want %q", got, want)
	}
}
