package runcmd

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/evalmd/evalmd/cmd/internal/cli"
	"github.com/evalmd/evalmd/internal/testkit/fakeserver"
	"github.com/evalmd/evalmd/internal/testkit/syncbuf"
)

// TestMainHelperProcess is not a test: the Ctrl-C and kill -9 tests run the
// test binary again with EVALMD_MAIN_HELPER=1 to get a run, through cli.Main
// as the command runs, that they can send SIGINT or SIGKILL to. It runs the command with
// the arguments in EVALMD_MAIN_ARGS (separated by \x1f).
func TestMainHelperProcess(t *testing.T) {
	if os.Getenv("EVALMD_MAIN_HELPER") != "1" {
		t.Skip("helper process for the Ctrl-C tests")
	}
	os.Args = append([]string{"run"}, strings.Split(os.Getenv("EVALMD_MAIN_ARGS"), "\x1f")...)
	testConfigHome = os.Getenv("XDG_CONFIG_HOME") // the parent's (helperCommand)
	cli.Main(Command(testLookup(), os.Getenv, os.Environ))
}

// helperCommand is the command that runs run with args in a child process
// through TestMainHelperProcess, with env's variables besides this
// process's.
func helperCommand(args []string, env ...string) *exec.Cmd {
	cmd := exec.Command(os.Args[0], "-test.run=^TestMainHelperProcess$")
	cmd.Env = append(append(os.Environ(), "EVALMD_MAIN_HELPER=1", "EVALMD_MAIN_ARGS="+strings.Join(args, "\x1f"), "XDG_CONFIG_HOME="+testConfigHome), env...)
	return cmd
}

// interruptRun is a run -d of three sheets of five questions at -c 2 in a
// child process, whose requests for sheet 2 the server holds until the
// test releases them.
type interruptRun struct {
	t        *testing.T
	args     []string
	cmd      *exec.Cmd
	stderr   *syncbuf.Buffer
	exited   chan error
	mu       sync.Mutex
	asked    map[string]int
	child    bool // the child is running: hold sheet 2
	held     chan struct{}
	release  chan struct{}
	heldOnce sync.Once
	relOnce  sync.Once
}

// unhold lets the server answer the requests it holds.
func (r *interruptRun) unhold() { r.relOnce.Do(func() { close(r.release) }) }

func startInterruptRun(t *testing.T) *interruptRun {
	t.Helper()
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
	r := &interruptRun{t: t, asked: map[string]int{}, child: true, held: make(chan struct{}), release: make(chan struct{})}
	holding := 0
	srv := fakeserver.NewOpenAI(t, fakeserver.Options{MaxRequests: 100, Hang: time.Minute,
		Reply: func(c fakeserver.Call) fakeserver.Reply {
			q := strings.TrimSpace(c.LastUserText())
			r.mu.Lock()
			r.asked[q]++
			hold := r.child && strings.HasPrefix(q, "ask S2 ")
			if hold {
				if holding++; holding == 2 {
					r.heldOnce.Do(func() { close(r.held) })
				}
			}
			r.mu.Unlock()
			if hold {
				select {
				case <-r.release:
				case <-time.After(time.Minute):
				}
			}
			return fakeserver.Reply{Text: "A" + q[len(q)-1:]}
		}})
	t.Cleanup(r.unhold) // before the server's own cleanup, which waits for its handlers
	r.args = []string{"-d", sheets, "-m", "openai-api/local/tiny", "--base-url", srv.URL, "-o", out, "-c", "2"}
	r.cmd = helperCommand(r.args, "LOCAL_API_KEY=x")
	r.stderr = &syncbuf.Buffer{}
	r.cmd.Stderr = r.stderr
	if err := r.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	r.exited = make(chan error, 1)
	go func() { r.exited <- r.cmd.Wait() }()
	t.Cleanup(func() { r.cmd.Process.Kill() })
	select {
	case <-r.held:
	case err := <-r.exited:
		t.Fatalf("the child ended before sheet 2: %v\n%s", err, r.stderr.String())
	case <-time.After(time.Minute):
		t.Fatalf("the child never had two sheet 2 requests in flight\n%s", r.stderr.String())
	}
	return r
}

// interrupt sends SIGINT and waits (bounded) until stderr holds want.
func (r *interruptRun) interrupt(want string) {
	r.t.Helper()
	if err := r.cmd.Process.Signal(syscall.SIGINT); err != nil {
		r.t.Fatal(err)
	}
	for deadline := time.Now().Add(30 * time.Second); !strings.Contains(r.stderr.String(), want); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			r.t.Fatalf("after Ctrl-C, stderr does not say %q:\n%s", want, r.stderr.String())
		}
	}
}

// wait waits (bounded) for the child to exit and returns its exit status.
func (r *interruptRun) wait(within time.Duration) int {
	r.t.Helper()
	select {
	case err := <-r.exited:
		if ee, ok := err.(*exec.ExitError); ok {
			return ee.ExitCode()
		}
		if err != nil {
			r.t.Fatal(err)
		}
		return 0
	case <-time.After(within):
		r.t.Fatalf("the child did not exit within %v\n%s", within, r.stderr.String())
	}
	return -1
}

const waitingFor2 = "interrupt: waiting for 2 requests in flight; Ctrl-C again to abort"

// Ctrl-C during sheet 2 at -c 2: no new request is sent, the two in flight
// are answered and journaled, and the rerun asks nothing twice.
func TestCtrlCKeepsRequestsInFlight(t *testing.T) {
	r := startInterruptRun(t)
	r.interrupt(waitingFor2)
	r.mu.Lock()
	before := len(r.asked)
	r.mu.Unlock()
	r.unhold()
	if code := r.wait(time.Minute); code != 1 {
		t.Errorf("exit status %d after Ctrl-C, want 1\n%s", code, r.stderr.String())
	}
	r.mu.Lock()
	if len(r.asked) != before {
		t.Errorf("%d questions asked after Ctrl-C, want none", len(r.asked)-before)
	}
	r.child = false
	r.mu.Unlock()
	if !strings.Contains(r.stderr.String(), "stopped with") {
		t.Errorf("stderr does not say the run stopped:\n%s", r.stderr.String())
	}

	var log syncbuf.Buffer
	if err := run(t.Context(), &log, &log, r.args); err != nil {
		t.Fatalf("rerun: %v\n%s", err, log.String())
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	for q, n := range r.asked {
		if n != 1 {
			t.Errorf("%q asked %d times", q, n)
		}
	}
	if len(r.asked) != 15 {
		t.Errorf("%d questions asked, want 15", len(r.asked))
	}
}

// A second Ctrl-C abandons the requests in flight: the run ends at once.
func TestSecondCtrlCAborts(t *testing.T) {
	r := startInterruptRun(t)
	r.interrupt(waitingFor2)
	select {
	case err := <-r.exited:
		t.Fatalf("the child ended after one Ctrl-C with its requests held: %v\n%s", err, r.stderr.String())
	case <-time.After(200 * time.Millisecond):
	}
	t0 := time.Now()
	if err := r.cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	if code := r.wait(10 * time.Second); code != 1 {
		t.Errorf("exit status %d after two Ctrl-C, want 1\n%s", code, r.stderr.String())
	}
	t.Logf("exited %v after the second Ctrl-C", time.Since(t0))
}
