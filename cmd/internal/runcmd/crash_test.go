package runcmd

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/evalmd/evalmd/internal/testkit/benchkit"
	"github.com/evalmd/evalmd/internal/testkit/fakeserver"
	"github.com/evalmd/evalmd/result"
)

// kill -9 in sheet 2 of a run -d of 3 sheets: the rerun of the same command
// asks nothing sheet 1 already had, counted by the server, and writes
// exactly one output per sheet, all with the first run's run id.
func TestKillResumesAcrossSheets(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a child process")
	}
	dir := t.TempDir()
	sheets, out := filepath.Join(dir, "sheets"), filepath.Join(dir, "out")
	os.MkdirAll(sheets, 0o755)
	for i := 1; i <= 3; i++ {
		var b strings.Builder
		fmt.Fprintf(&b, "# Sheet %d\n", i)
		for j := 1; j <= 5; j++ {
			fmt.Fprintf(&b, "## Q%d\n#### question\nask S%d Q%d\n#### answer\nA%d\n", j, i, j, j)
		}
		os.WriteFile(filepath.Join(sheets, fmt.Sprintf("input-s%d.md", i)), []byte(b.String()), 0o644)
	}
	var mu sync.Mutex
	asked := map[string]int{}
	child := true
	kill := make(chan struct{})
	release := make(chan struct{})
	srv := fakeserver.NewOpenAI(t, fakeserver.Options{MaxRequests: 100,
		Reply: func(c fakeserver.Call) fakeserver.Reply {
			q := strings.TrimSpace(c.LastUserText())
			mu.Lock()
			asked[q]++
			hold := child && q == "ask S2 Q3"
			mu.Unlock()
			if hold {
				// Sheet 1's output is written by its own goroutine once its
				// last answer is in, beside sheet 2's requests: wait for it
				// (bounded), then the child dies with this request in flight.
				for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
					if done, _ := filepath.Glob(filepath.Join(out, "output-s1-*.json")); len(done) > 0 {
						break
					}
				}
				close(kill)
				<-release
			}
			return fakeserver.Reply{Text: "A" + q[len(q)-1:]}
		}})
	args := []string{"-d", sheets, "-m", "openai-api/local/tiny", "--base-url", srv.URL, "-o", out, "-c", "1"}

	killChildAt(t, args, kill, "sheet 2")
	mu.Lock()
	child = false
	mu.Unlock()
	close(release)
	if first, _ := filepath.Glob(filepath.Join(out, "output-*.json")); len(first) != 1 {
		t.Fatalf("outputs after the kill: %v, want sheet 1's", first)
	}
	// The answers on their way to sheet 2's output were in scratch files
	// that no kill leaves behind: the folder holds the run's journal and
	// state and the outputs written.
	ents, _ := os.ReadDir(out)
	for _, e := range ents {
		n := e.Name()
		if !strings.HasPrefix(n, "output-s1-") && n != ".evalmd-written" && n != ".evalmd-sealed" && !strings.HasSuffix(n, ".journal") && !strings.HasSuffix(n, ".run") {
			t.Errorf("the kill left %s in the output folder", n)
		}
	}

	var log strings.Builder
	if err := run(context.Background(), &log, &log, args); err != nil {
		t.Fatalf("rerun: %v\n%s", err, log.String())
	}
	mu.Lock()
	defer mu.Unlock()
	// Sheet 1 was complete (its output written) before the kill: nothing
	// of it is asked again. A sheet 2 answer that arrived just before the
	// kill may not have reached the journal (records are written beside
	// the next request), so it may be asked once more, never twice.
	for q, n := range asked {
		if strings.HasPrefix(q, "ask S1 ") && n > 1 || n > 2 {
			t.Errorf("%q asked %d times", q, n)
		}
	}
	if len(asked) != 15 {
		t.Errorf("%d questions asked, want 15", len(asked))
	}
	paths, _ := filepath.Glob(filepath.Join(out, "output-*.json"))
	if len(paths) != 3 {
		t.Fatalf("outputs %v, want one per sheet", paths)
	}
	runID := ""
	for i, p := range paths {
		f, err := result.Read(p)
		if err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			runID = f.Sheet.RunID
		}
		if f.Sheet.RunID != runID || runID == "" {
			t.Errorf("%s: run id %q, want %q", p, f.Sheet.RunID, runID)
		}
		for _, q := range f.Questions {
			if q.Grade == nil || !*q.Grade {
				t.Errorf("%s %s: not answered right after the resume", p, q.Name)
			}
		}
	}
}

