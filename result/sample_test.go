package result

import (
	"path/filepath"
	"testing"
)

// TestSampleOf: a question's sample is the file that asked (reused_from,
// else its own file's base name), its request key, name and occurrence;
// without a key there is none.
func TestSampleOf(t *testing.T) {
	dir := filepath.Join("results", "superseded")
	for _, tc := range []struct {
		q    Question
		occ  int
		want Sample
		ok   bool
	}{
		{Question{Name: "Q", RequestKey: "k"}, 0, Sample{From: "output-a.json", Key: "k", Name: "Q"}, true},
		{Question{Name: "Q", RequestKey: "k", ReusedFrom: "output-b.json"}, 1, Sample{From: "output-b.json", Key: "k", Name: "Q", Occ: 1}, true},
		{Question{Name: "Q"}, 0, Sample{}, false},
	} {
		got, ok := SampleOf(filepath.Join(dir, "output-a.json"), &tc.q, tc.occ)
		if got != tc.want || ok != tc.ok {
			t.Errorf("SampleOf(%+v) = %+v, %v; want %+v, %v", tc.q, got, ok, tc.want, tc.ok)
		}
	}
	a := Sample{From: "output-a.json", Key: "k", Name: "Q"}
	for _, b := range []Sample{{From: "output-b.json", Key: "k", Name: "Q"}, {From: "output-a.json", Key: "k2", Name: "Q"},
		{From: "output-a.json", Key: "k", Name: "Q2"}, {From: "output-a.json", Key: "k", Name: "Q", Occ: 1}, {From: "output-a.jso", Key: "nk", Name: "Q"}} {
		if a.ID() == b.ID() {
			t.Errorf("%+v and %+v have one ID", a, b)
		}
	}
}
