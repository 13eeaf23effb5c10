// Package outputs writes output files for tests: Write at a path,
// WriteInto under the name evalmd run gives a file, and WriteRun and
// WriteRunWith a run of graded questions, one file per epoch, and
// WriteShardedRun a run written whole and in shards' parts.
package outputs

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/evalmd/evalmd/result"
)

// Write writes f at path, making its folder.
func Write(t testing.TB, path string, f *result.File) {
	t.Helper()
	data, err := f.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// WriteInto writes f into dir under the name run gives it.
func WriteInto(t testing.TB, dir string, f *result.File) {
	t.Helper()
	name := result.EpochName(result.FileName("input-"+f.Sheet.Name+".md", f.Sheet.ModelName, f.Sheet.RunID), max(f.Sheet.Epoch, 1), max(f.Sheet.Epochs, 1))
	Write(t, filepath.Join(dir, name), f)
}

// WriteRun writes one run of model on sheet as output files in dir: one
// file per epoch when there are several (grades[e][q] is question
// Q<q+1>'s grade in epoch e+1), named and marked as run --epochs writes
// them.
func WriteRun(t testing.TB, dir, sheet, model, runID string, grades [][]bool) {
	t.Helper()
	WriteRunWith(t, dir, sheet, model, runID, grades, nil)
}

// WriteRunWith is WriteRun with edit (when not nil) called on each
// question before the file is written.
func WriteRunWith(t testing.TB, dir, sheet, model, runID string, grades [][]bool, edit func(q *result.Question)) {
	t.Helper()
	n := len(grades)
	for e, gs := range grades {
		f := &result.File{Sheet: result.Sheet{Name: sheet, RunID: runID, ModelName: model}}
		if n > 1 {
			f.Sheet.Epoch, f.Sheet.Epochs = e+1, n
		}
		for q, g := range gs {
			c := "wrong"
			if g {
				c = "right"
			}
			name := "Q" + strconv.Itoa(q+1)
			f.Questions = append(f.Questions, result.Question{Name: name, Question: "ask " + name,
				Completion: &c, ModelName: model, Grade: &g})
			if edit != nil {
				edit(&f.Questions[len(f.Questions)-1])
			}
		}
		WriteInto(t, dir, f)
	}
}

// WriteShardedRun writes one run (run id r1) of sheet s on two models in
// 3 epochs twice: whole into one folder, as one machine writes it, and
// split in n shards' parts into another (question i of model m, epoch e
// in shard (i+m+e) mod n, each with its position). Some question names
// repeat; every question has a request key.
func WriteShardedRun(t testing.TB, one, parts string, n int) {
	t.Helper()
	names := []string{"Q1", "Q2", "Q1", "Q3", "Q4", "Q5", "Q6", "Q1", "Q7"}
	for mi, model := range []string{"m-a", "m-b"} {
		for e := 1; e <= 3; e++ {
			f := &result.File{Sheet: result.Sheet{Name: "s", RunID: "r1", ModelName: model, Epoch: e, Epochs: 3,
				SheetFile: "input-s.md", Created: "2026-03-01T10:00:00.000Z"}}
			for i, name := range names {
				c, g := fmt.Sprintf("answer %d", i), (i*7+mi*3+e)%5 < 3
				et := float64(i) / 10
				f.Questions = append(f.Questions, result.Question{Name: name, Question: "ask " + name, Completion: &c, ModelName: model,
					Grade: &g, EvalTime: &et, InputTokens: 10 + i, OutputTokens: 2, RequestKey: fmt.Sprintf("%s %d %d", model, e, i)})
			}
			name := result.EpochName(result.FileName("input-s.md", model, "r1"), e, 3)
			Write(t, filepath.Join(one, name), f)
			for k := 1; k <= n; k++ {
				p := &result.File{Sheet: f.Sheet, Questions: []result.Question{}}
				p.Sheet.Shard, p.Sheet.Shards = k, n
				for i, q := range f.Questions {
					if (i+mi+e)%n+1 == k {
						q.Position = i + 1
						p.Questions = append(p.Questions, q)
					}
				}
				Write(t, filepath.Join(parts, result.ShardName(name, k, n)), p)
			}
		}
	}
}
