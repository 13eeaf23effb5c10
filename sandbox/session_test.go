package sandbox

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestStatePersistsBetweenCalls(t *testing.T) {
	s := mustOpen(t, newPool(t, Config{}))
	mustExec(t, s, "import pandas as pd\nx = 41\ndf = pd.DataFrame({'a': [1, 2, 3]})")
	r := mustExec(t, s, "x + df.a.sum()")
	if r.Output != "47\n" || r.Limit != "" || r.Restarted {
		t.Fatalf("got %+v, want output 47", r)
	}
	// A function defined in one call, used in the next.
	mustExec(t, s, "def twice(v):\n    return 2 * v")
	if r := mustExec(t, s, "twice(x)"); r.Output != "82\n" {
		t.Fatalf("got %q", r.Output)
	}
}

func TestCellOutput(t *testing.T) {
	s := mustOpen(t, newPool(t, Config{}))
	for _, tc := range []struct{ code, want string }{
		// The last expression is shown (repr), as in Jupyter; None is not.
		{"1 + 1", "2\n"},
		{"'a'", "'a'\n"},
		{"None", ""},
		{"y = 3", ""},
		{"print('x', end='')\n5", "x5\n"},
		// stdout and stderr interleave in the order written.
		{"import sys\nprint('one')\nprint('two', file=sys.stderr)\nprint('three')", "one\ntwo\nthree\n"},
		// Subprocesses write to the same stream.
		{"import os\nos.system('echo from-shell')\nprint('after')", "from-shell\nafter\n"},
		// stdin is empty, and the protocol is not reachable through it.
		{"input()", "Traceback (most recent call last):\n  File \"<cell 8>\", line 1, in <module>\n    input()\nEOFError: EOF when reading a line\n"},
		// A syntax error is reported without running anything.
		{"y = 4\nx = = 1", "  File \"<cell 9>\", line 2\n    x = = 1\n        ^\nSyntaxError: invalid syntax\n"},
		{"y", "3\n"},
		// SystemExit is reported; the interpreter goes on.
		{"raise SystemExit(3)", "Traceback (most recent call last):\n  File \"<cell 11>\", line 1, in <module>\n    raise SystemExit(3)\nSystemExit: 3\n"},
		{"y + 1", "4\n"},
	} {
		r := mustExec(t, s, tc.code)
		if r.Output != tc.want || r.Restarted {
			t.Errorf("%q:\ngot  %q (restarted %v)\nwant %q", tc.code, r.Output, r.Restarted, tc.want)
		}
	}
}

func TestFilesReadOnlyUnderBaseNames(t *testing.T) {
	dir := t.TempDir()
	csv := writeFile(t, dir, "data.csv", "a,b\n1,2\n3,4\n")
	os.Chmod(csv, 0o666) // writable by anyone: only the read-only mount stops a write
	sub := filepath.Join(dir, "sub")
	os.Mkdir(sub, 0o755)
	other := writeFile(t, sub, "notes.txt", "hello")
	link := filepath.Join(dir, "linked.txt")
	if err := os.Symlink(other, link); err != nil {
		t.Fatal(err)
	}
	private := writeFile(t, dir, "private.csv", "x\n7\n")
	os.Chmod(private, 0o600) // staged as a copy: the sandbox's host uid could not read it
	s := mustOpen(t, newPool(t, Config{}), csv, other, link, private)
	r := mustExec(t, s, `import os, pandas as pd
print(sorted(os.listdir('.')))
print(pd.read_csv('data.csv').b.sum(), open('notes.txt').read(), open('linked.txt').read(), pd.read_csv('private.csv').x[0])
try:
    open('data.csv', 'a').write('9,9\n')
except OSError as e:
    print(e)
`)
	want := "['data.csv', 'linked.txt', 'notes.txt', 'private.csv']\n6 hello hello 7\n[Errno 30] Read-only file system: 'data.csv'\n"
	if r.Output != want {
		t.Fatalf("got %q\nwant %q", r.Output, want)
	}
	if b, _ := os.ReadFile(csv); string(b) != "a,b\n1,2\n3,4\n" {
		t.Fatalf("input changed: %q", b)
	}
	// Files survive a restart.
	r = mustExec(t, s, "import os\nos._exit(0)")
	if !r.Restarted {
		t.Fatalf("os._exit: got %+v", r)
	}
	if r := mustExec(t, s, "open('data.csv').read()"); r.Output != "'a,b\\n1,2\\n3,4\\n'\n" {
		t.Fatalf("after restart: %q", r.Output)
	}
}

