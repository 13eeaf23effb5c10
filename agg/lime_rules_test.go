package agg

import (
	"strings"
	"testing"

	"github.com/evalmd/evalmd/internal/py"
	"github.com/evalmd/evalmd/result"
)

// dataFrom builds Data from output documents, as Load would.
func dataFrom(t *testing.T, docs ...string) *Data {
	t.Helper()
	d, err := newData(nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, doc := range docs {
		f, err := result.Parse([]byte(doc))
		if err != nil {
			t.Fatal(err)
		}
		d.Files++
		d.add(f)
	}
	return d
}

// TestLeaderboardPandasRules checks the group-by rules taken from pandas:
// null grades leave the mean, a group with no grade shows nan and sorts
// last in its sheet, and ties keep group (model name) order. (A null name
// or sheet, which pandas drops from its groups, is refused by result.Parse:
// neither LIME nor this tool writes one.) NaN is decimal-aligned as tabulate
// does: no point, so padded like an integer.
func TestLeaderboardPandasRules(t *testing.T) {
	d := dataFrom(t,
		`{"sheet": {"name": "S", "model_name": "b", "run_id": "1"}, "questions": [
			{"name": "q1", "grade": true}, {"name": "q2", "grade": null}, {"name": "q3", "grade": false}]}`,
		`{"sheet": {"name": "S", "model_name": "a", "run_id": "2"}, "questions": [
			{"name": "q1", "grade": true}, {"name": "q2", "grade": false}]}`,
		`{"sheet": {"name": "S", "model_name": "c", "run_id": "3"}, "questions": [
			{"name": "q1", "grade": null}]}`,
	)
	got := d.Leaderboard()
	want := []struct {
		model string
		n     int
		mean  string
	}{
		// a: 1/2; b: 1/2 (the null grade left out); tie kept in model order.
		{"a", 2, "0.5"}, {"b", 3, "0.5"}, {"c", 1, "nan"},
	}
	if len(got) != len(want) {
		t.Fatalf("got %d rows: %+v", len(got), got)
	}
	for i, w := range want {
		if got[i].Model != w.model || got[i].Questions != w.n || py.G(got[i].Rounded) != w.mean {
			t.Errorf("row %d: got %+v, want %+v", i, got[i], w)
		}
	}
	md := d.LIMEMarkdown()
	if !strings.Contains(md, "| S            | c            |               1 |         nan   |") {
		t.Errorf("nan row not rendered as pandas does:\n%s", md)
	}
	if qs := d.AllQuestions(); len(qs) != 3 {
		t.Errorf("all questions: %+v", qs)
	}
}

func TestPdRound2(t *testing.T) {
	tests := []struct{ in, want float64 }{
		{0.375, 0.38}, // 37.5 rounds half to even: 38
		{0.125, 0.12}, // 12.5 -> 12
		{2.0 / 15, 0.13},
		{1.0 / 3, 0.33},
		{0.105, 0.1}, // 0.105*100 = 10.499999999999998 in binary
	}
	for _, tt := range tests {
		if got := pdRound2(tt.in); got != tt.want {
			t.Errorf("pdRound2(%v) = %v, want %v", tt.in, got, tt.want)
		}
	}
}
