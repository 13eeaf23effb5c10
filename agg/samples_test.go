package agg

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/evalmd/evalmd/result"
)

// writeKeyed writes an output of sheet s on model m under run id run:
// each question a name, a request key and a grade, reused (its
// reused_from) when from names a file.
func writeKeyed(t *testing.T, dir, run string, qs []keyedQ) string {
	t.Helper()
	f := &result.File{Sheet: result.Sheet{Name: "s", RunID: run, ModelName: "m"}}
	for _, q := range qs {
		c, g := "an answer to "+q.name, q.right
		f.Questions = append(f.Questions, result.Question{Name: q.name, Question: "ask " + q.name, Completion: &c,
			ModelName: "m", Grade: &g, RequestKey: "key of " + q.name, ReusedFrom: q.from})
	}
	data, err := f.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, result.FileName("input-s.md", "m", run))
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

type keyedQ struct {
	name, from string
	right      bool
}

// TestReusedAnswerCountedOnce: an answer a rerun reused is the sample its
// first run got. A rerun that reused every answer adds nothing (no run, no
// answer, no consistency over two copies of one answer); a rerun that
// asked one question and reused two adds that one answer; the reports and
// logs that read every question (LoadOptions.Each) see each answer once; questions
// without a request key (LIME's files) are counted as before.
func TestReusedAnswerCountedOnce(t *testing.T) {
	first := "output-s-m-a1.json"
	for _, tc := range []struct {
		name         string
		rerun        []keyedQ
		rows, runs   int
		skipped      bool
		repeated     int
		warn, noWarn string
	}{
		{"all reused", []keyedQ{{"Q1", first, false}, {"Q2", first, true}, {"Q3", first, true}}, 3, 1, true, 0, "every answer in it is counted from", ""},
		{"one asked", []keyedQ{{"Q1", "", true}, {"Q2", first, true}, {"Q3", first, true}}, 4, 2, false, 1, "2 of its 3 answers are counted from", ""},
		{"none reused", []keyedQ{{"Q1", "", true}, {"Q2", "", true}, {"Q3", "", true}}, 6, 2, false, 3, "", "counted from"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			writeKeyed(t, dir, "a1", []keyedQ{{"Q1", "", false}, {"Q2", "", true}, {"Q3", "", true}})
			rerun := writeKeyed(t, dir, "b2", tc.rerun)
			var warn bytes.Buffer
			seen := map[string]int{}
			d, err := Load(context.Background(), dir, &warn, LoadOptions{Each: func(path string, f *result.File, counted bool) {
				seen[filepath.Base(path)] += len(f.Questions)
			}})
			if err != nil {
				t.Fatal(err)
			}
			if d.Questions() != tc.rows {
				t.Errorf("%d question rows, want %d\n%s", d.Questions(), tc.rows, warn.String())
			}
			if got := seen[first] + seen[filepath.Base(rerun)]; got != tc.rows {
				t.Errorf("Each saw %d questions, want %d: %v", got, tc.rows, seen)
			}
			if got := len(d.Runs()); got != 1 || d.Runs()[0].Runs != tc.runs {
				t.Errorf("runs %+v, want one row of %d runs", d.Runs(), tc.runs)
			}
			if skipped := len(d.Duplicates) == 1 && d.Duplicates[0] == rerun; skipped != tc.skipped {
				t.Errorf("duplicates %v; want the rerun skipped: %v", d.Duplicates, tc.skipped)
			}
			ts := d.Totals()
			if len(ts) != 1 || ts[0].Repeated != tc.repeated {
				t.Errorf("totals %+v: want %d questions answered more than once", ts, tc.repeated)
			}
			if tc.warn != "" && !strings.Contains(warn.String(), tc.warn) || tc.noWarn != "" && strings.Contains(warn.String(), tc.noWarn) {
				t.Errorf("agg says (want %q, not %q):\n%s", tc.warn, tc.noWarn, warn.String())
			}
		})
	}
}