func TestOpenErrors(t *testing.T) {
	p := newPool(t, Config{})
	dir := t.TempDir()
	a := writeFile(t, dir, "a.csv", "x")
	os.Mkdir(filepath.Join(dir, "sub"), 0o755)
	b := writeFile(t, filepath.Join(dir, "sub"), "a.csv", "y")
	for _, tc := range []struct {
		files []string
		want  string
	}{
		{[]string{filepath.Join(dir, "missing.csv")}, "sandbox: file " + filepath.Join(dir, "missing.csv") + ": lstat"},
		{[]string{filepath.Join(dir, "sub")}, "sandbox: file " + filepath.Join(dir, "sub") + ": not a regular file"},
		{[]string{a, b}, "sandbox: files " + a + " and " + b + " have the same base name"},
	} {
		_, err := p.Open(context.Background(), tc.files)
		if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("Open(%v): got %v, want %q...", tc.files, err, tc.want)
		}
	}
}

func TestOutputCut(t *testing.T) {
	s := mustOpen(t, newPool(t, Config{OutputCap: 1000}))
	// 100,000 bytes: "0" * 50,000 then "1" * 50,000.
	r := mustExec(t, s, "print('0' * 50000 + '1' * 49999)")
	want := strings.Repeat("0", 500) + "\n[... output cut here: bytes 500 to 99500 of 100000 left out ...]\n" + strings.Repeat("1", 499) + "\n"
	if r.Output != want || r.Limit != "" || r.Restarted {
		t.Fatalf("got %q (%v %v)", r.Output, r.Limit, r.Restarted)
	}
	// Within the cap nothing is cut, and state was kept.
	if r := mustExec(t, s, "print('é' * 400)"); r.Output != strings.Repeat("é", 400)+"\n" {
		t.Fatalf("got %q", r.Output)
	}
}

// TestLimits: each limit stops the call, says which, restarts the
// interpreter (state lost) and the session goes on.
func TestLimits(t *testing.T) {
	for _, tc := range []struct {
		name  string
		cfg   Config
		code  string
		limit Limit
		says  string
	}{
		{"timeout", Config{Timeout: 2 * time.Second}, "print('started')\nwhile True: pass", LimitTimeout, "started\n[stopped: the call ran longer than the time limit (tool_timeout 2s)"},
		{"cpu", Config{CPUTime: time.Second}, "while True: pass", LimitCPU, "[stopped: the call used more CPU time than its limit (1s)"},
		{"memory", Config{Memory: 1 << 30}, "x = bytearray(8 << 30)", LimitMemory, "MemoryError\n[stopped: the call ran out of memory (tool_memory 1 GiB)"},
		{"memory numpy", Config{Memory: 1 << 30}, "import numpy as np\nblocks = []\nwhile True:\n    blocks.append(np.ones(1 << 24))", LimitMemory, "numpy.core._exceptions._ArrayMemoryError: Unable to allocate 128. MiB for an array with shape (16777216,) and data type float64\n[stopped: the call ran out of memory (tool_memory 1 GiB)"},
		{"processes", Config{Processes: 32}, "import os, time\nfor i in range(10000):\n    if os.fork() == 0:\n        time.sleep(60)\n        os._exit(0)", LimitProcesses, "BlockingIOError: [Errno 11] Resource temporarily unavailable\n[stopped: the call started too many processes or threads (limit 32)"},
		{"output", Config{MaxOutput: 1 << 20}, "while True: print('x' * 1000)", LimitOutput, "[stopped: the call wrote more output than its limit (1 MiB)"},
		{"exit", Config{}, "import os\nprint('bye')\nos._exit(7)", "", "bye\n[stopped: the Python interpreter exited (status 7)"},
		{"crash", Config{}, "import os, signal\nos.kill(os.getpid(), signal.SIGSEGV)", "", "[stopped: the Python interpreter exited (signal 11, segmentation fault)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := mustOpen(t, newPool(t, tc.cfg))
			mustExec(t, s, "kept = 1")
			r := mustExec(t, s, tc.code)
			if r.Limit != tc.limit || !r.Restarted || !strings.Contains(r.Output, tc.says) {
				t.Fatalf("got limit %q restarted %v output\n%s\nwant limit %q and %q", r.Limit, r.Restarted, r.Output, tc.limit, tc.says)
			}
			// The limit's value is the config's: seconds, bytes, processes.
			value := map[Limit]float64{LimitTimeout: tc.cfg.Timeout.Seconds(), LimitCPU: tc.cfg.CPUTime.Seconds(), LimitMemory: float64(tc.cfg.Memory),
				LimitProcesses: float64(tc.cfg.Processes), LimitOutput: float64(tc.cfg.MaxOutput)}[tc.limit]
			if r.LimitValue != value {
				t.Errorf("limit value %v, want %v", r.LimitValue, value)
			}
			if !strings.HasSuffix(r.Output, "; the Python interpreter was restarted and its state (variables, imports, files written) is lost]") {
				t.Fatalf("output does not end with the restart note:\n%s", r.Output)
			}
			if len(r.Output) > 16<<10+1000 {
				t.Fatalf("output of %d bytes", len(r.Output))
			}
			r = mustExec(t, s, "'kept' in dir()")
			if r.Output != "False\n" || r.Restarted {
				t.Fatalf("after the restart: %+v, want a fresh interpreter", r)
			}
		})
	}
}

