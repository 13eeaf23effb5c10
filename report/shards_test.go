package report

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/evalmd/evalmd/internal/outfile"
	"github.com/evalmd/evalmd/result"
	"github.com/evalmd/evalmd/verdict"
)

// writeShards writes run r1 of sheet S on model m1 in two shards' parts
// below dir (Q1 and Q3 in shard 1, Q2 in shard 2) and returns the
// parts' names and the name of the one file they make, on no disk.
func writeShards(t *testing.T, dir string) (parts []string, whole string) {
	t.Helper()
	whole = result.FileName("input-s.md", "m1", "r1")
	yes := true
	for k, names := range [][]string{{"Q1", "Q3"}, {"Q2"}} {
		f := &result.File{Sheet: result.Sheet{Name: "S", ModelName: "m1", RunID: "r1", Shard: k + 1, Shards: 2}}
		for _, n := range names {
			c := "answer to " + n
			f.Questions = append(f.Questions, result.Question{Name: n, Question: n + "?", Completion: &c, ModelName: "m1",
				Grade: &yes, Grader: "exact", Position: int(n[1] - '0')})
		}
		name := result.ShardName(whole, k+1, 2)
		if err := f.Write(filepath.Join(dir, name), outfile.Options{}); err != nil {
			t.Fatal(err)
		}
		parts = append(parts, name)
	}
	return parts, whole
}

// The page names the files on disk: each answer of a run split in shards
// the part it is in, with its index there (a verdict on it rewrites that
// part), and a copy of such a run left out by its parts, never by the
// one file they make.
func TestShardsNamedByParts(t *testing.T) {
	dir := t.TempDir()
	parts, whole := writeShards(t, dir)
	_, d, err := read(context.Background(), dir, Options{Verdicts: &Verdicts{URL: "/verdict", Token: "t"}})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]struct {
		file  string
		index int
	}{"Q1": {parts[0], 0}, "Q2": {parts[1], 0}, "Q3": {parts[0], 1}}
	for _, q := range d.Questions {
		a := q.Answers[0]
		c := "answer to " + q.Name
		w := want[q.Name]
		if a.File != w.file || a.Ref == nil || *a.Ref != (Ref{Index: w.index, Answer: verdict.Digest(&c)}) {
			t.Errorf("%s: file %q, ref %+v; want %s, question %d", q.Name, a.File, a.Ref, w.file, w.index)
		}
	}

	// The same run's parts again, in a folder below: left out, named.
	for _, p := range parts {
		data, err := os.ReadFile(filepath.Join(dir, p))
		if err != nil {
			t.Fatal(err)
		}
		writeFileIn(t, filepath.Join(dir, "zcopy", p), data)
	}
	var b bytes.Buffer
	if err := Write(context.Background(), &b, dir, Options{}); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	if li := "<li>zcopy/" + parts[0] + ", zcopy/" + parts[1] + "</li>"; !strings.Contains(page, li) {
		t.Errorf("the page does not name the copy's parts (%s)", li)
	}
	if strings.Contains(page, whole) {
		t.Errorf("the page names %s, a file on no disk", whole)
	}
}

func writeFileIn(t *testing.T, path string, data []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// A rerun's answers reused from an earlier run are shown once, from the
// earlier run; the rerun's own answers keep their index in its file, so
// a verdict on one names that question, not the one now before it.
func TestReusedLeaveIndexes(t *testing.T) {
	dir := t.TempDir()
	yes := true
	first := result.FileName("input-s.md", "m1", "r1")
	for _, run := range []string{"r1", "r2"} {
		f := &result.File{Sheet: result.Sheet{Name: "S", ModelName: "m1", RunID: run}}
		for _, n := range []string{"Q1", "Q2"} {
			c := "answer to " + n + " in " + run
			q := result.Question{Name: n, Question: n + "?", Completion: &c, ModelName: "m1", Grade: &yes, Grader: "exact", RequestKey: run + n}
			if run == "r2" && n == "Q1" {
				c = "answer to Q1 in r1"
				q.ReusedFrom, q.RequestKey = first, "r1Q1"
			}
			f.Questions = append(f.Questions, q)
		}
		if err := f.Write(filepath.Join(dir, result.FileName("input-s.md", "m1", run)), outfile.Options{}); err != nil {
			t.Fatal(err)
		}
	}
	_, d, err := read(context.Background(), dir, Options{Verdicts: &Verdicts{URL: "/verdict", Token: "t"}})
	if err != nil {
		t.Fatal(err)
	}
	second := result.FileName("input-s.md", "m1", "r2")
	var found bool
	for _, q := range d.Questions {
		for _, a := range q.Answers {
			if a.File != second {
				continue
			}
			found = true
			if q.Name != "Q2" || a.Ref == nil || a.Ref.Index != 1 {
				t.Errorf("%s's answer to %s: ref %+v, want Q2's, question 1 of its file", second, q.Name, a.Ref)
			}
		}
	}
	if !found {
		t.Errorf("no answer of %s on the page", second)
	}
}
