package gate

import (
	"bytes"
	"context"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/evalmd/evalmd/agg/load"
	"github.com/evalmd/evalmd/agg/stats"
	"github.com/evalmd/evalmd/internal/testkit/golden"
	"github.com/evalmd/evalmd/internal/testkit/outputs"
	"github.com/evalmd/evalmd/result"
)

// writeGraded writes one run of model on sheet as outputs.WriteRun does
// (grades[e][q]: question Q<q+1>'s grade in epoch e+1), each question's
// ground truth "T<q+1>" unless truths names another.
func writeGraded(t testing.TB, dir, sheet, model, runID string, grades [][]bool, truths map[string]string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	outputs.WriteRunWith(t, dir, sheet, model, runID, grades, func(q *result.Question) {
		truth, ok := truths[q.Name]
		if !ok {
			truth = "T" + strings.TrimPrefix(q.Name, "Q")
		}
		q.GroundTruth = &truth
	})
}

// grades are n grades of one epoch, question i right unless wrong(i).
func grades(n int, wrong func(i int) bool) [][]bool {
	g := make([]bool, n)
	for i := range g {
		g[i] = !wrong(i)
	}
	return [][]bool{g}
}

// qs are questions numbered from 1, as writeGraded names them.
func qs(nums ...int) func(int) bool {
	return func(i int) bool { return slices.Contains(nums, i+1) }
}

func flipNamesOf(fs []Flip) []string {
	var out []string
	for _, f := range fs {
		out = append(out, f.Name)
	}
	return out
}

