package result

import (
	"path/filepath"
	"testing"
)

// TestSampleOf: a question's sample is the file that asked (asked_in,
// else reused_from, else its own file's base name), its request key, name and occurrence;
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
		{Question{Name: "Q", RequestKey: "k", ReusedFrom: "output-b.json", AskedIn: "output-c.json"}, 0, Sample{From: "output-c.json", Key: "k", Name: "Q"}, true},
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

// A shard's part carries its run's one file's samples: read in the part,
// reused from it, or read in the whole the parts make, an answer is the
// same sample.
func TestSampleOfShardPart(t *testing.T) {
	q := Question{Name: "Q", RequestKey: "k"}
	inPart, _ := SampleOf(filepath.Join("out", "output-a-m-r1-shard2of4.json"), &q, 0)
	inWhole, _ := SampleOf(filepath.Join("out", "output-a-m-r1.json"), &q, 0)
	reused := Question{Name: "Q", RequestKey: "k", ReusedFrom: "output-a-m-r1-shard2of4.json"}
	inRerun, _ := SampleOf(filepath.Join("out", "output-a-m-r2.json"), &reused, 0)
	if inPart != inWhole || inRerun != inWhole || inWhole.From != "output-a-m-r1.json" {
		t.Errorf("part %+v, whole %+v, rerun %+v: want one sample", inPart, inWhole, inRerun)
	}
}
