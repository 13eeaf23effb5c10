package inspect

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/evalmd/evalmd/internal/outfile"
	"github.com/evalmd/evalmd/result"
)

// A run of 3 epochs is one log, as Inspect writes an eval of 3 epochs:
// "epochs": 3 in its config, one sample per question and epoch (epoch
// 1..3) under the question's id, 3 x the questions in total_samples, and
// each scorer's accuracy the mean over questions of their epochs' mean,
// with "reducer": "mean"; both formats pass Inspect's schema.
func TestRunLogEpochs(t *testing.T) {
	const epochs = 3
	files := make([]*result.File, epochs)
	for k := range files {
		f := syntheticOutput()
		f.Sheet.Epoch, f.Sheet.Epochs = k+1, epochs
		for i := range f.Questions {
			if g := f.Questions[i].Grade; g != nil && k == 1 {
				flipped := !*g // epoch 2 grades otherwise
				f.Questions[i].Grade = &flipped
			}
		}
		files[epochs-1-k] = f // out of order: the log sorts them
	}
	one := syntheticOutput()
	for _, format := range []string{FormatJSON, FormatEval} {
		dir := t.TempDir()
		path, err := WriteRunLog(dir, files, LogOptions{Created: fixedCreated, Version: "test", Format: format})
		if err != nil {
			t.Fatal(err)
		}
		CheckSchema(t, path)
		lg, err := ReadLog(path)
		if err != nil {
			t.Fatal(err)
		}
		n := len(one.Questions)
		if lg.Eval.Config.Epochs != epochs || len(lg.Samples) != epochs*n || lg.Eval.Dataset.Samples != n || len(lg.Eval.Dataset.SampleIDs) != n {
			t.Fatalf("%s: epochs %d, %d samples, dataset %d (%d ids), want %d, %d, %d", format, lg.Eval.Config.Epochs, len(lg.Samples),
				lg.Eval.Dataset.Samples, len(lg.Eval.Dataset.SampleIDs), epochs, epochs*n, n)
		}
		for i, s := range lg.Samples {
			if s.Epoch != i/n+1 || s.ID != lg.Samples[i%n].ID {
				t.Errorf("%s: sample %d: %s epoch %d, want %s epoch %d", format, i, s.ID, s.Epoch, lg.Samples[i%n].ID, i/n+1)
			}
		}
		if lg.Results == nil || lg.Results.TotalSamples != epochs*n {
			t.Fatalf("%s: results %+v", format, lg.Results)
		}
		// The scores by hand: each graded question right in 2 of 3 epochs
		// or in 1 of 3, per scorer.
		want := map[string][]float64{}
		for _, q := range one.Questions {
			if q.Grade == nil {
				continue
			}
			v := 2.0 / 3
			if !*q.Grade {
				v = 1.0 / 3
			}
			want[scorerName(&q)] = append(want[scorerName(&q)], v)
		}
		for _, sc := range lg.Results.Scores {
			if sc.Reducer != "mean" || math.Abs(sc.Metrics["accuracy"].Value-accuracyMetric(want[sc.Name])) > 1e-12 || *sc.ScoredSamples != len(want[sc.Name]) {
				t.Errorf("%s: score %s: reducer %q, accuracy %v, scored %d; want mean, %v, %d", format, sc.Name, sc.Reducer,
					sc.Metrics["accuracy"].Value, *sc.ScoredSamples, accuracyMetric(want[sc.Name]), len(want[sc.Name]))
			}
		}
	}
}

// WriteLogsFor (agg --log-dir) writes one log per run: the 3 epoch files
// of a run and a copy of one of them in another folder (read first) are
// one log of 3 epochs, a file of one epoch beside them is its own log.
func TestWriteLogsForEpochs(t *testing.T) {
	dir, logs := t.TempDir(), t.TempDir()
	for k := 1; k <= 3; k++ {
		f := syntheticOutput()
		f.Sheet.RunID, f.Sheet.Epoch, f.Sheet.Epochs = "ep", k, 3
		name := result.EpochName(result.FileName("input-rules.md", f.Sheet.ModelName, "ep"), k, 3)
		if err := f.Write(filepath.Join(dir, name), outfile.Options{}); err != nil {
			t.Fatal(err)
		}
		if k == 2 {
			os.MkdirAll(filepath.Join(dir, "copy"), 0o755)
			if err := f.Write(filepath.Join(dir, "copy", name), outfile.Options{}); err != nil {
				t.Fatal(err)
			}
		}
	}
	one := syntheticOutput()
	one.Sheet.RunID = "one"
	if err := one.Write(filepath.Join(dir, result.FileName("input-rules.md", one.Sheet.ModelName, "one")), outfile.Options{}); err != nil {
		t.Fatal(err)
	}
	var warn strings.Builder
	n, err := WriteLogsFor(logs, dir, &warn, LogOptions{Format: FormatJSON})
	if err != nil {
		t.Fatal(err)
	}
	paths, _ := filepath.Glob(filepath.Join(logs, "*.json"))
	if n != 2 || len(paths) != 2 {
		t.Fatalf("%d logs (%v), want 2: the run's, the one-epoch file's\n%s", n, paths, warn.String())
	}
	epochs := map[int]int{}
	for _, p := range paths {
		lg, err := ReadLog(p)
		if err != nil {
			t.Fatal(err)
		}
		CheckSchema(t, p)
		epochs[lg.Eval.Config.Epochs] += len(lg.Samples)
	}
	q := len(one.Questions)
	if epochs[3] != 3*q || epochs[1] != q {
		t.Errorf("samples by the log's epochs %v, want 3: %d, 1: %d", epochs, 3*q, q)
	}
}