// Each outcome of the gate: no change and noise pass, a real drop fails
// (and only a drop as large as --min-drop), a floor fails a model whose
// interval starts below it, questions in one folder only or with another
// truth are listed and not compared, epochs are compared by question.
func TestGateOutcomes(t *testing.T) {
	none := func(int) bool { return false }
	for _, tc := range []struct {
		name        string
		base, cur   [][]bool
		curTruths   map[string]string
		curN        int // questions of the current run, when not the baseline's
		gate        Rules
		verdict     string
		failures    int
		worse       []string
		better      []string
		questions   int
		unpaired    []string // "name: why"
		belowFloor  bool
		diff, p, se float64 // checked when p != 0
	}{
		{name: "no change", base: grades(20, qs(3, 7)), cur: grades(20, qs(3, 7)), gate: Rules{FailOn: FailRegression},
			verdict: verdictNoChange, questions: 20, diff: 0, p: 1, se: 0},
		{name: "noise", base: grades(30, qs(1, 2, 3, 20)), cur: grades(30, qs(4, 5, 20, 21, 22)), gate: Rules{FailOn: FailRegression},
			verdict: verdictNoChange, questions: 30, worse: []string{"Q21", "Q22", "Q4", "Q5"}, better: []string{"Q1", "Q2", "Q3"},
			diff: -1.0 / 30, p: 1, se: sdOver(diffsOf(4, 3, 30))},
		{name: "real drop", base: grades(20, none), cur: grades(20, qs(1, 2, 3, 4, 5, 6, 7, 8)), gate: Rules{FailOn: FailRegression},
			verdict: verdictRegression, failures: 1, questions: 20, worse: []string{"Q1", "Q2", "Q3", "Q4", "Q5", "Q6", "Q7", "Q8"},
			diff: -0.4, p: 2.0 / 256, se: math.Sqrt(0.4 * 0.6 / 19)},
		{name: "real drop, reported only", base: grades(20, none), cur: grades(20, qs(1, 2, 3, 4, 5, 6, 7, 8)),
			verdict: verdictRegression, questions: 20, worse: []string{"Q1", "Q2", "Q3", "Q4", "Q5", "Q6", "Q7", "Q8"}},
		{name: "drop under --min-drop", base: grades(20, none), cur: grades(20, qs(1, 2, 3, 4, 5, 6, 7, 8)), gate: Rules{FailOn: FailRegression, MinDrop: 0.5},
			verdict: verdictSmallDrop, questions: 20, worse: []string{"Q1", "Q2", "Q3", "Q4", "Q5", "Q6", "Q7", "Q8"}},
		{name: "a drop not significant at 0.001", base: grades(20, none), cur: grades(20, qs(1, 2, 3, 4, 5, 6, 7, 8)), gate: Rules{FailOn: FailRegression, Alpha: 0.001},
			verdict: verdictNoChange, questions: 20, worse: []string{"Q1", "Q2", "Q3", "Q4", "Q5", "Q6", "Q7", "Q8"}},
		{name: "better", base: grades(20, qs(1, 2, 3, 4, 5, 6, 7, 8)), cur: grades(20, none), gate: Rules{FailOn: FailRegression},
			verdict: verdictBetter, questions: 20, better: []string{"Q1", "Q2", "Q3", "Q4", "Q5", "Q6", "Q7", "Q8"}},
		{name: "floor breach", base: grades(20, none), cur: grades(20, qs(1, 2, 3, 4, 5, 6, 7, 8, 9, 10)), gate: Rules{FailUnder: 0.6},
			verdict: verdictRegression, failures: 1, belowFloor: true, questions: 20,
			worse: []string{"Q1", "Q10", "Q2", "Q3", "Q4", "Q5", "Q6", "Q7", "Q8", "Q9"}},
		{name: "floor kept", base: grades(20, none), cur: grades(20, qs(1, 2)), gate: Rules{FailUnder: 0.6},
			verdict: verdictNoChange, questions: 20, worse: []string{"Q1", "Q2"}},
		{name: "questions in one folder only", base: grades(10, none), cur: grades(11, qs(1, 2)), curTruths: map[string]string{"Q3": "new"},
			gate: Rules{FailOn: FailRegression}, verdict: verdictNoChange, questions: 9, worse: []string{"Q1", "Q2"},
			unpaired: []string{"Q11: " + unpairedCurrent, "Q3: " + unpairedTruth}},
		{name: "epochs: a real drop", base: [][]bool{grades(12, none)[0], grades(12, none)[0], grades(12, none)[0]},
			cur:  [][]bool{grades(12, qs(1, 2, 3, 4, 5, 6, 7))[0], grades(12, none)[0], grades(12, none)[0]},
			gate: Rules{FailOn: FailRegression}, verdict: verdictRegression, failures: 1, questions: 12,
			worse: []string{"Q1", "Q2", "Q3", "Q4", "Q5", "Q6", "Q7"},
			// the unit is the question: 7 differences of -1/3 and 5 of 0
			diff: -7.0 / 36, p: 2.0 / 128, se: sdOver([]float64{-1. / 3, -1. / 3, -1. / 3, -1. / 3, -1. / 3, -1. / 3, -1. / 3, 0, 0, 0, 0, 0})},
		{name: "epochs: noise", base: [][]bool{grades(12, qs(1, 2))[0], grades(12, qs(3))[0], grades(12, none)[0]},
			cur:  [][]bool{grades(12, qs(3, 4))[0], grades(12, qs(5))[0], grades(12, qs(1))[0]},
			gate: Rules{FailOn: FailRegression}, verdict: verdictNoChange, questions: 12,
			worse: []string{"Q4", "Q5"}, better: []string{"Q2"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			writeGraded(t, filepath.Join(dir, "base"), "s", "m", "r1", tc.base, nil)
			writeGraded(t, filepath.Join(dir, "cur"), "s", "m", "r2", tc.cur, tc.curTruths)
			c := compareDirs(t, filepath.Join(dir, "base"), filepath.Join(dir, "cur"), tc.gate)
			if len(c.Models) != 1 {
				t.Fatalf("models %+v", c.Models)
			}
			m := c.Models[0]
			if m.Verdict != tc.verdict || len(c.Failures()) != tc.failures || m.Questions != tc.questions || m.BelowFloor != tc.belowFloor {
				t.Errorf("verdict %q, failures %q, %d questions, below the floor %v; want %q, %d failures, %d questions, %v",
					m.Verdict, c.Failures(), m.Questions, m.BelowFloor, tc.verdict, tc.failures, tc.questions, tc.belowFloor)
			}
			if got := flipNamesOf(m.Worse); !slices.Equal(got, tc.worse) {
				t.Errorf("worse %v, want %v", got, tc.worse)
			}
			if got := flipNamesOf(m.Better); !slices.Equal(got, tc.better) {
				t.Errorf("better %v, want %v", got, tc.better)
			}
			var unpaired []string
			for _, u := range c.Unpaired {
				unpaired = append(unpaired, u.Name+": "+u.Why)
			}
			if !slices.Equal(unpaired, tc.unpaired) || m.Unpaired != len(tc.unpaired) {
				t.Errorf("not compared %v (%d), want %v", unpaired, m.Unpaired, tc.unpaired)
			}
			if tc.p != 0 && (!near(m.Diff, tc.diff, 1e-9) || !near(m.P, tc.p, 1e-9) || !near(m.Stderr, tc.se, 1e-9) ||
				!near(m.Lo, m.Diff-stats.Z95*m.Stderr, 1e-9) || !near(m.Hi, m.Diff+stats.Z95*m.Stderr, 1e-9)) {
				t.Errorf("diff %g [%g, %g] stderr %g, p %g; want %g stderr %g, p %g", m.Diff, m.Lo, m.Hi, m.Stderr, m.P, tc.diff, tc.se, tc.p)
			}
			for _, f := range c.Failures() {
				if strings.Contains(f, "\n") || !strings.Contains(f, "m ") {
					t.Errorf("failure %q: want one line naming the model", f)
				}
			}
		})
	}
}

