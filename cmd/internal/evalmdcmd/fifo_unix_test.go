//go:build unix

package evalmdcmd

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A FIFO handed over where a file is read (an output in a results folder,
// a replay file, a dataset's questions, a question table, a workbook) is
// refused in a line naming it, at once: opened as a file, it would hold
// the command until something wrote to it.
func TestFIFOsRefused(t *testing.T) {
	dir := t.TempDir()
	in := func(name string) string { return filepath.Join(dir, name) }
	for _, d := range []string{"results", "dab"} {
		if err := os.Mkdir(in(d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	good := `{"sheet": {"name": "S", "run_id": "r1", "model_name": "m"}, "questions": [{"name": "a", "grade": true, "completion": "x"}]}`
	if err := os.WriteFile(in("results/output-s-m-r1.json"), []byte(good), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(in("input-s.md"), []byte("# S\n\n## a\n\n#### question\nq?\n\n#### answer\nx\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"results/output-s-m-r2.json", "replay.jsonl", "dab/da-dev-questions.jsonl", "qa.csv", "q.csv", "q.xlsx", "w.xlsx"} {
		if err := syscall.Mkfifo(in(f), 0o644); err != nil {
			t.Skip("no FIFOs here:", err)
		}
	}
	env := testEnv(dir, nil)
	for _, tc := range []struct {
		args []string
		fifo string
	}{
		{[]string{"agg", "-i", in("results"), "-o", "-"}, "output-s-m-r2.json"},
		{[]string{"agg", "-i", in("results"), "-html", in("report.html")}, "output-s-m-r2.json"},
		{[]string{"run", "-f", in("input-s.md"), "-m", "replay:" + in("replay.jsonl"), "-o", in("out")}, "replay.jsonl"},
		{[]string{"convert", "dabench", "-i", in("dab"), "-o", in("o1")}, "da-dev-questions.jsonl"},
		{[]string{"convert", "databench", "-i", in("qa.csv"), "-o", in("o2")}, "qa.csv"},
		{[]string{"convert", "table", "-i", in("q.csv"), "-o", in("s1.md")}, "q.csv"},
		{[]string{"convert", "table", "-i", in("q.xlsx"), "-o", in("s2.md")}, "q.xlsx"},
		{[]string{"convert", "workbook", in("w.xlsx")}, "w.xlsx"},
	} {
		type result struct{ stderr string }
		done := make(chan result, 1)
		go func() {
			_, stderr, _ := evalmd(t, env, tc.args...)
			done <- result{stderr}
		}()
		select {
		case r := <-done:
			if !strings.Contains(r.stderr, tc.fifo+": not a regular file (a FIFO)") {
				t.Errorf("%s: stderr does not name the FIFO:\n%s", strings.Join(tc.args[:2], " "), r.stderr)
			}
		case <-time.After(10 * time.Second):
			t.Errorf("%s: still waiting on the FIFO %s after 10s", strings.Join(tc.args[:2], " "), tc.fifo)
		}
	}
}
