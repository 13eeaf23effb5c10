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
			if sc.Reducer != "mean" || math.Abs(float64(sc.Metrics["accuracy"].Value)-accuracyMetric(want[sc.Name])) > 1e-12 || *sc.ScoredSamples != len(want[sc.Name]) {
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

// WriteLogsFor over the parts of runs split in 3 shards writes, byte for
// byte, the logs of the same runs written by one machine, in both
// formats: a sheet on a model is one log, whose samples are the union of
// the shards' (one of 3 epochs, one of one epoch), not one log per shard.
func TestWriteLogsForShards(t *testing.T) {
	one, parts := t.TempDir(), t.TempDir()
	for k := 0; k <= 3; k++ {
		f := syntheticOutput()
		f.Sheet.RunID, f.Sheet.Created = "sh", "2026-03-01T10:00:00.000Z"
		name := result.FileName("input-rules.md", f.Sheet.ModelName, "sh")
		if k > 0 {
			f.Sheet.Epoch, f.Sheet.Epochs = k, 3
			name = result.EpochName(name, k, 3)
		} else {
			f.Sheet.ModelName = "other"
			name = result.FileName("input-rules.md", "other", "sh")
		}
		if err := f.Write(filepath.Join(one, name), outfile.Options{}); err != nil {
			t.Fatal(err)
		}
		for s := 1; s <= 3; s++ {
			p := *f
			p.Sheet.Shard, p.Sheet.Shards = s, 3
			p.Questions = nil
			for i, q := range f.Questions {
				if (i+k)%3+1 == s {
					q.Position = i + 1
					p.Questions = append(p.Questions, q)
				}
			}
			if err := p.Write(filepath.Join(parts, result.ShardName(name, s, 3)), outfile.Options{}); err != nil {
				t.Fatal(err)
			}
		}
	}
	for _, format := range []string{FormatJSON, FormatEval} {
		logs := func(dir string) map[string]string {
			out := t.TempDir()
			var warn strings.Builder
			n, err := WriteLogsFor(out, dir, &warn, LogOptions{Format: format, Version: "test"})
			if err != nil || n != 2 || warn.Len() > 0 {
				t.Fatalf("%s: %d logs, %v, warned %q; want 2", format, n, err, warn.String())
			}
			got := map[string]string{}
			entries, _ := os.ReadDir(out)
			for _, e := range entries {
				if strings.HasPrefix(e.Name(), ".") {
					continue // outfile's record of what it wrote
				}
				data, err := os.ReadFile(filepath.Join(out, e.Name()))
				if err != nil {
					t.Fatal(err)
				}
				got[e.Name()] = string(data)
			}
			return got
		}
		want, got := logs(one), logs(parts)
		if len(got) != 2 || len(want) != 2 {
			t.Fatalf("%s: logs %v and %v, want 2", format, keys(got), keys(want))
		}
		for name, data := range want {
			if got[name] != data {
				t.Errorf("%s: %s differs from one machine's (or is missing)", format, name)
			}
		}
	}
}

func keys(m map[string]string) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}
