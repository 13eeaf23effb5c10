package runner

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/evalmd/evalmd/model"
)

// Where stderr is not a terminal (a log, CI), progress is a plain line a
// few seconds apart, never a line redrawn with \r; a run shorter than that
// writes none. Jobs of several models count apart.
func TestProgressPlain(t *testing.T) {
	f, err := os.Create(filepath.Join(t.TempDir(), "log"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	a, b := newFuncModel(echo), newFuncModel(echo)
	b.name = "other/model"
	jobs := []Job{{Key: "1", Model: a}, {Key: "2", Model: a}, {Key: "3", Model: b}}
	t0 := time.Unix(1000, 0)
	cost := func(name string, _ model.Response) (float64, bool) { return 0.25, name == a.name }
	p := newProgress(f, t0, jobSlice(jobs), cost)
	if p.tty {
		t.Fatal("a file taken for a terminal")
	}
	p.by[a.name].done, p.by[a.name].live = 1, 1
	for _, sec := range []int{0, 1, 4} {
		p.tick(t0.Add(time.Duration(sec) * time.Second))
	}
	if fi, _ := f.Stat(); fi.Size() != 0 {
		t.Fatalf("a line within the first %v", plainEvery)
	}
	p.tick(t0.Add(6 * time.Second))
	p.tick(t0.Add(7 * time.Second)) // too soon for another
	p.by[b.name].done = 1
	p.tick(t0.Add(12 * time.Second))
	p.by[a.name].done = 2
	p.finish(t0.Add(13 * time.Second))
	data, _ := os.ReadFile(f.Name())
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	if strings.Contains(string(data), "\r") || len(lines) != 3 {
		t.Fatalf("log:\n%q", data)
	}
	want := "progress: fake/model 1/2  50%  0.2 q/s  ETA 6s  tokens 0 in 0 out  $0.0000 | other/model 0/1   0%  tokens 0 in 0 out  cost unknown"
	if lines[0] != want {
		t.Errorf("first line\n%q\nwant\n%q", lines[0], want)
	}
	if !strings.Contains(lines[2], "fake/model 2/2 100%") || !strings.Contains(lines[2], "other/model 1/1 100%") {
		t.Errorf("last line %q", lines[2])
	}
}
