package agg

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/evalmd/evalmd/internal/testkit/outputs"
	"github.com/evalmd/evalmd/internal/testkit/shared"
	"github.com/evalmd/evalmd/result"
)

// report is agg's whole markdown report of dir, what Each saw (each file
// as path: questions) and the warnings.
func report(t *testing.T, dir string) (md, each, warn string) {
	t.Helper()
	var out, stderr, seen bytes.Buffer
	opt := Options{Dir: dir, Out: "-", Stdout: &out, Stderr: &stderr}
	d, err := Read(context.Background(), opt, func(path string, f *result.File, counted bool) {
		rel, _ := filepath.Rel(dir, path)
		var qs []string
		for _, q := range f.Questions {
			qs = append(qs, q.Name)
		}
		fmt.Fprintf(&seen, "%s %v: %s\n", rel, counted, strings.Join(qs, ","))
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Write(opt); err != nil {
		t.Fatal(err)
	}
	return out.String(), seen.String(), stderr.String()
}

// The parts of a run split in shards are read as the files one machine
// writes: the same report, byte for byte, and every reader of the folder
// (Each) sees the whole files, in the same order. A second copy of a
// part is left out, named; a run with a part missing is counted with the
// others and named; a rerun that reused the shards' answers adds nothing.
func TestShardPartsReadAsOneRun(t *testing.T) {
	dir := t.TempDir()
	one, parts := filepath.Join(dir, "one"), filepath.Join(dir, "parts")
	outputs.WriteShardedRun(t, one, parts, 4)
	wantMD, wantEach, wantWarn := report(t, one)
	md, each, warn := report(t, parts)
	if md != wantMD {
		t.Errorf("the shards' report differs from one machine's:\n%s\n--- one machine\n%s", md, wantMD)
	}
	if each != wantEach || warn != wantWarn {
		t.Errorf("Each saw\n%s(warned %q)\nwant\n%s(warned %q)", each, warn, wantEach, wantWarn)
	}
	if !strings.Contains(wantMD, "m-a") || strings.Count(wantEach, "\n") != 6 {
		t.Fatalf("the one-machine report is not what the test means:\n%s\n%s", wantMD, wantEach)
	}

	// A copy of a part, in a folder below: left out.
	copied := filepath.Join(parts, "copy", result.ShardName(result.EpochName(result.FileName("input-s.md", "m-b", "r1"), 2, 3), 3, 4))
	data, err := os.ReadFile(filepath.Join(parts, filepath.Base(copied)))
	if err != nil {
		t.Fatal(err)
	}
	writeRaw(t, copied, data)
	md, _, warn = report(t, parts)
	// (The copy's name comes first: the part beside the others is the one left out.)
	if md != wantMD || !strings.Contains(warn, "the same shard as "+copied) {
		t.Errorf("with a copy of a part: warned %q; report equal: %v", warn, md == wantMD)
	}
	os.Remove(copied)

	// A rerun that reused every answer of the shards adds nothing.
	rerun := filepath.Join(parts, result.EpochName(result.FileName("input-s.md", "m-a", "r2"), 1, 3))
	f, err := result.Read(filepath.Join(one, result.EpochName(result.FileName("input-s.md", "m-a", "r1"), 1, 3)))
	if err != nil {
		t.Fatal(err)
	}
	f.Sheet.RunID = "r2"
	for i := range f.Questions {
		f.Questions[i].ReusedFrom = result.ShardName(result.EpochName(result.FileName("input-s.md", "m-a", "r1"), 1, 3), (i+1)%4+1, 4)
	}
	outputs.Write(t, rerun, f)
	md, _, warn = report(t, parts)
	if md != wantMD || !strings.Contains(warn, "every answer in it is counted from") {
		t.Errorf("a rerun of reused answers: warned %q; report equal: %v", warn, md == wantMD)
	}
	os.Remove(rerun)

	// Shard 2's parts are missing: the others are counted, and the runs named.
	gone, _ := filepath.Glob(filepath.Join(parts, "*-shard2of4.json"))
	for _, p := range gone {
		os.Remove(p)
	}
	var stderr bytes.Buffer
	d, err := Read(context.Background(), Options{Dir: parts, Stderr: &stderr}, nil)
	if err != nil {
		t.Fatal(err)
	}
	full := loadDir(t, one)
	if len(d.PartialShards) != 6 || d.Files != 6 || d.Questions() >= full.Questions() || d.Questions() == 0 {
		t.Errorf("shard 2 missing: %d partial runs, %d files, %d of %d questions", len(d.PartialShards), d.Files, d.Questions(), full.Questions())
	}
	if !strings.Contains(stderr.String(), "no part of shard 2 of 4") {
		t.Errorf("warned %q", stderr.String())
	}
	// The runs are named by their parts, the files on disk, not by the
	// one file they make, which is not.
	whole := result.EpochName(result.FileName("input-s.md", "m-a", "r1"), 1, 3)
	var named []string
	for _, k := range []int{1, 3, 4} {
		named = append(named, filepath.Join(parts, result.ShardName(whole, k, 4)))
	}
	parts134 := strings.Join(named, ", ")
	for _, w := range d.PartialShards {
		if strings.Contains(w, whole) {
			t.Errorf("warned %q: %s is no file; its parts are", w, whole)
		}
	}
	if w := stderr.String(); !strings.Contains(w, parts134+" (model m-a, sheet s): no part of shard 2 of 4") {
		t.Errorf("warned %q, want the parts named (%s)", w, parts134)
	}
}

func writeRaw(t *testing.T, path string, data []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestLIMEAggCountsShards runs LIME's own agg.py on the shards' parts of
// a run and on the files one machine writes: its three tables are the
// same (LIME reads each question of each file as a row), and agg's own
// LIME tables of the parts are agg.py's.
func TestLIMEAggCountsShards(t *testing.T) {
	dir := t.TempDir()
	one, parts := filepath.Join(dir, "one"), filepath.Join(dir, "parts")
	outputs.WriteShardedRun(t, one, parts, 4)
	fromOne, fromParts := shared.LIMEAgg(t, one), shared.LIMEAgg(t, parts)
	if fromOne != fromParts {
		t.Errorf("agg.py counts the parts otherwise:\n%s\n--- one machine\n%s", fromParts, fromOne)
	}
	if got := loadDir(t, parts).LIMEMarkdown(); got != fromParts {
		t.Errorf("agg's LIME tables of the parts differ from agg.py's:\n--- agg\n%s\n--- agg.py\n%s", got, fromParts)
	}
}

// writeParts writes run id of sheet s on model m in two shards' parts
// below dir (questions Q1 to Q4, the odd in shard 1), each question
// changed by edit first, and returns the parts' paths.
func writeParts(t *testing.T, dir, id string, edit func(f *result.File, q *result.Question)) []string {
	t.Helper()
	whole := result.FileName("input-s.md", "m", id)
	var paths []string
	for k := 1; k <= 2; k++ {
		f := &result.File{Sheet: result.Sheet{Name: "s", RunID: id, ModelName: "m", SheetFile: "input-s.md", Shard: k, Shards: 2,
			Created: "2026-03-01T10:00:0" + id[len(id)-1:] + ".000Z"}}
		for i := k; i <= 4; i += 2 {
			c, g := fmt.Sprintf("answer %d", i), true
			q := result.Question{Name: fmt.Sprintf("Q%d", i), Question: fmt.Sprintf("ask %d", i), Completion: &c, ModelName: "m",
				Grade: &g, RequestKey: fmt.Sprintf("key %d", i), Position: i}
			edit(f, &q)
			f.Questions = append(f.Questions, q)
		}
		paths = append(paths, filepath.Join(dir, result.ShardName(whole, k, 2)))
		outputs.Write(t, paths[k-1], f)
	}
	return paths
}

// Every note agg makes of a run split in shards names its parts, the
// files on disk, and never the one file they make, which is on no disk.
func TestShardNotesNameParts(t *testing.T) {
	same := func(*result.File, *result.Question) {}
	for _, tc := range []struct {
		name string
		// write writes the folder's outputs and returns the parts the
		// note names.
		write func(t *testing.T, dir string) []string
		note  string
	}{
		{"subset", func(t *testing.T, dir string) []string {
			return writeParts(t, dir, "r1", func(f *result.File, _ *result.Question) {
				f.Sheet.Subset = &result.Subset{Limit: 4, Of: 9}
			})
		}, "a subset in "},
		{"no answers", func(t *testing.T, dir string) []string {
			return writeParts(t, dir, "r1", func(_ *result.File, q *result.Question) {
				q.Completion, q.Grade = nil, nil
				e := "timeout"
				q.Error = &e
			})
		}, "no answers in "},
		{"a rerun's answers counted from the parts", func(t *testing.T, dir string) []string {
			first := writeParts(t, dir, "r1", same)
			writeParts(t, dir, "r2", func(_ *result.File, q *result.Question) {
				if q.Name == "Q1" {
					q.RequestKey, q.ReusedFrom = "key 1", filepath.Base(first[0])
				} else {
					q.RequestKey += " again"
				}
			})
			return first
		}, "answers are counted from "},
		{"versions", func(t *testing.T, dir string) []string {
			writeParts(t, dir, "r1", same)
			return writeParts(t, dir, "r2", func(_ *result.File, q *result.Question) {
				q.Question += " (edited)"
				q.RequestKey += " edited"
			})
		}, "versions of its questions"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			parts := tc.write(t, dir)
			var stderr bytes.Buffer
			if _, err := Read(context.Background(), Options{Dir: dir, Stderr: &stderr}, nil); err != nil {
				t.Fatal(err)
			}
			var line string
			for _, l := range strings.Split(stderr.String(), "\n") {
				if strings.Contains(l, tc.note) {
					line = l
				}
			}
			names := parts
			if tc.name == "versions" {
				names = []string{filepath.Base(parts[0]), filepath.Base(parts[1])}
			}
			if !strings.Contains(line, strings.Join(names, ", ")) {
				t.Errorf("no note naming the parts %v:\n%s", names, stderr.String())
			}
			for _, id := range []string{"r1", "r2"} {
				if whole := result.FileName("input-s.md", "m", id); strings.Contains(stderr.String(), whole) {
					t.Errorf("a note names %s, a file on no disk:\n%s", whole, stderr.String())
				}
			}
		})
	}
}
