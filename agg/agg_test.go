package agg

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/evalmd/evalmd/agg/stats"
	"github.com/evalmd/evalmd/internal/outfile"
	"github.com/evalmd/evalmd/internal/testkit/golden"
	"github.com/evalmd/evalmd/internal/testkit/shared"
	"github.com/evalmd/evalmd/result"
)

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
		{"broken", Options{Dir: "testdata/broken", Out: "-", Verbose: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			if err := runTo(&stdout, &stderr, tt.opt); err != nil {
				// As the command prints it: the last line on stderr.
				fmt.Fprintln(&stderr, err)
			}
			golden.Check(t, "testdata/"+tt.name+".stdout", stdout.Bytes())
			golden.Check(t, "testdata/"+tt.name+".stderr", stderr.Bytes())
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
	// Nothing on stderr but the sheets whose runs answer several versions
	// of their questions (LIME's folder holds two).
	lines := strings.Split(strings.TrimSuffix(stderr.String(), "\n"), "\n")
	for _, l := range lines {
		if !strings.HasPrefix(l, "agg: sheet ") || !strings.Contains(l, " versions of its questions, counted together as LIME's agg does: ") {
			t.Errorf("stderr: %s", l)
		}
	}
	if len(lines) != 2 {
		t.Errorf("stderr: %d lines, want one per sheet of several versions (2):\n%s", len(lines), stderr.String())
	}
	golden.Check(t, "testdata/lime.stdout", stdout.Bytes())
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
	// A folder whose only output file is half-written holds an output
	// file: the error says it could not be read, not that none was found.
	dir := t.TempDir()
	src, err := os.ReadFile("testdata/broken/output-half-m1-0002.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "output-half-m1-0002.json"), src, 0o644); err != nil {
		t.Fatal(err)
	}
	err = Run(context.Background(), Options{Dir: dir})
	if !errors.Is(err, ErrNoOutputs) || !strings.Contains(err.Error(), "1 could not be read") {
		t.Errorf("Run on a folder of one half-written output: %v", err)
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

// A negative or absurd eval_time or cost (a damaged or hand-edited file) is
// left out of the usage sums, with a note, instead of showing -Inf.
func TestUsageLeavesOutBadFigures(t *testing.T) {
	dir := t.TempDir()
	doc := `{"sheet": {"name": "S", "run_id": "r1", "model_name": "m"}, "questions": [
	  {"name": "a", "grade": true, "completion": "x", "eval_time": -1e308, "cost": -1e308},
	  {"name": "b", "grade": false, "completion": "y", "eval_time": -1e308, "cost": 1e308},
	  {"name": "c", "grade": false, "completion": "z", "eval_time": 1.5, "cost": 0.25}]}`
	if err := os.WriteFile(filepath.Join(dir, "output-s-m-r1.json"), []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	d, err := Load(context.Background(), dir, io.Discard, LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	us := d.Usages()
	if len(us) != 1 || us[0].Seconds != 1.5 || us[0].TimeQuestions != 1 || us[0].Cost != 0.25 || us[0].CostQuestions != 1 || us[0].BadFigures != 4 {
		t.Fatalf("usage %+v", us)
	}
	tab := usageTable(us, false)
	s, err := tab.Markdown()
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(s, "Inf") || !strings.Contains(s, "m: 4 eval_time or cost values left out") {
		t.Errorf("usage table:\n%s", s)
	}
}

// Where a question was answered more than once (epochs), the usage and
// errors tables count answers and say so: 4 questions of 3 epochs are 12
// answers, not "12 questions".
func TestUsageAndErrorsCountAnswers(t *testing.T) {
	dir := t.TempDir()
	for e := 1; e <= 3; e++ {
		f := &result.File{Sheet: result.Sheet{Name: "s", ModelName: "m", RunID: "r", Epoch: e, Epochs: 3}}
		for _, name := range []string{"a", "b", "c", "d"} {
			g, c, secs := true, "x", 1.0
			f.Questions = append(f.Questions, result.Question{Name: name, Question: name, Completion: &c, Grade: &g, EvalTime: &secs})
		}
		if err := f.Write(filepath.Join(dir, result.EpochName("output-s-m-r.json", e, 3)), outfile.Options{}); err != nil {
			t.Fatal(err)
		}
	}
	d, err := Load(context.Background(), dir, io.Discard, LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	md, err := d.Markdown(ReportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, title := range []string{"### Usage", "### Errors"} {
		i := strings.Index(md, title)
		if i < 0 {
			t.Fatalf("no %s table:\n%s", title, md)
		}
		tab := md[i:]
		if j := strings.Index(tab[1:], "\n### "); j > 0 {
			tab = tab[:j+1]
		}
		if !regexp.MustCompile(`\| model +\| answers +\|`).MatchString(tab) || !regexp.MustCompile(`\| m +\| +12 +\|`).MatchString(tab) ||
			!strings.Contains(tab, "Counts are of answers") {
			t.Errorf("%s does not count 12 answers as such:\n%s", title, tab)
		}
	}
}

func near(a, b, tol float64) bool { return math.Abs(a-b) <= tol }

// wilson is Wilson's 95% interval for k successes in n trials
// (stats.WilsonZ).
func wilson(k, n int) (lo, hi float64) { return stats.WilsonZ(k, n, stats.Z95) }

// The usage table has a cache read (and a cache write) column only where
// some answer reported such tokens: files without any keep the columns,
// and the bytes, they had.
func TestUsageCacheColumns(t *testing.T) {
	for _, tc := range []struct {
		name  string
		qs    string
		cols  string // the header's token columns, in order
		cells string // model m's token cells, in order
	}{
		{"none", `{"name": "a", "grade": true, "completion": "x", "input_tokens": 100, "output_tokens": 5}`,
			"input tokens,output tokens", "100,5"},
		{"read", `{"name": "a", "grade": true, "completion": "x", "input_tokens": 1000, "cache_read_tokens": 600, "output_tokens": 5},
		  {"name": "b", "grade": true, "completion": "x", "input_tokens": 100, "output_tokens": 5}`,
			"input tokens,cache read tokens,output tokens", "1100,600,10"},
		{"read and write", `{"name": "a", "grade": true, "completion": "x", "input_tokens": 1000, "cache_read_tokens": 600, "cache_write_tokens": 300, "output_tokens": 5,
		  "cost": 0.0025, "cache_saved": 0.0008},
		  {"name": "b", "grade": true, "completion": "x", "input_tokens": 1000, "cache_read_tokens": 1000, "output_tokens": 5, "cost": 0.001, "cache_saved": 0.0027}`,
			"input tokens,cache read tokens,cache write tokens,output tokens", "2000,1600,300,10"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			doc := `{"sheet": {"name": "S", "run_id": "r1", "model_name": "m"}, "questions": [` + tc.qs + `]}`
			if err := os.WriteFile(filepath.Join(dir, "output-s-m-r1.json"), []byte(doc), 0o644); err != nil {
				t.Fatal(err)
			}
			d, err := Load(context.Background(), dir, io.Discard, LoadOptions{})
			if err != nil {
				t.Fatal(err)
			}
			tab := usageTable(d.Usages(), false)
			var cols, cells []string
			for i, c := range tab.Columns {
				if strings.HasSuffix(c.Name, " tokens") {
					cols, cells = append(cols, c.Name), append(cells, tab.Rows[0][i])
				}
			}
			if got := strings.Join(cols, ","); got != tc.cols {
				t.Errorf("token columns %q, want %q", got, tc.cols)
			}
			if got := strings.Join(cells, ","); got != tc.cells {
				t.Errorf("m's token cells %q, want %q", got, tc.cells)
			}
			if cached := strings.Contains(tab.Note, "Cache read and write tokens"); cached != (tc.name != "none") {
				t.Errorf("note %q: says cache tokens %v", tab.Note, cached)
			}
			// What the cache saved, summed, beside the cost.
			saved := ""
			for i, c := range tab.Columns {
				if c.Name == "cache saved (USD)" {
					saved = tab.Rows[0][i]
				}
			}
			if want := map[string]string{"read": "unknown", "read and write": "0.0035"}[tc.name]; saved != want {
				t.Errorf("cache saved %q, want %q", saved, want)
			}
		})
	}
}