// killChildAt runs the command with args in a child process, as cli.Main
// runs it (TestMainHelperProcess), and kills it (SIGKILL) when kill is
// closed; the test fails if the child ends first or never gets to what.
func killChildAt(t *testing.T, args []string, kill <-chan struct{}, what string) {
	t.Helper()
	cmd, exited, stderr := startChild(t, args)
	select {
	case <-kill:
		cmd.Process.Kill()
		<-exited
	case err := <-exited:
		t.Fatalf("the child ended before %s: %v\n%s", what, err, stderr.String())
	case <-time.After(2 * time.Minute):
		cmd.Process.Kill()
		t.Fatalf("the child never reached %s", what)
	}
}

// startChild starts run with args in a child process (helperCommand),
// with env's variables besides this process's, and returns it, a channel
// that gets its exit, and what it writes on stderr.
func startChild(t *testing.T, args []string, env ...string) (*exec.Cmd, <-chan error, *strings.Builder) {
	t.Helper()
	cmd := helperCommand(args, env...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	return cmd, exited, &stderr
}

// A run killed halfway as a memory bound kills it (the kernel's OOM
// killer sends SIGKILL) left every answer it had in its journal: the rerun
// of the same command buys again at most what was in flight at the kill
// (-c 32), and writes every question answered once.
func TestKilledRunRebuysOnlyInFlight(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a child process")
	}
	const n, c = 2000, 32
	dir := t.TempDir()
	sheet, out := filepath.Join(dir, "input-big.md"), filepath.Join(dir, "out")
	if err := benchkit.WriteSheet(sheet, n); err != nil {
		t.Fatal(err)
	}
	kill := make(chan struct{})
	var once sync.Once
	srv := fakeserver.NewOpenAI(t, fakeserver.Options{MaxRequests: 2 * n, Unrecorded: true, Latency: time.Millisecond,
		Reply: func(fakeserver.Call) fakeserver.Reply { return fakeserver.Reply{} }})
	go func() {
		for srv.Count() < n/2 {
			time.Sleep(time.Millisecond)
		}
		once.Do(func() { close(kill) })
	}()
	args := []string{"-f", sheet, "-m", "openai-api/local/tiny", "--base-url", srv.URL, "-o", out, "-c", fmt.Sprint(c)}
	killChildAt(t, args, kill, "half the questions")
	before := srv.Count()
	var log strings.Builder
	if err := run(context.Background(), &log, &log, args); err != nil {
		t.Fatalf("rerun: %v\n%s", err, log.String())
	}
	asked := srv.Count() - before
	t.Logf("the killed run asked %d questions, the rerun %d (of %d)", before, asked, n)
	if before+asked > n+c {
		t.Errorf("%d requests for %d questions: the rerun bought again more than the %d in flight", before+asked, n, c)
	}
	paths, _ := filepath.Glob(filepath.Join(out, "output-*.json"))
	if len(paths) != 1 {
		t.Fatalf("outputs %v", paths)
	}
	f, err := result.Read(paths[0])
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Questions) != n || f.Sheet.Totals.Answered != n {
		t.Errorf("%d questions, %d answered, want %d", len(f.Questions), f.Sheet.Totals.Answered, n)
	}
}
