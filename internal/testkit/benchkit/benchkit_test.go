package benchkit

import (
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/evalmd/evalmd/result"
)

func TestWriteSheet(t *testing.T) {
	path := filepath.Join(t.TempDir(), "input-q3.md")
	if err := WriteSheet(path, 3); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	want := "# Sheet 1\n" +
		"## Q1\n#### question\nask S1 Q1\n#### answer\nfake reply\n" +
		"## Q2\n#### question\nask S1 Q2\n#### answer\nfake reply\n" +
		"## Q3\n#### question\nask S1 Q3\n#### answer\nfake reply\n"
	if string(data) != want {
		t.Errorf("sheet:\n%s\nwant:\n%s", data, want)
	}
}

// TestWriteBenchSheet writes the sheet of scripts/bench-run.sh: BENCHKIT_QUESTIONS
// questions to the file BENCHKIT_SHEET names; skipped without it.
func TestWriteBenchSheet(t *testing.T) {
	path := os.Getenv("BENCHKIT_SHEET")
	if path == "" {
		t.Skip("BENCHKIT_SHEET is not set")
	}
	n, err := strconv.Atoi(strings.TrimSpace(os.Getenv("BENCHKIT_QUESTIONS")))
	if err != nil || n < 1 {
		t.Fatalf("BENCHKIT_QUESTIONS %q: a number of questions, at least 1", os.Getenv("BENCHKIT_QUESTIONS"))
	}
	if err := WriteSheet(path, n); err != nil {
		t.Fatal(err)
	}
}

func TestWatchHeap(t *testing.T) {
	stop := WatchHeap()
	keep := make([][]byte, 0, 64)
	for range 64 {
		keep = append(keep, make([]byte, 1<<20))
	}
	peak := stop()
	if peak < 64<<20 {
		t.Errorf("peak %d bytes while 64 MiB were held", peak)
	}
	_ = keep[63]
}

// The parts WriteOutputParts writes make WriteOutput's file: each a
// shard's, every question in one part, with its position.
func TestWriteOutputParts(t *testing.T) {
	for _, tc := range []struct{ n, shards int }{{10, 4}, {3, 4}, {7, 1}} {
		dir := t.TempDir()
		path := filepath.Join(dir, "output-q-m-b3nc.json")
		if err := WriteOutput(path, tc.n); err != nil {
			t.Fatal(err)
		}
		if err := WriteOutputParts(path, tc.n, tc.shards); err != nil {
			t.Fatal(err)
		}
		whole, err := result.Read(path)
		if err != nil {
			t.Fatal(err)
		}
		parts := make([]*result.File, tc.shards)
		for k := range parts {
			if parts[k], err = result.Read(result.ShardName(path, k+1, tc.shards)); err != nil {
				t.Fatal(err)
			}
			if sh := parts[k].Sheet; sh.Shard != k+1 || sh.Shards != tc.shards {
				t.Errorf("part %d of %d: shard %d of %d", k+1, tc.shards, sh.Shard, sh.Shards)
			}
		}
		if got := result.MergeParts(parts); !reflect.DeepEqual(got.Questions, whole.Questions) || len(whole.Questions) != tc.n {
			t.Errorf("%d questions in %d parts: merged %d questions, not the %d of the whole", tc.n, tc.shards, len(got.Questions), len(whole.Questions))
		}
	}
}
