package agg

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/evalmd/evalmd/internal/shared"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// golden compares got with testdata/name, writing testdata/name.got beside a
// mismatch (or the golden itself with -update).
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if got != string(want) {
		os.WriteFile(path+".got", []byte(got), 0o644)
		t.Errorf("%s differs from the golden file; got written to %s.got", path, path)
	}
}

// runTo runs the report with its output streams set.
func runTo(stdout, stderr io.Writer, opt Options) error {
	opt.Stdout, opt.Stderr = stdout, stderr
	return Run(context.Background(), opt)
}

// TestMainGolden runs the whole command on the folders in testdata and
// compares stdout and stderr with golden files.
func TestMainGolden(t *testing.T) {
	tests := []struct {
		name string
		opt  Options
	}{
		{"bench", Options{Dir: "testdata/bench", Out: "-"}},
		{"broken", Options{Dir: "testdata/broken", Out: "-", Verbose: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			if err := runTo(&stdout, &stderr, tt.opt); err != nil {
				// As the command prints it: the last line on stderr.
				fmt.Fprintln(&stderr, err)
			}
			golden(t, tt.name+".stdout", stdout.String())
			golden(t, tt.name+".stderr", stderr.String())
		})
	}
}

// TestLIMECorpusGolden pins agg's whole report on LIME's real results (the
// LIME part is checked against LIME's own output by TestLIMEReference).
func TestLIMECorpusGolden(t *testing.T) {
	dir := shared.Path(t, "corpora", "lime", "results")
	var stdout, stderr bytes.Buffer
	if err := runTo(&stdout, &stderr, Options{Dir: dir, Out: "-"}); err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile(shared.Path(t, "reference", "lime", "agg", "agg-reference.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(stdout.String(), string(want)) {
		t.Error("the report does not start with LIME's reference tables")
	}
	if stderr.Len() != 0 {
		t.Errorf("stderr: %s", stderr.String())
	}
	golden(t, "lime.stdout", stdout.String())
}

func TestSkipsBadFiles(t *testing.T) {
	var warn bytes.Buffer
	d, err := Load(context.Background(), "testdata/broken", &warn, LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if d.Files != 1 || d.Questions() != 2 {
		t.Errorf("read %d files, %d questions; want 1 file, 2 questions", d.Files, d.Questions())
	}
	for _, name := range []string{"output-half-m1-0002.json", "output-foreign.json"} {
		if !strings.Contains(warn.String(), name) {
			t.Errorf("no warning names %s:\n%s", name, warn.String())
		}
	}
	if strings.Contains(warn.String(), "notes.json") {
		t.Errorf("notes.json is not an output file and must be ignored silently:\n%s", warn.String())
	}
}

func TestNoOutputs(t *testing.T) {
	err := Run(context.Background(), Options{Dir: t.TempDir()})
	if err == nil || !strings.Contains(err.Error(), "no output files") {
		t.Errorf("Run on an empty folder: %v", err)
	}
	if err := Run(context.Background(), Options{Dir: "testdata/missing"}); err == nil {
		t.Error("Run on a missing folder succeeded")
	}
}

// TestDefaultOutputName checks LIME's default: agg-XXXX.md in the input
// folder, here with the id injected.
func TestDefaultOutputName(t *testing.T) {
	dir := t.TempDir()
	src, err := os.ReadFile("testdata/broken/output-good-m1-0001.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "output-good-m1-0001.json"), src, 0o644); err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	if err := Run(context.Background(), Options{Dir: dir, ID: "beef", Charts: true, Stderr: &stderr}); err != nil {
		t.Fatal(err)
	}
	md, err := os.ReadFile(filepath.Join(dir, "agg-beef.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(md, []byte(limeLeaderboardTitle)) {
		t.Errorf("agg-beef.md starts %q", md[:min(len(md), 60)])
	}
	if !bytes.Contains(md, []byte("![Leaderboard: accuracy with 95% interval](agg-beef-leaderboard.svg)")) {
		t.Error("the report does not link the leaderboard chart")
	}
	svg, err := os.ReadFile(filepath.Join(dir, "agg-beef-leaderboard.svg"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(svg, []byte("<svg")) || !bytes.Contains(svg, []byte("m1 (n=2)")) {
		t.Error("the leaderboard chart is not an SVG naming the model")
	}
	// Without an injected id the name is four hex digits.
	if err := Run(context.Background(), Options{Dir: dir}); err != nil {
		t.Fatal(err)
	}
	matches, _ := filepath.Glob(filepath.Join(dir, "agg-[0-9a-f][0-9a-f][0-9a-f][0-9a-f].md"))
	if len(matches) != 2 {
		t.Errorf("agg-XXXX.md files: %v", matches)
	}
}

// TestDSBench checks the DSBench figures against numbers worked out by hand
// on testdata/bench:
//
//	m1: comp-a 1 of 3 right (one errored, ungraded), comp-b 1 of 1;
//	    task-level 2/4 = 50%, competition-level (1/3 + 1)/2 = 66.67%.
//	m2: comp-a 3 of 3, comp-b 0 of 1;
//	    task-level 3/4 = 75%, competition-level (1 + 0)/2 = 50%.
//
// The plain sheet m1 also answered is not DSBench and must not count.
func TestDSBench(t *testing.T) {
	d, err := Load(context.Background(), "testdata/bench", io.Discard, LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	got := d.DSBench()
	want := []DSBenchRow{
		{Model: "m1", Questions: 4, Correct: 2, Task: 0.5, Competitions: 2, Competition: (1.0/3 + 1) / 2},
		{Model: "m2", Questions: 4, Correct: 3, Task: 0.75, Competitions: 2, Competition: 0.5},
	}
	if len(got) != len(want) {
		t.Fatalf("got %d rows, want %d: %+v", len(got), len(want), got)
	}
	for i := range want {
		g, w := got[i], want[i]
		if g.Model != w.Model || g.Questions != w.Questions || g.Correct != w.Correct ||
			g.Competitions != w.Competitions || !near(g.Task, w.Task, 1e-12) || !near(g.Competition, w.Competition, 1e-12) {
			t.Errorf("row %d: got %+v, want %+v", i, g, w)
		}
	}
	tbl := dsbenchTable(got)
	if tbl.Rows[0][5] != "66.67%" || tbl.Rows[1][3] != "75.00%" {
		t.Errorf("formatted rows: %v", tbl.Rows)
	}
}

// TestDABench checks the DABench figures on testdata/bench, worked out by
// hand: d1 (concepts A, B; easy) has both sub-answers right, d2 (A; hard)
// one of two, d3 (B; easy) has an empty response and leaves every
// denominator. ABQ 1/2, PSAQ (1 + 1/2)/2, UASQ 3/4; concept A 1/2, B 1/1;
// one concept 0/1, two 1/1; easy 1/1, hard 0/1.
func TestDABench(t *testing.T) {
	d, err := Load(context.Background(), "testdata/bench", io.Discard, LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	runs := d.DABench()
	if len(runs) != 1 || runs[0].Label != "m1" {
		t.Fatalf("runs: %+v", runs)
	}
	r := runs[0].Report
	check := func(name string, got, want float64) {
		t.Helper()
		if !near(got, want, 1e-12) {
			t.Errorf("%s = %v, want %v", name, got, want)
		}
	}
	if r.Scored != 2 {
		t.Errorf("scored %d, want 2", r.Scored)
	}
	check("ABQ", r.ABQ.Value, 0.5)
	check("PSAQ", r.PSAQ.Value, 0.75)
	check("UASQ", r.UASQ.Value, 0.75)
	concepts := map[string]float64{}
	for _, c := range r.Concepts {
		concepts[c.Name] = c.Rate.Value
	}
	check("concept A", concepts["A"], 0.5)
	check("concept B", concepts["B"], 1)
	counts := map[string]float64{}
	for _, c := range r.ConceptCounts {
		counts[c.Name] = c.Rate.Value
	}
	check("1 concept", counts["1"], 0)
	check("2 concepts", counts["2"], 1)
	levels := map[string]float64{}
	for _, l := range runs[0].Levels {
		levels[l.Name] = l.Rate.Value
	}
	check("easy", levels["easy"], 1)
	check("hard", levels["hard"], 0)
	if r.TwoOrMore == nil {
		t.Error("two or more concepts: nil")
	} else {
		check("two or more", r.TwoOrMore.Value, 1)
	}
}

// TestTotalsAndErrors checks the per-model totals keep errors apart from
// wrong answers: m1's errored question has a null grade and is left out of
// the accuracy.
func TestTotalsAndErrors(t *testing.T) {
	d, err := Load(context.Background(), "testdata/bench", io.Discard, LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range d.Totals() {
		if m.Model != "m1" {
			continue
		}
		// m1: a1 T, a2 F, a3 null+error, b1 T, p1 F, d1 T, d2 F, d3 null.
		if m.Questions != 8 || m.Graded != 6 || m.Correct != 3 || m.Errors != 1 || m.Ungraded != 2 {
			t.Errorf("m1 totals: %+v", m)
		}
		if !near(m.Accuracy, 0.5, 1e-12) || math.IsNaN(m.Lo) {
			t.Errorf("m1 accuracy %v [%v, %v]", m.Accuracy, m.Lo, m.Hi)
		}
		return
	}
	t.Error("no m1 totals")
}