// TestKillTakesEverything: a stopped call and a closed session leave no
// process behind, children included.
func TestKillTakesEverything(t *testing.T) {
	p := newPool(t, Config{MaxOutput: 64 << 10})
	s := mustOpen(t, p)
	mustExec(t, s, "import subprocess\nsubprocess.Popen(['sleep', '987651'])\nsubprocess.Popen(['setsid', 'sleep', '987652'])")
	waitStarted(t, "987651")
	waitStarted(t, "987652") // setsid forks before it runs sleep
	r := mustExec(t, s, "while True: print('x' * 1000)")
	if r.Limit != LimitOutput {
		t.Fatalf("got %+v", r)
	}
	waitGone(t, "987651")
	waitGone(t, "987652")

	mustExec(t, s, "import subprocess\nsubprocess.Popen(['sleep', '987653'])")
	waitStarted(t, "987653")
	s.Close()
	waitGone(t, "987653")
	if _, err := s.Exec(context.Background(), "1"); !errors.Is(err, errClosed) {
		t.Fatalf("Exec after Close: %v", err)
	}
}

func TestContextCancel(t *testing.T) {
	s := mustOpen(t, newPool(t, Config{}))
	mustExec(t, s, "kept = 1")
	ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancel()
	_, err := s.Exec(ctx, "import time\ntime.sleep(600)")
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("got %v", err)
	}
	if r := mustExec(t, s, "'kept' in dir()"); r.Output != "False\n" {
		t.Fatalf("after cancel: %q", r.Output)
	}
}

func TestMaxInFlight(t *testing.T) {
	p := newPool(t, Config{MaxInFlight: 1})
	s := mustOpen(t, p)
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	if _, err := p.Open(ctx, nil); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("second Open with one place: %v", err)
	}
	s.Close()
	s2 := mustOpen(t, p)
	if r := mustExec(t, s2, "1"); r.Output != "1\n" {
		t.Fatalf("got %q", r.Output)
	}
}

func TestRunOneShot(t *testing.T) {
	p := newPool(t, Config{Warm: -1})
	f := writeFile(t, t.TempDir(), "t.csv", "v\n1\n2\n")
	ctx := context.Background()
	r, err := p.Run(ctx, []string{f}, "import pandas as pd\nz = 5\nprint(pd.read_csv('t.csv').v.tolist())")
	if err != nil || r.Output != "[1, 2]\n" {
		t.Fatalf("got %+v, %v", r, err)
	}
	// Nothing carries over between runs.
	r, err = p.Run(ctx, nil, "'z' in dir()")
	if err != nil || r.Output != "False\n" {
		t.Fatalf("got %+v, %v", r, err)
	}
}

