package batch

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/evalmd/evalmd/internal/testkit/fakeserver"
)

// TestKillChild is the process TestKill9 kills: it runs a batch of
// EVALMD_BATCH_N questions against the fake server at EVALMD_BATCH_URL and
// writes its stats and warnings to EVALMD_BATCH_OUT. Without those
// variables it does nothing.
func TestKillChild(t *testing.T) {
	out := os.Getenv("EVALMD_BATCH_OUT")
	if out == "" {
		t.Skip("run by TestKill9 only")
	}
	n, _ := strconv.Atoi(os.Getenv("EVALMD_BATCH_N"))
	api := batchAPI(t, os.Getenv("EVALMD_BATCH_MODEL"), os.Getenv("EVALMD_BATCH_URL"))
	var warnings []string
	answered := 0
	st, err := Run(context.Background(), api, jobs(numbered(n)...), Options{
		Journal: os.Getenv("EVALMD_BATCH_JOURNAL"), Poll: time.Millisecond,
		Warn: func(s string) { warnings = append(warnings, s) },
	}, func(o Outcome) {
		if o.Err == nil {
			answered++
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	data, _ := json.Marshal(map[string]any{"stats": st, "answered": answered, "warnings": warnings})
	if err := os.WriteFile(out, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestKill9 kills a run with SIGKILL at each point between submitting a
// batch and journaling its results (the fake server kills the client while
// the client waits for its reply), then reruns the same command: it must
// collect every answer and buy no request twice. The one exception is
// Anthropic between the server accepting a batch and the journal holding
// its id, which its batches' lack of metadata leaves open (documented).
func TestKill9(t *testing.T) {
	if testing.Short() {
		t.Skip("starts subprocesses")
	}
	cases := []struct {
		provider provider
		point    string
		n        int
		rebought int
	}{
		{providers[0], "upload", 20, 0},
		{providers[0], "send-create", 20, 0},
		{providers[0], "create", 20, 0},
		{providers[0], "poll", 20, 0},
		{providers[0], "results", 20, 0},
		{providers[0], "create", 1000, 0}, // BENCHMARKS.md's figure
		{providers[1], "poll", 20, 0},
		{providers[1], "results", 20, 0},
		{providers[1], "send-create", 20, 0},
		{providers[1], "create", 20, 20},
	}
	for _, c := range cases {
		t.Run(c.provider.name+"/"+c.point+"/"+strconv.Itoa(c.n), func(t *testing.T) {
			dir := t.TempDir()
			var mu sync.Mutex
			var child *exec.Cmd
			var dead chan struct{}
			armed := true
			kill := func() bool {
				mu.Lock()
				defer mu.Unlock()
				if !armed || child == nil {
					return false
				}
				armed = false
				_ = child.Process.Signal(syscall.SIGKILL)
				<-dead // the reply in hand is never read
				return true
			}
			opt := fakeserver.BatchOptions{Polls: 2, MaxRequests: 20000,
				OnCreate: func(string) {
					if c.point == "create" {
						kill()
					}
				},
				OnRequest: func(method, path string) bool {
					results := strings.HasSuffix(path, "/content") || strings.HasSuffix(path, "/results")
					switch {
					case c.point == "upload" && method == "POST" && path == "/v1/files",
						c.point == "send-create" && method == "POST" && strings.HasSuffix(path, "/batches"),
						c.point == "results" && results,
						c.point == "poll" && method == "GET" && !results && strings.Count(path, "/") >= 3 && !strings.HasSuffix(path, "/batches"):
						return kill()
					}
					return false
				}}
			srv := c.provider.server(t, opt)
			start := func() (*exec.Cmd, chan struct{}, string) {
				out := filepath.Join(dir, "out-"+strconv.FormatInt(time.Now().UnixNano(), 10))
				cmd := exec.Command(os.Args[0], "-test.run=^TestKillChild$", "-test.count=1")
				cmd.Env = append(os.Environ(), "EVALMD_BATCH_OUT="+out, "EVALMD_BATCH_N="+strconv.Itoa(c.n),
					"EVALMD_BATCH_MODEL="+c.provider.model, "EVALMD_BATCH_URL="+srv.URL,
					"EVALMD_BATCH_JOURNAL="+filepath.Join(dir, "journal"))
				var stderr strings.Builder
				cmd.Stdout, cmd.Stderr = &stderr, &stderr
				done := make(chan struct{})
				mu.Lock()
				if err := cmd.Start(); err != nil {
					mu.Unlock()
					t.Fatal(err)
				}
				child, dead = cmd, done
				mu.Unlock()
				go func() { _ = cmd.Wait(); close(done) }()
				t.Cleanup(func() { _ = cmd.Process.Kill(); <-done })
				return cmd, done, out
			}
			cmd, done, _ := start()
			<-done
			if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
				t.Fatalf("first run was not killed at %s: %v", c.point, cmd.ProcessState)
			}
			before := srv.Submitted()
			cmd, done, out := start()
			<-done
			data, err := os.ReadFile(out)
			if err != nil {
				t.Fatalf("rerun failed (%v): %v", cmd.ProcessState, err)
			}
			var res struct {
				Stats    Stats
				Answered int
				Warnings []string
			}
			if err := json.Unmarshal(data, &res); err != nil {
				t.Fatal(err)
			}
			if res.Answered != c.n {
				t.Errorf("rerun answered %d of %d", res.Answered, c.n)
			}
			rebought := srv.Submitted() - c.n
			t.Logf("%s, kill -9 at %s: requests submitted before the kill %d, in all %d for %d questions; re-bought after kill -9 == %d",
				c.provider.name, c.point, before, srv.Submitted(), c.n, rebought)
			if rebought != c.rebought {
				t.Errorf("re-bought %d requests after the kill, want %d (per custom_id: %v)", rebought, c.rebought, srv.SubmittedIDs())
			}
			if c.rebought > 0 && (len(res.Warnings) == 0 || !strings.Contains(res.Warnings[0], "runs unclaimed")) {
				t.Errorf("warnings = %q, want one saying the batch may run unclaimed", res.Warnings)
			}
			if c.point == "create" && c.rebought == 0 && res.Stats.Reclaimed != 1 {
				t.Errorf("rerun reclaimed %d batches by tag, want 1", res.Stats.Reclaimed)
			}
			if c.rebought == 0 {
				for id, k := range srv.SubmittedIDs() {
					if k != 1 {
						t.Errorf("custom_id %s submitted %d times", id, k)
					}
				}
			}
		})
	}
}
