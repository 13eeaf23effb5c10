package runcmd

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/evalmd/evalmd/internal/testkit/syncbuf"
	"github.com/evalmd/evalmd/result"
)

// waitFor waits (bounded) until log holds want n times.
func waitFor(t *testing.T, log *syncbuf.Buffer, want string, n int) {
	t.Helper()
	for deadline := time.Now().Add(time.Minute); strings.Count(log.String(), want) < n; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("stderr does not say %q %d times:\n%s", want, n, log.String())
		}
	}
}

// outputsOf lists the output files of sheet (by its base name) in dir.
func outputsOf(t *testing.T, dir, sheet string) []string {
	t.Helper()
	found, err := result.Find(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, p := range found {
		if strings.Contains(filepath.Base(p), "-"+strings.TrimSuffix(strings.TrimPrefix(sheet, "input-"), ".md")+"-") {
			out = append(out, p)
		}
	}
	return out
}

// run --watch runs the sheets, then again only the one saved (asking only
// its question that changed, as any rerun); a sheet
// saved empty (half-written) is one line and the watch goes on; a sheet
// added to the folder is run; the end of the context ends the watch
// without an error.
func TestWatchRerunsSavedSheets(t *testing.T) {
	dir := t.TempDir()
	sheets, out := filepath.Join(dir, "sheets"), filepath.Join(dir, "out")
	os.MkdirAll(sheets, 0o755)
	a, b := filepath.Join(sheets, "input-a.md"), filepath.Join(sheets, "input-b.md")
	os.WriteFile(a, []byte("# A\n## Q1\n#### question\n2+2?\n#### answer\n4\n"), 0o644)
	os.WriteFile(b, []byte("# B\n## Q1\n#### question\n3+3?\n#### answer\n6\n"), 0o644)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	var stdout, stderr syncbuf.Buffer
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, &stdout, &stderr, []string{"--watch", "-d", sheets, "-m", "mock", "-o", out})
	}()
	waitFor(t, &stderr, "watching 2 sheets for changes", 1)
	if len(outputsOf(t, out, "input-a.md")) != 1 || len(outputsOf(t, out, "input-b.md")) != 1 {
		t.Fatalf("the first run wrote %q and %q", outputsOf(t, out, "input-a.md"), outputsOf(t, out, "input-b.md"))
	}

	os.WriteFile(a, []byte("# A\n## Q1\n#### question\n2+2?\n#### answer\n4\n## Q2\n#### question\n5+5?\n#### answer\n10\n"), 0o644)
	waitFor(t, &stderr, "watching 2 sheets for changes", 2)
	if !strings.Contains(stderr.String(), "changed: "+a+"\n") {
		t.Errorf("the change is not named:\n%s", stderr.String())
	}
	if !strings.Contains(stderr.String(), "mock on input-a.md: 0/2 correct, 1 asked, 1 reused") {
		t.Errorf("the rerun does not ask only the new question:\n%s", stderr.String())
	}
	// The first output of a is superseded (its one answer is in the new
	// one) and put aside.
	as := outputsOf(t, out, "input-a.md")
	if len(as) != 1 || len(outputsOf(t, out, "input-b.md")) != 1 || len(outputsOf(t, filepath.Join(out, result.Superseded), "input-a.md")) != 1 {
		t.Fatalf("after saving input-a.md: %q and %q", as, outputsOf(t, out, "input-b.md"))
	}
	if f, err := result.Read(as[0]); err != nil || len(f.Questions) != 2 {
		t.Errorf("the output does not hold the saved sheet's two questions: %v", err)
	}

	os.WriteFile(a, nil, 0o644) // saved half-written
	waitFor(t, &stderr, "watching 2 sheets for changes", 3)
	if n := strings.Count(stderr.String(), "not run: "+a+":1: "); n != 1 {
		t.Errorf("the empty sheet is said %d times, want once:\n%s", n, stderr.String())
	}
	if len(outputsOf(t, out, "input-a.md")) != 1 {
		t.Error("the empty sheet was run")
	}

	os.WriteFile(filepath.Join(sheets, "input-c.md"), []byte("# C\n## Q1\n#### question\n1+1?\n#### answer\n2\n"), 0o644)
	waitFor(t, &stderr, "watching 3 sheets for changes", 1)
	if len(outputsOf(t, out, "input-c.md")) != 1 || len(outputsOf(t, out, "input-b.md")) != 1 {
		t.Errorf("after adding input-c.md: %q and %q", outputsOf(t, out, "input-c.md"), outputsOf(t, out, "input-b.md"))
	}

	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("the watch ended with %v", err)
		}
	case <-time.After(time.Minute):
		t.Fatal("the watch did not end with its context")
	}
	if !strings.HasSuffix(stderr.String(), "stopped watching\n") {
		t.Errorf("stderr does not end with the watch:\n%s", stderr.String())
	}
	if n := strings.Count(stdout.String(), "| model"); n != 3 {
		t.Errorf("%d summary tables, want one a run (3):\n%s", n, stdout.String())
	}
}

// Ctrl-C while watching ends the command with status 0.
func TestWatchCtrlC(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a child process")
	}
	sheet := filepath.Join(t.TempDir(), "input-a.md")
	os.WriteFile(sheet, []byte("# A\n## Q1\n#### question\n2+2?\n#### answer\n4\n"), 0o644)
	cmd := helperCommand([]string{"--watch", "-f", sheet, "-m", "mock"})
	var stderr syncbuf.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill() })
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	waitFor(t, &stderr, "watching 1 sheet for changes", 1)
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-exited:
		if err != nil {
			t.Errorf("exit: %v, want status 0\n%s", err, stderr.String())
		}
	case <-time.After(time.Minute):
		t.Fatalf("no exit after Ctrl-C\n%s", stderr.String())
	}
	if !strings.HasSuffix(stderr.String(), "stopped watching\n") {
		t.Errorf("stderr:\n%s", stderr.String())
	}
}