func TestVersions(t *testing.T) {
	p := newPool(t, Config{})
	v := p.Versions()
	if !strings.HasPrefix(v.Sandbox, "bwrap ") || !strings.HasPrefix(v.Python, "3.") || v.Pandas == "" || v.Numpy == "" {
		t.Fatalf("got %+v", v)
	}
	s := mustOpen(t, p)
	r := mustExec(t, s, "import sys, pandas, numpy\nprint(sys.version.split()[0], pandas.__version__, numpy.__version__, sys.executable)")
	if want := v.Python + " " + v.Pandas + " " + v.Numpy + " /usr/bin/python3\n"; r.Output != want {
		t.Fatalf("got %q, want %q", r.Output, want)
	}
}

func TestEnvironment(t *testing.T) {
	p := newPool(t, Config{Environ: []string{"OPENBLAS_NUM_THREADS=1", "OPENAI_API_KEY=sk-secret", "HOME=/root"}})
	s := mustOpen(t, p)
	r := mustExec(t, s, "import os\nsorted(k + '=' + v for k, v in os.environ.items())")
	want := "['HOME=/work', 'LANG=C.UTF-8', 'LOGNAME=sandbox', 'MALLOC_ARENA_MAX=1', 'MPLBACKEND=Agg', 'OPENBLAS_NUM_THREADS=1', 'PATH=/usr/local/bin:/usr/bin:/bin', 'PWD=/work', 'TMPDIR=/tmp', 'USER=sandbox']\n"
	if r.Output != want {
		t.Fatalf("got %q\nwant %q", r.Output, want)
	}
}

func TestCheckErrors(t *testing.T) {
	needSandbox(t)
	ctx := context.Background()
	for _, tc := range []struct {
		name string
		cfg  Config
		path string
		want string
	}{
		{"no python", Config{Python: "/nonexistent/python3"}, "", "sandbox: /nonexistent/python3 not found; install with: apt-get install -y " + AptPackages},
		{"no pandas", Config{Preload: []string{"pandas_not_installed"}}, "", "sandbox: /usr/bin/python3 in the sandbox cannot import pandas_not_installed: ModuleNotFoundError: No module named 'pandas_not_installed'; install with: apt-get install -y " + AptPackages},
		{"no bwrap", Config{}, t.TempDir(), "sandbox: bubblewrap is not installed (no bwrap on PATH); install with: apt-get install -y " + AptPackages},
		{"relative python", Config{Python: "python3"}, "", `sandbox: python "python3": want an absolute path inside the sandbox`},
		{"bad backend", Config{Backend: "vm"}, "", `sandbox: unknown backend "vm" (want bwrap, docker or none)`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.path != "" {
				t.Setenv("PATH", tc.path)
			}
			_, err := Check(ctx, tc.cfg)
			if err == nil || err.Error() != tc.want {
				t.Fatalf("got %v\nwant %s", err, tc.want)
			}
		})
	}
}

func TestNoneBackendWarns(t *testing.T) {
	needSandbox(t)
	var warn bytes.Buffer
	p, err := NewPool(context.Background(), Config{Backend: None, Warn: &warn, Warm: -1, Environ: []string{}})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	if want := fmt.Sprintf("warning: sandbox none: model-written Python runs unconfined on this machine, as you (uid %d): it can read and change your files and read your API keys (in /proc/%d/environ)", os.Geteuid(), os.Getpid()); !strings.Contains(warn.String(), want) {
		t.Fatalf("warning: %q", warn.String())
	}
	f := writeFile(t, t.TempDir(), "n.csv", "v\n5\n")
	r, err := p.Run(context.Background(), []string{f}, "import os\nprint(open('n.csv').read().split()[1], os.getcwd().endswith('-work'))")
	if err != nil || r.Output != "5 True\n" {
		t.Fatalf("got %+v %v", r, err)
	}
	// What the warning says: unconfined code reads the keys of this
	// user's processes (TestEscapes: under bwrap, it cannot).
	keyed, key := keyHolder(t)
	if r, err := p.Run(context.Background(), nil, environCode(key, keyed)); err != nil || !strings.HasPrefix(r.Output, "key of ") {
		t.Errorf("unconfined code did not find the key: %+v %v", r, err)
	}
}

