package benchkit

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
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