// diffsOf are the differences of worse questions down, better up, of n.
func diffsOf(worse, better, n int) []float64 {
	d := make([]float64, n)
	for i := range worse {
		d[i] = -1
	}
	for i := range better {
		d[worse+i] = 1
	}
	return d
}

// sdOver is the standard error of the mean of xs.
func sdOver(xs []float64) float64 {
	var mean, ss float64
	for _, x := range xs {
		mean += x
	}
	mean /= float64(len(xs))
	for _, x := range xs {
		ss += (x - mean) * (x - mean)
	}
	return math.Sqrt(ss / float64(len(xs)-1) / float64(len(xs)))
}

// compareDirs compares the outputs in cur with those in base, as agg -i
// cur --baseline base does.
func compareDirs(t *testing.T, base, cur string, g Rules) *Comparison {
	t.Helper()
	b := loadDir(t, base)
	var warn bytes.Buffer
	d, err := load.Load(context.Background(), cur, &warn, load.LoadOptions{Baseline: b})
	if err != nil {
		t.Fatal(err)
	}
	return Compare(Folders{Current: d, Baseline: b, BaselineDir: "base"}, g)
}

// keyedRun is a run of model on sheet "s" of n questions Q1..Qn with
// request keys: those in asked answered by this run (graded wrong when in
// wrong), the others reused from the file of run from.
func keyedRun(t *testing.T, dir, model, runID, from string, n int, asked, wrong []int) {
	t.Helper()
	f := &result.File{Sheet: result.Sheet{Name: "s", RunID: runID, ModelName: model}}
	for i := 1; i <= n; i++ {
		name := "Q" + strconv.Itoa(i)
		g, truth, c := !slices.Contains(wrong, i), "T", "answer of "+runID
		q := result.Question{Name: name, GroundTruth: &truth, Completion: &c, Grade: &g, RequestKey: runID + name}
		if from != "" && !slices.Contains(asked, i) {
			q.RequestKey, q.ReusedFrom = from+name, result.FileName("input-s.md", model, from)
		}
		f.Questions = append(f.Questions, q)
	}
	outputs.WriteInto(t, dir, f)
}

// A CI restores the baseline's results into the folder it runs in, so the
// current folder holds the baseline's run and the new one, which reused
// the answers to unchanged questions (agg counts each once, from the file
// first in name order). Of a sheet and model run again, what the new run
// carries counts, its reused answers too, never the old answers to the
// questions it asked again; a model not run again keeps its runs; a model
// in one folder only is new or gone, its questions not listed one by one.
// The same whichever run's file comes first.
func TestGateCurrentFolderHoldsTheBaseline(t *testing.T) {
	for _, ids := range [][2]string{{"a1", "b2"}, {"b2", "a1"}} {
		old, rerun := ids[0], ids[1]
		t.Run("old run "+old, func(t *testing.T) {
			dir := t.TempDir()
			base, cur := filepath.Join(dir, "base"), filepath.Join(dir, "cur")
			for _, d := range []string{base, cur} {
				os.MkdirAll(d, 0o755)
				keyedRun(t, d, "worse", old, "", 10, nil, []int{1})
				keyedRun(t, d, "same", old, "", 10, nil, []int{1})
				keyedRun(t, d, "gone", old, "", 10, nil, []int{1})
			}
			os.Remove(filepath.Join(cur, result.FileName("input-s.md", "gone", old)))
			// asked again, now wrong: Q2..Q9; Q1 (wrong) and Q10 reused
			keyedRun(t, cur, "worse", rerun, old, 10, []int{2, 3, 4, 5, 6, 7, 8, 9}, []int{1, 2, 3, 4, 5, 6, 7, 8, 9})
			keyedRun(t, cur, "same", rerun, old, 10, nil, []int{1}) // every answer reused
			keyedRun(t, cur, "new", rerun, "", 10, nil, []int{1})
			c := compareDirs(t, base, cur, Rules{FailOn: FailRegression})
			got := map[string]ModelChange{}
			for _, m := range c.Models {
				got[m.Model] = m
			}
			if m := got["worse"]; m.Verdict != verdictRegression || m.Questions != 10 || m.After != 0.1 || m.Before != 0.9 ||
				len(m.Worse) != 8 || len(m.Better) != 0 || m.Accuracy != 0.1 {
				t.Errorf("worse: %+v; want 0.9 -> 0.1 on 10 questions, 8 worse: what the new run carries", m)
			}
			if m := got["same"]; m.Verdict != verdictNoChange || m.Questions != 10 || m.After != 0.9 {
				t.Errorf("same: %+v; want no change on 10 questions", m)
			}
			if got["new"].Verdict != verdictNew || got["gone"].Verdict != verdictGone || len(c.Unpaired) != 0 {
				t.Errorf("new %q, gone %q, not compared %v", got["new"].Verdict, got["gone"].Verdict, c.Unpaired)
			}
			if f := c.Failures(); len(f) != 1 || !strings.HasPrefix(f[0], "worse is significantly worse than the baseline: accuracy 0.900 -> 0.100 on 10 questions") ||
				!strings.Contains(f[0], "s / Q2, s / Q3, s / Q4, s / Q5, s / Q6, and 3 more") {
				t.Errorf("failures %q", f)
			}
		})
	}
}

