package report

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/evalmd/evalmd/internal/outfile"
	"github.com/evalmd/evalmd/internal/testkit/browsertest"
	"github.com/evalmd/evalmd/result"
)

// epochPage writes a run of 4 epochs of three questions, right in 4, 1 and
// 2 of the epochs (no, some and the most disagreement), as run --epochs
// writes them, and returns the page's data and the page.
func epochPage(t *testing.T) (*Data, []byte) {
	t.Helper()
	dir := t.TempDir()
	right := map[string]int{"Q1": 4, "Q2": 1, "Q3": 2}
	for e := 1; e <= 4; e++ {
		f := &result.File{Sheet: result.Sheet{Name: "s", ModelName: "m", RunID: "r", Epoch: e, Epochs: 4}}
		for _, name := range []string{"Q1", "Q2", "Q3"} {
			g := e <= right[name]
			c := fmt.Sprint(g)
			f.Questions = append(f.Questions, result.Question{Name: name, Question: "ask " + name, Completion: &c, ModelName: "m", Grade: &g})
		}
		name := result.EpochName(result.FileName("input-s.md", "m", "r"), e, 4)
		if err := f.Write(filepath.Join(dir, name), outfile.Options{}); err != nil {
			t.Fatal(err)
		}
	}
	var b bytes.Buffer
	if err := Write(context.Background(), &b, dir, Options{}); err != nil {
		t.Fatal(err)
	}
	_, d, err := read(context.Background(), dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	return d, b.Bytes()
}

// The epochs of a run are answers of one run, in epoch order, each with
// its epoch.
func TestDataEpochs(t *testing.T) {
	d, _ := epochPage(t)
	if len(d.Runs) != 1 || len(d.Questions) != 3 {
		t.Fatalf("%d runs, %d questions; want 1 run of 3 questions", len(d.Runs), len(d.Questions))
	}
	for _, q := range d.Questions {
		var eps []int
		for _, a := range q.Answers {
			eps = append(eps, a.Epoch)
		}
		if !slices.Equal(eps, []int{1, 2, 3, 4}) {
			t.Errorf("%s: epochs %v, want 1 2 3 4", q.Name, eps)
		}
	}
}

// In a browser: one mark per epoch in the question list, each named by
// its epoch; the list sorted by disagreement between epochs (Q3: 2 of 4,
// Q2: 1 of 4, Q1: none), in sheet order otherwise; the question's answers
// each say their epoch.
func TestBrowserEpochs(t *testing.T) {
	bin := browsertest.Find(t)
	_, page := epochPage(t)
	path := filepath.Join(t.TempDir(), "report.html")
	if err := os.WriteFile(path, page, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		fragment string
		want     []string
	}{
		{"#tab=questions", []string{"s/Q1", "s/Q2", "s/Q3"}},
		{"#tab=questions&order=disagree", []string{"s/Q3", "s/Q2", "s/Q1"}},
	} {
		doc := dom(t, bin, path, tc.fragment)
		list := section(doc, "q-list")
		if got := keys(reKey, list); !slices.Equal(got, tc.want) {
			t.Errorf("%s: list %q, want %q", tc.fragment, got, tc.want)
		}
		if n := strings.Count(list, `class="mark `); n != 12 {
			t.Errorf("%s: %d marks, want 12 (3 questions x 4 epochs)", tc.fragment, n)
		}
		if !strings.Contains(list, `title="m · epoch 4: wrong"`) {
			t.Errorf("%s: no mark names its epoch", tc.fragment)
		}
	}
	doc := dom(t, bin, path, "#tab=questions&q=s/Q3")
	view := section(doc, "q-view")
	eps := regexp.MustCompile(`<span class="epoch">epoch (\d)</span>`).FindAllStringSubmatch(view, -1)
	if len(eps) != 4 || eps[0][1] != "1" || eps[3][1] != "4" {
		t.Errorf("the question's answers name epochs %q, want 1 to 4", eps)
	}
}

// Two runs of two epochs each, one answer of m2 reused from an earlier
// run: in a browser the questions tab opens on its first question, the
// list groups each run's marks after its number, which the legend names,
// the reused answer's mark and card say it was reused, and the comparison
// pairs each epoch of A with the same epoch of B and says so. Before, the
// tab opened on an empty pane, 4 marks a question ran on with no grouping
// and only a tooltip to name their run, reuse showed nowhere, and the
// comparison read each run's first epoch alone.
func TestBrowserRunsAndEpochs(t *testing.T) {
	bin := browsertest.Find(t)
	dir := t.TempDir()
	right := map[string][2]bool{"m1/Q1": {true, true}, "m1/Q2": {true, false}, "m2/Q1": {false, false}, "m2/Q2": {true, true}}
	for _, run := range []struct{ model, id string }{{"m1", "r1"}, {"m2", "r2"}} {
		for e := 1; e <= 2; e++ {
			f := &result.File{Sheet: result.Sheet{Name: "s", ModelName: run.model, RunID: run.id, Epoch: e, Epochs: 2}}
			for _, name := range []string{"Q1", "Q2"} {
				g := right[run.model+"/"+name][e-1]
				c := fmt.Sprint(g)
				q := result.Question{Name: name, Question: "ask " + name, Completion: &c, ModelName: run.model, Grade: &g}
				if run.model == "m2" && name == "Q1" && e == 1 {
					q.ReusedFrom = "output-s-m2-r0.json"
				}
				f.Questions = append(f.Questions, q)
			}
			if err := f.Write(filepath.Join(dir, result.EpochName(result.FileName("input-s.md", run.model, run.id), e, 2)), outfile.Options{}); err != nil {
				t.Fatal(err)
			}
		}
	}
	var b bytes.Buffer
	if err := Write(context.Background(), &b, dir, Options{}); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "report.html")
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}

	doc := dom(t, bin, path, "#tab=questions")
	if !strings.Contains(section(doc, "q-view"), "<h2>Q1</h2>") {
		t.Errorf("the questions tab does not open on Q1:\n%.1500s", section(doc, "q-view"))
	}
	if legend := section(doc, "legend-runs"); !strings.Contains(legend, `<span class="rn">1</span> m1`) || !strings.Contains(legend, `<span class="rn">2</span> m2`) {
		t.Errorf("the legend does not number the runs: %.500s", legend)
	}
	list := section(doc, "q-list")
	if n := strings.Count(list, `class="run-marks"`); n != 4 {
		t.Errorf("%d groups of marks, want 4 (2 questions x 2 runs)", n)
	}
	if !strings.Contains(list, `class="mark g0 ru" title="m2 · epoch 1: wrong (reused from output-s-m2-r0.json)"`) {
		t.Errorf("the reused answer's mark does not say so:\n%.2000s", list)
	}
	if !strings.Contains(section(doc, "q-view"), "reused from output-s-m2-r0.json (not asked again)") {
		t.Error("the reused answer's card does not say so")
	}

	doc = dom(t, bin, path, "#tab=compare&a=m1@r1&b=m2@r2")
	view := section(doc, "c-view")
	if !strings.Contains(view, "2 questions answered in both runs: 4 pairs of answers, each epoch of A with the same epoch of B") {
		t.Errorf("the comparison does not say it pairs epochs:\n%.1500s", view)
	}
	i := strings.Index(view, `data-flip="01"`)
	if i < 0 {
		t.Fatalf("no flip sections:\n%.3000s", view)
	}
	if got := keys(reFlipKey, view[:i]); !slices.Equal(got, []string{"s/Q1", "s/Q1"}) {
		t.Errorf("right in A, wrong in B: %q, want Q1 in both epochs", got)
	}
	if got := keys(reFlipKey, view[i:]); !slices.Equal(got, []string{"s/Q2"}) {
		t.Errorf("wrong in A, right in B: %q, want Q2 (epoch 2)", got)
	}
}
