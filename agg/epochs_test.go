package agg

import (
	"bytes"
	"context"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/evalmd/evalmd/agg/stats"
	"github.com/evalmd/evalmd/internal/testkit/outputs"
)

// TestEpochFilesOneRun: the epoch files of one run id are each counted (not
// skipped as copies of one run), LIME's Runs table counts them as one
// run, and a true copy of an epoch is still skipped.
func TestEpochFilesOneRun(t *testing.T) {
	dir := t.TempDir()
	outputs.WriteRun(t, dir, "s", "m", "r1", [][]bool{{true, false}, {true, true}, {false, false}})
	data, err := os.ReadFile(filepath.Join(dir, "output-s-m-r1-epoch2.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dir, "copy"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "copy", "output-s-m-r1-epoch2.json"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	var warn bytes.Buffer
	d, err := Load(context.Background(), dir, &warn, LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if d.Files != 3 || len(d.Duplicates) != 1 || !strings.HasSuffix(d.Duplicates[0], "epoch2.json") {
		t.Fatalf("counted %d files, duplicates %v; want the 3 epochs and one copy of epoch 2 skipped\n%s", d.Files, d.Duplicates, warn.String())
	}
	lime := d.LIMEMarkdown()
	// LIME's leaderboard: 6 answers, 3 right; one run id.
	for _, want := range []string{"| s            | m            |               6 |           0.5 |", "| s            | m            |        1 |"} {
		if !strings.Contains(lime, want) {
			t.Errorf("LIME's tables lack %q:\n%s", want, lime)
		}
	}
}

// loadDir loads dir, failing on any warning.
func loadDir(t testing.TB, dir string) *Data {
	t.Helper()
	var warn bytes.Buffer
	d, err := Load(context.Background(), dir, &warn, LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if warn.Len() > 0 {
		t.Fatalf("warnings: %s", warn.String())
	}
	return d
}

// simulate draws epochs answers to each question, question q right with
// probability p[q]: grades[e][q].
func simulate(rng *rand.Rand, p []float64, epochs int) [][]bool {
	grades := make([][]bool, epochs)
	for e := range grades {
		grades[e] = make([]bool, len(p))
		for q, pq := range p {
			grades[e][q] = rng.Float64() < pq
		}
	}
	return grades
}

// perQuestion returns a model's (correct, answers) per question name.
func perQuestion(d *Data, model string) map[string][2]int {
	idx, _ := d.unitIndex()
	names := map[int32]string{}
	for i := range d.Rows() {
		if idx[i] >= 0 {
			names[idx[i]] = d.Str(d.Rows()[i].Name)
		}
	}
	out := map[string][2]int{}
	for m, as := range d.answersByModel() {
		if d.Str(m) != model {
			continue
		}
		for _, a := range as {
			out[names[a.Q]] = [2]int{int(a.C), int(a.N)}
		}
	}
	return out
}

// TestEpochMeansWithinBinomialBounds: 20 epochs of ten questions, each
// right with its own probability; agg's per-question mean is within the
// binomial bounds of that probability (3.29 standard deviations, two-sided
// 99.9%, with a continuity half-answer), and every question counts its 20
// answers once.
func TestEpochMeansWithinBinomialBounds(t *testing.T) {
	const epochs = 20
	p := []float64{0.02, 0.1, 0.2, 0.3, 0.45, 0.55, 0.7, 0.8, 0.9, 0.98}
	dir := t.TempDir()
	outputs.WriteRun(t, dir, "s", "m", "r1", simulate(rand.New(rand.NewPCG(22, 1)), p, epochs))
	d := loadDir(t, dir)
	got := perQuestion(d, "m")
	if len(got) != len(p) {
		t.Fatalf("%d questions, want %d: %v", len(got), len(p), got)
	}
	for q, pq := range p {
		cn := got["Q"+itoa(q+1)]
		if cn[1] != epochs {
			t.Errorf("Q%d: %d answers, want %d", q+1, cn[1], epochs)
			continue
		}
		mean := float64(cn[0]) / epochs
		bound := (3.29*math.Sqrt(epochs*pq*(1-pq)) + 0.5) / epochs
		if math.Abs(mean-pq) > bound {
			t.Errorf("Q%d: mean %.3f, p %.2f: outside ±%.3f", q+1, mean, pq, bound)
		}
	}
	// The models table is over 10 questions, not 200 answers.
	ts := d.Totals()
	if len(ts) != 1 || ts[0].Units != len(p) || ts[0].Graded != epochs*len(p) {
		t.Fatalf("totals %+v, want 10 questions of 200 answers", ts)
	}
}

// TestReducers: on three questions of five epochs (2, 0 and 4 right), the
// models table's score under each reducer is the mean of the questions'
// scores, each computed by hand (stats' TestReduce checks pass@k by its
// formula).
func TestReducers(t *testing.T) {
	right := []int{2, 0, 4} // of 5, per question
	grades := make([][]bool, 5)
	for e := range grades {
		for _, c := range right {
			grades[e] = append(grades[e], e < c)
		}
	}
	dir := t.TempDir()
	outputs.WriteRun(t, dir, "s", "m", "r1", grades)
	d := loadDir(t, dir)
	for _, tc := range []struct {
		reducer string
		want    [3]float64 // per question, by hand
	}{
		// pass@2: 1 - C(3,2)/C(5,2) = 1 - 3/10; 1 - C(5,2)/C(5,2) = 0; C(1,2) = 0.
		{"pass@2", [3]float64{0.7, 0, 1}},
		// pass@1 is the mean.
		{"pass@1", [3]float64{0.4, 0, 0.8}},
		// pass@3: 1 - C(3,3)/C(5,3) = 1 - 1/10.
		{"pass@3", [3]float64{0.9, 0, 1}},
		// pass@7, more than the 5 answers: pass@5.
		{"pass@7", [3]float64{1, 0, 1}},
		{"mean", [3]float64{0.4, 0, 0.8}},
		{"majority", [3]float64{0, 0, 1}},
		{"all-correct", [3]float64{0, 0, 0}},
	} {
		r, err := stats.ParseReducer(tc.reducer)
		if err != nil {
			t.Fatal(err)
		}
		var sum float64
		for q, c := range right {
			got := r.Reduce(c, 5)
			if math.Abs(got-tc.want[q]) > 1e-12 {
				t.Errorf("%s of %d right in 5: %v, want %v", tc.reducer, c, got, tc.want[q])
			}
			sum += tc.want[q]
		}
		d.Reducer = r
		ts := d.Totals()
		if math.Abs(ts[0].Score-sum/3) > 1e-12 {
			t.Errorf("%s: score %v, want %v", tc.reducer, ts[0].Score, sum/3)
		}
		if ts[0].Repeated != 3 || ts[0].Agreed != 1 || math.Abs(ts[0].Consistency-1.0/3) > 1e-12 {
			t.Errorf("consistency %d of %d (%v), want 1 of 3: only the question never right agrees", ts[0].Agreed, ts[0].Repeated, ts[0].Consistency)
		}
	}
}

// TestEpochIntervalCoverage: 200 simulated runs of 50 questions, 5 epochs
// each; each run's questions are drawn from one population (right with a
// probability uniform on [0, 1], mean 1/2), as a benchmark's questions are
// a sample of the questions it could have asked. The models table's 95%
// interval holds the population's 1/2 in 90-98% of the runs. An interval
// over the 250 answers as if independent (Wilson's) is too narrow: it
// holds it far less often, which is why agg's is over questions.
func TestEpochIntervalCoverage(t *testing.T) {
	if testing.Short() {
		t.Skip("simulation")
	}
	const runs, questions, epochs = 200, 50, 5
	rng := rand.New(rand.NewPCG(22, 2))
	covered, naive := 0, 0
	root := t.TempDir()
	for run := range runs {
		p := make([]float64, questions)
		for q := range p {
			p[q] = rng.Float64()
		}
		dir := filepath.Join(root, itoa(run))
		if err := os.Mkdir(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		outputs.WriteRun(t, dir, "s", "m", "r", simulate(rng, p, epochs))
		ts := loadDir(t, dir).Totals()
		if ts[0].Units != questions || ts[0].Graded != questions*epochs {
			t.Fatalf("run %d: %d questions, %d answers", run, ts[0].Units, ts[0].Graded)
		}
		if ts[0].Lo <= 0.5 && 0.5 <= ts[0].Hi {
			covered++
		}
		if lo, hi := wilson(ts[0].Correct, ts[0].Graded); lo <= 0.5 && 0.5 <= hi {
			naive++
		}
	}
	rate := float64(covered) / runs
	t.Logf("coverage of the 95%% interval over questions: %.3f; over answers as if independent: %.3f", rate, float64(naive)/runs)
	if rate < 0.90 || rate > 0.98 {
		t.Errorf("coverage %.3f, want 0.90-0.98", rate)
	}
	if float64(naive)/runs > 0.90 {
		t.Errorf("the answer-level interval covered %.3f: the simulation does not tell the two apart", float64(naive)/runs)
	}
}

// --completions and --discrepancies-full show each epoch of a run as a
// run of its own, its run id saying the epoch, in epoch order (10 after
// 2); before, every epoch was a row under the bare run id.
func TestReportsSayEpochs(t *testing.T) {
	dir := t.TempDir()
	grades := make([][]bool, 10)
	for e := range grades {
		grades[e] = []bool{e%2 == 0}
	}
	outputs.WriteRun(t, dir, "s", "m", "r1", grades)
	d, err := Load(context.Background(), dir, nil, LoadOptions{Answers: true})
	if err != nil {
		t.Fatal(err)
	}
	tables, err := d.completionsTables(mdText)
	if err != nil {
		t.Fatal(err)
	}
	var runs []string
	for _, row := range tables[0].frame.Rows {
		runs = append(runs, row[3].Str)
	}
	want := []string{"r1 (epoch 1)", "r1 (epoch 2)", "r1 (epoch 3)", "r1 (epoch 4)", "r1 (epoch 5)", "r1 (epoch 6)", "r1 (epoch 7)", "r1 (epoch 8)", "r1 (epoch 9)", "r1 (epoch 10)"}
	if strings.Join(runs, "|") != strings.Join(want, "|") {
		t.Errorf("completions' runs %q, want %q", runs, want)
	}
	tables, err = d.discrepanciesTables(mdText)
	if err != nil {
		t.Fatal(err)
	}
	cols := strings.Join(tables[0].frame.Columns, "|")
	if !strings.Contains(cols, "r1 (epoch 2)") || !strings.Contains(cols, "r1 (epoch 10)") {
		t.Errorf("discrepancies' columns %s name no epochs", cols)
	}
}
