package sandbox

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

	"github.com/evalmd/evalmd/internal/testkit/shared"
)

var (
	checkOnce sync.Once
	checkErr  error
)

// needSandbox skips a test when bubblewrap or Debian's pandas is missing,
// saying what to install, or fails it under CI (shared.Required).
func needSandbox(t testing.TB) {
	t.Helper()
	checkOnce.Do(func() {
		_, checkErr = Check(context.Background(), Config{})
	})
	if checkErr == nil {
		return
	}
	shared.Missing(t, "no sandbox here: "+checkErr.Error())
}

// newPool is a pool for one test, closed at its end. Tests keep limits
// small so that a stopped call is quick.
func newPool(t testing.TB, cfg Config) *Pool {
	t.Helper()
	needSandbox(t)
	if cfg.Warm == 0 {
		cfg.Warm = 1
	}
	if cfg.Preload == nil {
		cfg.Preload = []string{} // quicker starts; a test imports what it uses
	}
	if cfg.Environ == nil {
		cfg.Environ = []string{}
	}
	p, err := NewPool(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	return p
}

func mustOpen(t testing.TB, p *Pool, files ...string) *Session {
	t.Helper()
	s, err := p.Open(context.Background(), files)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// mustExec runs code and fails the test on an error.
func mustExec(t testing.TB, s *Session, code string) Result {
	t.Helper()
	r, err := s.Exec(context.Background(), code)
	if err != nil {
		t.Fatalf("Exec(%q): %v", code, err)
	}
	return r
}

func writeFile(t testing.TB, dir, name, text string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// processesWith lists host pids whose command line contains arg as a
// whole argument.
func processesWith(arg string) []string {
	var pids []string
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil {
			continue
		}
		for _, a := range strings.Split(string(b), "\x00") {
			if a == arg {
				pids = append(pids, e.Name())
				break
			}
		}
	}
	return pids
}

// waitStarted waits until a process has arg in its command line,
// failing after 20 s, and returns the pids that have.
func waitStarted(t testing.TB, arg string) []string {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		if pids := processesWith(arg); len(pids) > 0 {
			return pids
		}
		if time.Now().After(deadline) {
			t.Fatalf("no process with %q started", arg)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// waitGone waits until no process has arg in its command line (a killed
// process group dies asynchronously), failing after 20 s.
func waitGone(t testing.TB, arg string) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		pids := processesWith(arg)
		if len(pids) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("processes with %q still running: %v", arg, pids)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// keyHolder starts a host process, as this process's user, whose
// environment holds an API key, as evalmd's own holds the user's: it
// returns its pid and the key, and checks that the host can read the key
// from /proc/PID/environ (so that code failing to read it is confined, not
// looking in the wrong place).
func keyHolder(t testing.TB) (int, string) {
	t.Helper()
	key := "sk-escape-test-4f1c9b"
	cmd := exec.Command("sleep", "600")
	cmd.Env = []string{"OPENAI_API_KEY=" + key}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	// Until the child has exec'd sleep, its environ is not yet the one
	// given (it reads empty): wait for it, bounded.
	var b []byte
	var err error
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		b, err = os.ReadFile(fmt.Sprintf("/proc/%d/environ", cmd.Process.Pid))
		if err == nil && strings.Contains(string(b), key) {
			return cmd.Process.Pid, key
		}
		if time.Now().After(deadline) {
			t.Fatalf("the host cannot read its own process's key: %q, %v", b, err)
		}
	}
}

// environCode reads the environment of every process the code can see
// (/proc/*/environ) and of the host's pids (keyed and this process, the
// sandbox's parent), and its own, then prints "key" when key is in any,
// else "no key".
func environCode(key string, keyed int) string {
	return fmt.Sprintf(`import os
pids = {p for p in os.listdir('/proc') if p.isdigit()} | {'%d', '%d', str(os.getppid())}
seen = [repr(dict(os.environ)).encode()]
for p in sorted(pids):
    try:
        seen.append(open('/proc/%%s/environ' %% p, 'rb').read())
    except OSError:
        pass
print('key' if any(%q.encode() in s for s in seen) else 'no key', 'of', len(seen) - 1, 'environs read')`, keyed, os.Getpid(), key)
}
