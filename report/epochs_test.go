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
