package write

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/evalmd/evalmd/harness/internal/plan"
	"github.com/evalmd/evalmd/result"
)

// An output is refused before anything is spent when it may not be
// written (an earlier run's, unless this run resumes the run that wrote
// it, or forced), and written only while its file holds what was found
// then: of two runs writing one file, the second to finish is refused,
// and so is its rerun, which keeps the first one's file.
func TestFiles(t *testing.T) {
	output := func(path string) *plan.Output {
		return &plan.Output{Job: plan.Job{OutPath: path}, File: &result.File{Sheet: result.Sheet{Name: "S"}, Questions: []result.Question{}}}
	}
	for _, tc := range []struct {
		name               string
		earlier            bool // an earlier run wrote the output
		resuming           bool // this run resumes the one that wrote it
		resumingOther      bool // this run resumes another, which did not write it
		force              bool
		changedAfterCheck  bool // another run writes it between Check and Write
		checkErr, writeErr string
	}{
		{name: "a new output"},
		{name: "an earlier run's output", earlier: true, checkErr: "exists, from an earlier run"},
		{name: "an earlier run's output, resumed", earlier: true, resuming: true},
		{name: "another run's output, on resuming", earlier: true, resumingOther: true, checkErr: "written by another run"},
		{name: "another run's output, on resuming, forced", earlier: true, resumingOther: true, force: true},
		{name: "an earlier run's output, forced", earlier: true, force: true},
		{name: "written meanwhile by another run", changedAfterCheck: true, writeErr: "output-s.json"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "output-s.json")
			write := func(f *Files) error {
				o := output(path)
				return f.Write(o, spillAll(t, o.File))
			}
			earlier := &Files{Resumed: map[string]string{}}
			earlier.Wrote = func(p, sum string) error { earlier.Resumed[p] = sum; return nil }
			if tc.earlier {
				if err := write(earlier); err != nil {
					t.Fatal(err)
				}
			}
			f := &Files{Force: tc.force}
			switch {
			case tc.resuming:
				f.Resumed = earlier.Resumed
			case tc.resumingOther:
				f.Resumed = map[string]string{}
			}
			err := f.Check(path)
			if (err != nil) != (tc.checkErr != "") || err != nil && !strings.Contains(err.Error(), tc.checkErr) {
				t.Fatalf("Check: %v, want %q", err, tc.checkErr)
			}
			if err != nil {
				return
			}
			if tc.changedAfterCheck {
				if err := write(&Files{}); err != nil {
					t.Fatal(err)
				}
			}
			err = write(f)
			if (err != nil) != (tc.writeErr != "") || err != nil && !strings.Contains(err.Error(), tc.writeErr) {
				t.Fatalf("Write: %v, want %q", err, tc.writeErr)
			}
			if err == nil {
				if _, err := os.Stat(result.MarkdownPath(path)); err != nil {
					t.Errorf("no markdown beside the output: %v", err)
				}
			}
		})
	}
}

// spillAll is a spill of every question of f, in a scratch file of the
// test's.
func spillAll(t testing.TB, f *result.File) *Spill {
	t.Helper()
	sc, err := NewScratch(filepath.Join(t.TempDir(), "journal"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sc.Close() })
	sp := sc.Spill(len(f.Questions))
	for i := range f.Questions {
		if err := sp.PutQuestion(&f.Sheet, i, &f.Questions[i]); err != nil {
			t.Fatal(err)
		}
	}
	return sp
}

type recorder struct {
	name string
	log  *[]string
	err  error
}

func (r recorder) Write(o *plan.Output, _ *Spill) error {
	*r.log = append(*r.log, r.name+" "+o.OutPath)
	return r.err
}

func (r recorder) Close() error {
	*r.log = append(*r.log, r.name+" closed")
	return nil
}

// All hands each output to its writers in turn, stopping at the first
// that fails, and closes every one.
func TestAll(t *testing.T) {
	var log []string
	boom := errors.New("boom")
	w := All{recorder{"a", &log, nil}, recorder{"b", &log, boom}, recorder{"c", &log, nil}}
	if err := w.Write(&plan.Output{Job: plan.Job{OutPath: "o1"}}, nil); err != boom {
		t.Errorf("Write: %v, want b's error", err)
	}
	if err := w.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	if got, want := strings.Join(log, ", "), "a o1, b o1, a closed, b closed, c closed"; got != want {
		t.Errorf("calls %q, want %q", got, want)
	}
}
