package gate

import (
	"bytes"
	"encoding/xml"
	"strings"
	"testing"
	"time"

	"github.com/evalmd/evalmd/agg/stats"
	"github.com/evalmd/evalmd/internal/testkit/golden"
	"github.com/evalmd/evalmd/internal/testkit/junit"
	"github.com/evalmd/evalmd/internal/testkit/outputs"
	"github.com/evalmd/evalmd/result"
)

// JUnit: a suite per model, a test case per question: passed, a failure
// for a wrong answer (its truth in the text), an error for a failed call,
// skipped when ungraded; epochs are one case, failed when its score under
// the reducer is below 1; names XML cannot hold as they are stay names. The document passes
// the structural check of windyroad's JUnit.xsd.
func TestJUnit(t *testing.T) {
	dir := t.TempDir()
	right, wrong := true, false
	truth, odd := "4", "a <b> & \"c\"\x01"
	c := "answer"
	e := "HTTP 500"
	outputs.WriteInto(t, dir, &result.File{Sheet: result.Sheet{Name: "arith", RunID: "r1", ModelName: "m1"}, Questions: []result.Question{
		{Name: "Q1", GroundTruth: &truth, Completion: &c, Grade: &right},
		{Name: "Q2", GroundTruth: &odd, Completion: &c, Grade: &wrong},
		{Name: "Q3", GroundTruth: &truth, Error: &e},
		{Name: "Q4 <&>\nline", Completion: &c},
		{Name: "Q1", GroundTruth: &truth, Completion: &c, Grade: &wrong},
	}})
	for epoch, g := range []*bool{&right, &wrong} {
		outputs.WriteInto(t, dir, &result.File{Sheet: result.Sheet{Name: "arith", RunID: "r2", ModelName: "m2", Epoch: epoch + 1, Epochs: 2},
			Questions: []result.Question{{Name: "Q1", GroundTruth: &truth, Completion: &c, Grade: &right}, {Name: "Q2", GroundTruth: &truth, Completion: &c, Grade: g}}})
	}
	var b bytes.Buffer
	if err := JUnit(&b, Folders{Current: loadDir(t, dir)}, time.Date(2026, 3, 4, 5, 6, 7, 0, time.FixedZone("x", 3600))); err != nil {
		t.Fatal(err)
	}
	if err := junit.Check(b.Bytes()); err != nil {
		t.Errorf("not valid under JUnit.xsd: %v\n%s", err, b.String())
	}
	golden.Check(t, "testdata/junit.xml", b.Bytes())
	var doc struct {
		Suites []struct {
			Name  string `xml:"name,attr"`
			Cases []struct {
				Name    string `xml:"name,attr"`
				Failure *struct {
					Message string `xml:"message,attr"`
					Text    string `xml:",chardata"`
				} `xml:"failure"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	if err := xml.Unmarshal(b.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Suites) != 2 || len(doc.Suites[0].Cases) != 5 || len(doc.Suites[1].Cases) != 2 {
		t.Fatalf("suites %+v", doc.Suites)
	}
	if got := doc.Suites[0].Cases[3].Name; got != "Q4 <&>\nline" {
		t.Errorf("name %q read back; want the question's", got)
	}
	if f := doc.Suites[0].Cases[1].Failure; f == nil || !strings.HasPrefix(f.Text, "ground truth: a <b> & \"c\"") {
		t.Errorf("Q2's failure %+v; want its ground truth", f)
	}
	if f := doc.Suites[1].Cases[1].Failure; f == nil || f.Message != "graded wrong: 1 of 2 answers right, mean 0.500" || f.Text != "ground truth: 4" {
		t.Errorf("m2's Q2 (epochs) failure %+v", f)
	}

	// The reducer decides a question of several answers: pass@2 passes
	// one right of two, majority fails it (a tie, 0.5).
	for _, tc := range []struct {
		reducer string
		fails   bool
	}{{"mean", true}, {"all-correct", true}, {"majority", true}, {"pass@2", false}, {"pass@1", true}} {
		f := Folders{Current: loadDir(t, dir)}
		var err error
		if f.Reducer, err = stats.ParseReducer(tc.reducer); err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		if err := JUnit(&b, f, time.Time{}); err != nil {
			t.Fatal(err)
		}
		if got := strings.Contains(b.String(), "1 of 2 answers right, "+tc.reducer); got != tc.fails {
			t.Errorf("--reducer %s: m2's Q2 fails %v, want %v:\n%s", tc.reducer, got, tc.fails, b.String())
		}
	}
}
