//go:build unix

package runner

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestHelperFullDisk is not a test: TestJournalWriteFailure runs the test
// binary again with EVALMD_RUNNER_FSIZE=1, in a process whose file size
// limit (RLIMIT_FSIZE) makes journal writes fail past 4 KiB as on a full
// disk. It prints what the run did on stdout, which the limit does not
// touch.
func TestHelperFullDisk(t *testing.T) {
	if os.Getenv("EVALMD_RUNNER_FSIZE") != "1" {
		t.Skip("helper process for TestJournalWriteFailure")
	}
	// The Go runtime ignores SIGXFSZ, so a write past the limit fails with
	// EFBIG instead of killing the process.
	if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &syscall.Rlimit{Cur: 4096, Max: 4096}); err != nil {
		fmt.Println("setrlimit:", err)
		os.Exit(2)
	}
	emitted, answered := 0, 0
	st, err := Run(context.Background(), newFuncModel(echo), makeJobs(1000),
		Options{Concurrency: 2, Journal: os.Getenv("EVALMD_RUNNER_JOURNAL")}, func(o Outcome) {
			emitted++
			if o.Err == nil {
				answered++
			}
		})
	fmt.Printf("emitted=%d answered=%d calls=%d unfinished=%d\nerr=%v\n", emitted, answered, st.Calls, st.Unfinished, err)
	os.Exit(0)
}

// TestJournalWriteFailure: when the journal cannot be written, the run
// stops (answers could no longer be kept for a resume), hands over the
// answers it has, and says why; the journal holds only whole records.
func TestJournalWriteFailure(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a child process")
	}
	journal := filepath.Join(t.TempDir(), "run.journal")
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperFullDisk$")
	cmd.Env = append(os.Environ(), "EVALMD_RUNNER_FSIZE=1", "EVALMD_RUNNER_JOURNAL="+journal)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("helper: %v\n%s", err, out)
	}
	t.Logf("helper: %s", out)
	var emitted, answered, calls, unfinished int
	if _, err := fmt.Sscanf(string(out), "emitted=%d answered=%d calls=%d unfinished=%d", &emitted, &answered, &calls, &unfinished); err != nil {
		t.Fatalf("helper said %q: %v", out, err)
	}
	if !strings.Contains(string(out), "err=runner: stopped with") || !strings.Contains(string(out), journal) ||
		!strings.Contains(string(out), "file too large") {
		t.Errorf("run error does not say the journal failed: %s", out)
	}
	if emitted == 0 || emitted != answered || unfinished != 1000-emitted || calls > emitted+2 || emitted > 500 {
		t.Errorf("emitted %d, answered %d, calls %d, unfinished %d: want the run stopped early, every paid answer emitted",
			emitted, answered, calls, unfinished)
	}
	data, err := os.ReadFile(journal)
	if err != nil {
		t.Fatal(err)
	}
	recs, _, _, err := readJournal(bytes.NewReader(data), journal)
	if err != nil || len(recs) == 0 || len(recs) > emitted {
		t.Errorf("journal after the failure: %d records, err %v", len(recs), err)
	}
}