// TestHostileCells: code that breaks its own streams or reads the
// protocol's pipes gets an answer, never a hang, and the session goes on.
func TestHostileCells(t *testing.T) {
	s := mustOpen(t, newPool(t, Config{Timeout: 3 * time.Second}))
	for _, code := range []string{
		"import sys\nsys.stdout = None\nprint('lost')\n2",
		"import os\nos.close(1)\nos.close(2)\nprint('lost')",
		"import os\nos.read(3, 1)",                        // the request pipe: waits for the time limit
		"import os\nos.write(4, b'{\"done\": \"x\"}\\n')", // a forged reply on the reply pipe
		"import sys\nsys.stdin.read()",
		"import signal\nsignal.signal(signal.SIGTERM, signal.SIG_IGN)\nwhile True: pass",
	} {
		r := mustExec(t, s, code)
		if r.Restarted && r.Limit != LimitTimeout {
			t.Errorf("%q: %+v", code, r)
		}
		if r := mustExec(t, s, "1 + 1"); r.Output != "2\n" {
			t.Errorf("after %q: %+v", code, r)
		}
	}
}

// A session's own limits (a question's tool_timeout and tool_memory) hold
// for its calls and for the interpreter restarted after one hit a limit;
// memory above the pool's starts an interpreter with that ceiling.
func TestSessionLimits(t *testing.T) {
	p := newPool(t, Config{Memory: 1 << 30})
	rlimit := "import resource\nprint(resource.getrlimit(resource.RLIMIT_DATA))"
	for _, tc := range []struct {
		name string
		lim  Limits
		want string
	}{
		{"pool's", Limits{}, fmt.Sprintf("(%d, %d)\n", 1<<30, 1<<30)},
		{"lower", Limits{Memory: 512 << 20}, fmt.Sprintf("(%d, %d)\n", 512<<20, 512<<20)},
		{"higher", Limits{Memory: 3 << 30}, fmt.Sprintf("(%d, %d)\n", 3<<30, 3<<30)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := p.OpenWith(context.Background(), nil, tc.lim)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			if r := mustExec(t, s, rlimit); r.Output != tc.want {
				t.Errorf("rlimit %q, want %q", r.Output, tc.want)
			}
		})
	}
	s, err := p.OpenWith(context.Background(), nil, Limits{Timeout: time.Second, Memory: 768 << 20})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	r := mustExec(t, s, "import time\ntime.sleep(30)")
	if r.Limit != LimitTimeout || !r.Restarted || !strings.Contains(r.Output, "time limit (tool_timeout 1s)") {
		t.Fatalf("limit %q restarted %v: %s", r.Limit, r.Restarted, r.Output)
	}
	if r := mustExec(t, s, rlimit); r.Output != fmt.Sprintf("(%d, %d)\n", 768<<20, 768<<20) {
		t.Errorf("after the restart the rlimit is %q", r.Output)
	}
	r = mustExec(t, s, "x = bytearray(1 << 30)")
	if r.Limit != LimitMemory || !strings.Contains(r.Output, "out of memory (tool_memory 768 MiB)") {
		t.Errorf("limit %q: %s", r.Limit, r.Output)
	}
}

// TestWarmPoolFollowsSessionMemory: the tmpfs sizes follow the memory
// limit and are fixed at start, so a session with its own tool_memory
// gets an interpreter started with it, and the pool's next warm ones are
// started with it too (a sheet's questions share one).
func TestWarmPoolFollowsSessionMemory(t *testing.T) {
	p := newPool(t, Config{Warm: 1, MaxInFlight: 1})
	sizes := "import os\nprint([os.statvfs(d).f_blocks * os.statvfs(d).f_frsize >> 20 for d in ['.', '/tmp', '/dev/shm']])"
	for _, tc := range []struct {
		mem  int64
		want string
	}{
		{0, "[512, 256, 256]\n"},
		{256 << 20, "[64, 32, 32]\n"},
		{256 << 20, "[64, 32, 32]\n"},
	} {
		s, err := p.OpenWith(context.Background(), nil, Limits{Memory: tc.mem})
		if err != nil {
			t.Fatal(err)
		}
		if r := mustExec(t, s, sizes); r.Output != tc.want {
			t.Errorf("memory %d: tmpfs MiB %q, want %q", tc.mem, r.Output, tc.want)
		}
		s.Close()
	}
	// The warm interpreter now ready was started with the last session's.
	sp := <-p.spares
	if sp.err != nil {
		t.Fatal(sp.err)
	}
	defer sp.it.kill()
	if sp.it.cfg.Memory != 256<<20 {
		t.Errorf("warm interpreter started with %d bytes, want the last session's %d", sp.it.cfg.Memory, 256<<20)
	}
}
