// Package outputs writes output files for tests: Write at a path,
// WriteInto under the name evalmd run gives a file, and WriteRun and
// WriteRunWith a run of graded questions, one file per epoch.
package outputs

import (
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
