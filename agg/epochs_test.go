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

// writeRun writes one run of model on sheet as output files in dir: one
// file per epoch when there are several (grades[e][q] is question q's
// grade in epoch e+1), named and marked as run --epochs writes them.
func writeRun(t testing.TB, dir, sheet, model, runID string, grades [][]bool) {
	t.Helper()
	n := len(grades)
	for e, gs := range grades {
		f := &result.File{Sheet: result.Sheet{Name: sheet, RunID: runID, ModelName: model}}
		if n > 1 {
			f.Sheet.Epoch, f.Sheet.Epochs = e+1, n
		}
		for q, g := range gs {
			g := g
			c := "wrong"
			if g {
				c = "right"
			}
			name := "Q" + itoa(q+1)
			f.Questions = append(f.Questions, result.Question{Name: name, Question: "ask " + name,
				Completion: &c, ModelName: model, Grade: &g})
		}
		data, err := f.Marshal()
		if err != nil {
			t.Fatal(err)
		}
		name := result.EpochName(result.FileName("input-"+sheet+".md", model, runID), e+1, n)
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestEpochFilesOneRun: the epoch files of one run id are each counted (not
// skipped as copies of one run), LIME's Runs table counts them as one
// run, and a true copy of an epoch is still skipped.
func TestEpochFilesOneRun(t *testing.T) {
	dir := t.TempDir()
	writeRun(t, dir, "s", "m", "r1", [][]bool{{true, false}, {true, true}, {false, false}})
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
