package inspect

import (
	"math"
	"testing"

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