// A question whose answers in one folder were not graded (the call
// failed) is listed as not graded there, not as missing; a model whose
// every answer here failed is in neither verdict new nor gone: nothing is
// compared.
func TestGateUngraded(t *testing.T) {
	dir := t.TempDir()
	base, cur := filepath.Join(dir, "base"), filepath.Join(dir, "cur")
	failed := func(names ...string) func(q *result.Question) {
		return func(q *result.Question) {
			truth := "T"
			q.GroundTruth = &truth
			if slices.Contains(names, q.Name) || names == nil {
				e := "HTTP 500"
				q.Grade, q.Error = nil, &e
			}
		}
	}
	os.MkdirAll(base, 0o755)
	os.MkdirAll(cur, 0o755)
	outputs.WriteRunWith(t, base, "s", "m", "r1", grades(6, qs()), failed("Q6"))
	outputs.WriteRunWith(t, cur, "s", "m", "r2", grades(6, qs()), failed("Q1", "Q2"))
	outputs.WriteRunWith(t, base, "s", "down", "r1", grades(6, qs()), failed("none"))
	outputs.WriteRunWith(t, cur, "s", "down", "r2", grades(6, qs()), failed())
	c := compareDirs(t, base, cur, Rules{FailOn: FailRegression})
	var got []string
	for _, u := range c.Unpaired {
		got = append(got, u.Model+" "+u.Name+": "+u.Why)
	}
	want := []string{"down Q1: " + ungradedHere, "down Q2: " + ungradedHere, "down Q3: " + ungradedHere, "down Q4: " + ungradedHere,
		"down Q5: " + ungradedHere, "down Q6: " + ungradedHere, "m Q1: " + ungradedHere, "m Q2: " + ungradedHere, "m Q6: " + ungradedInBaseline}
	if !slices.Equal(got, want) {
		t.Errorf("not compared:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if c.Models[0].Model != "down" || c.Models[0].Verdict != verdictNoPairs || c.Models[1].Questions != 3 || c.Models[1].Verdict != verdictNoChange {
		t.Errorf("models %+v", c.Models)
	}
}

// The comparison's markdown, as the pull request comment and the step
// summary carry it: a regression and its flipped questions, a question
// whose truth changed, a model below the floor.
func TestGateMarkdown(t *testing.T) {
	dir := t.TempDir()
	base, cur := filepath.Join(dir, "base"), filepath.Join(dir, "cur")
	writeGraded(t, base, "arith", "openai/gpt-4o", "r1", grades(12, qs(12)), nil)
	writeGraded(t, base, "arith", "mock", "r1", grades(12, qs(1, 2, 3, 4, 5, 6)), nil)
	writeGraded(t, cur, "arith", "openai/gpt-4o", "r2", grades(12, qs(1, 2, 3, 4, 5, 6, 7, 8)), map[string]string{"Q9": "nine"})
	writeGraded(t, cur, "arith", "mock", "r2", grades(12, qs(1, 2, 3, 4, 5, 7)), nil)
	c := compareDirs(t, base, cur, Rules{FailOn: FailRegression, FailUnder: 0.15})
	c.Baseline = "baseline"
	md, err := c.Markdown(0, "[The full report](https://ci.example/runs/1).")
	if err != nil {
		t.Fatal(err)
	}
	golden.Check(t, "testdata/gate.md", []byte(md))
	lines := strings.Join(c.Lines(), "\n") + "\n"
	golden.Check(t, "testdata/gate.lines", []byte(lines))

	floor := Compare(Folders{Current: loadDir(t, cur)}, Rules{FailUnder: 0.15})
	md, err = floor.Markdown(0, "")
	if err != nil {
		t.Fatal(err)
	}
	golden.Check(t, "testdata/gate-floor.md", []byte(md))
}

func TestParseFailOn(t *testing.T) {
	for in, want := range map[string]FailOn{"": FailNever, "never": FailNever, "regression": FailRegression} {
		if got, err := ParseFailOn(in); err != nil || got != want {
			t.Errorf("ParseFailOn(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	if _, err := ParseFailOn("noise"); err == nil || !strings.Contains(err.Error(), FailOnNames) {
		t.Errorf("ParseFailOn(noise): %v; want the known values", err)
	}
	for _, g := range []Rules{{Alpha: 1}, {Alpha: -0.1}, {MinDrop: 1}, {MinDrop: -0.01}, {FailUnder: 1.5}, {Alpha: math.NaN()}} {
		if err := g.Check(); err == nil {
			t.Errorf("%+v: no error", g)
		}
	}
	if err := (Rules{Alpha: 0.01, MinDrop: 0.02, FailUnder: 0.7}).Check(); err != nil {
		t.Error(err)
	}
}

// A run split in shards (run --shard) is compared as the one run it makes:
// its parts against the run written whole, and back, find the same
// questions (epochs and repeated names each one question) and no change;
// its JUnit XML is the whole run's.
func TestGateShards(t *testing.T) {
	dir := t.TempDir()
	one, parts := filepath.Join(dir, "one"), filepath.Join(dir, "parts")
	outputs.WriteShardedRun(t, one, parts, 3)
	for _, tc := range [][2]string{{one, parts}, {parts, one}} {
		c := compareDirs(t, tc[0], tc[1], Rules{FailOn: FailRegression})
		if len(c.Models) != 2 || len(c.Unpaired) != 0 || len(c.Failures()) != 0 {
			t.Fatalf("%s against %s: %+v, not compared %v", tc[1], tc[0], c.Models, c.Unpaired)
		}
		for _, m := range c.Models {
			if m.Questions != 9 || m.Verdict != verdictNoChange || len(m.Worse)+len(m.Better) != 0 {
				t.Errorf("%s against %s: %+v; want 9 questions, no change", tc[1], tc[0], m)
			}
		}
	}
	var whole, split bytes.Buffer
	now := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	if err := JUnit(&whole, Folders{Current: loadDir(t, one)}, now); err != nil {
		t.Fatal(err)
	}
	if err := JUnit(&split, Folders{Current: loadDir(t, parts)}, now); err != nil {
		t.Fatal(err)
	}
	if whole.String() != split.String() || strings.Count(whole.String(), "<testcase ") != 18 {
		t.Errorf("JUnit of the parts:\n%s\nof the whole run:\n%s", split.String(), whole.String())
	}
}

// loadDir loads dir, failing on any warning.
func loadDir(t testing.TB, dir string) *load.Data {
	t.Helper()
	var warn bytes.Buffer
	d, err := load.Load(context.Background(), dir, &warn, load.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if warn.Len() > 0 {
		t.Fatalf("warnings: %s", warn.String())
	}
	return d
}

// The gate's floor and JUnit count a reviewed grade, the person's: the
// grader said wrong to all four answers, people said right.
func TestGateAndJUnitCountPeople(t *testing.T) {
	dir := t.TempDir()
	outputs.WriteRunWith(t, dir, "S", "m1", "r1", grades(4, qs(1, 2, 3, 4)), func(q *result.Question) {
		right := true
		q.Review = &result.Review{By: "ana", At: "2026-11-30T10:00:00Z", GraderGrade: q.Grade}
		q.Grade = &right
	})
	d := loadDir(t, dir)
	c := Compare(Folders{Current: d}, Rules{FailUnder: 0.5})
	if len(c.Models) != 1 || c.Models[0].Accuracy != 1 || c.Models[0].BelowFloor {
		t.Errorf("floor: %+v, want accuracy 1 (people's grades) above 0.5", c.Models)
	}
	var b bytes.Buffer
	if err := JUnit(&b, Folders{Current: d}, time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)); err != nil {
		t.Fatal(err)
	}
	if s := b.String(); !strings.Contains(s, `tests="4" failures="0"`) || strings.Contains(s, "<failure") {
		t.Errorf("JUnit counts the grader's grades, not people's:\n%s", s)
	}
}

func near(a, b, tol float64) bool { return math.Abs(a-b) <= tol }
