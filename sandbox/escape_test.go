package sandbox

import (
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// TestEscapes runs, as whoever runs the tests (root in CI and on the
// developers' machines), code that tries to get out of the sandbox or to
// exhaust the host. Each attempt must fail inside; where the host can see
// the outcome, the test checks there too.
func TestEscapes(t *testing.T) {
	// A service on the host's loopback.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	var accepted atomic.Int32
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			accepted.Add(1)
			c.Close()
		}
	}()
	port := ln.Addr().(*net.TCPAddr).Port

	// A secret under the host's /tmp.
	secretDir, err := os.MkdirTemp("/tmp", "evalmd-escape-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(secretDir)
	secret := writeFile(t, secretDir, "secret.txt", "the host's secret")
	os.Chmod(secretDir, 0o755)

	// An input anyone could write to: only the read-only mount protects it.
	input := writeFile(t, t.TempDir(), "data.csv", "a\n1\n")
	os.Chmod(input, 0o666)
	hostEtc := "/etc/evalmd-escape-test"
	os.Remove(hostEtc)

	// Forking 128 processes takes seconds on a loaded machine: the time
	// limit is long but for the case that tests it.
	s := mustOpen(t, newPool(t, Config{Timeout: 5 * time.Minute}), input)
	quick := mustOpen(t, newPool(t, Config{Timeout: 3 * time.Second, CPUTime: time.Minute}))
	// A question's tool_memory of 256M, in a pool of the default 2 GiB.
	const small = 256 << 20
	smallPool := newPool(t, Config{})
	tight, err := smallPool.OpenWith(t.Context(), nil, Limits{Memory: small})
	if err != nil {
		t.Fatal(err)
	}
	defer tight.Close()
	stopped := "[stopped: the call ran out of memory (tool_memory 256 MiB)"
	full := "[stopped: the files written reached the limit (tool_memory 256 MiB: "

	// A host process holding an API key in its environment, as evalmd's
	// own does.
	keyed, key := keyHolder(t)

	cwd, _ := os.Getwd()
	for _, tc := range []struct {
		name  string
		code  string
		want  []string // every one in the output
		never []string // none in the output
		limit Limit
		host  func(t *testing.T)
		in    *Session // s when nil
	}{
		{
			name: "loopback of the host",
			code: fmt.Sprintf(`import socket
for addr in [('127.0.0.1', %d), ('10.0.0.1', 80), ('1.1.1.1', 53)]:
    try:
        socket.create_connection(addr, timeout=3)
        print('connected', addr)
    except OSError as e:
        print('failed', addr[1], e.errno)
print([l.split(':')[0].strip() for l in open('/proc/net/dev').read().splitlines()[2:]])`, port),
			want:  []string{fmt.Sprintf("failed %d 111", port), "failed 80 101", "failed 53 101", "['lo']"},
			never: []string{"connected"},
			host: func(t *testing.T) {
				if n := accepted.Load(); n != 0 {
					t.Errorf("the host's listener accepted %d connections", n)
				}
			},
		},
		{
			name: "host /tmp, /home, /root, the project",
			code: fmt.Sprintf(`import os
for path in [%q, '/home', '/root', %q, '/work/../etc/shadow']:
    try:
        print(open(path).read() if os.path.isfile(path) else os.listdir(path))
    except OSError as e:
        print('failed', e.strerror)
print(os.listdir('/tmp'), sorted(os.listdir('/')), sorted(os.listdir('/etc')))`, secret, cwd),
			want:  []string{"failed No such file or directory\nfailed No such file or directory\nfailed No such file or directory\nfailed No such file or directory\nfailed No such file or directory\n[] ['bin', 'dev', 'etc', 'input', 'lib', 'lib64', 'proc', 'sbin', 'tmp', 'usr', 'work'] ['alternatives', 'ld.so.cache']"},
			never: []string{"secret"},
		},
		{
			// The parent's and the host's /proc/PID/environ: a new PID
			// namespace and /proc show neither, and the sandbox's own
			// environment is a fixed one (TestNoneBackendWarns: unconfined,
			// the same code finds the key).
			name:  "API keys in /proc/PID/environ",
			code:  environCode(key, keyed),
			want:  []string{"no key"},
			never: []string{key},
		},
		{
			name: "write to an input and to /etc",
			code: `for path, mode in [('data.csv', 'a'), ('/input/data.csv', 'w'), ('/etc/evalmd-escape-test', 'w'), ('/etc/ld.so.cache', 'a'), ('/usr/lib/evalmd-escape-test', 'w')]:
    try:
        open(path, mode).write('x')
        print('wrote', path)
    except OSError as e:
        print('failed', path, e.strerror)`,
			want: []string{
				"failed data.csv Read-only file system",
				"failed /input/data.csv Read-only file system",
				"failed /etc/evalmd-escape-test Read-only file system",
				"failed /etc/ld.so.cache",
				"failed /usr/lib/evalmd-escape-test",
			},
			never: []string{"wrote"},
			host: func(t *testing.T) {
				if b, _ := os.ReadFile(input); string(b) != "a\n1\n" {
					t.Errorf("the input changed: %q", b)
				}
				if _, err := os.Stat(hostEtc); err == nil {
					t.Errorf("%s was created on the host", hostEtc)
				}
			},
		},
		{
			name: "remount an input read-write",
			code: `import ctypes, os, subprocess
libc = ctypes.CDLL(None, use_errno=True)
MS_RDONLY, MS_REMOUNT, MS_BIND = 1, 32, 4096
for target in [b'/input', b'/work/data.csv', b'/']:
    r = libc.mount(None, target, None, MS_REMOUNT | MS_BIND, None)
    print('mount', target.decode(), r, os.strerror(ctypes.get_errno()))
r = subprocess.run(['mount', '-o', 'remount,rw', '/input'], capture_output=True, text=True)
print('mount(8)', r.returncode)
# A nested user namespace would give capabilities over its own mounts.
CLONE_NEWUSER, CLONE_NEWNS = 0x10000000, 0x00020000
r = libc.unshare(CLONE_NEWUSER | CLONE_NEWNS)
print('unshare', r, os.strerror(ctypes.get_errno()))
try:
    open('data.csv', 'a').write('x')
    print('wrote')
except OSError as e:
    print('failed', e.strerror)`,
			want: []string{
				"mount /input -1 Operation not permitted",
				"mount /work/data.csv -1 Operation not permitted",
				"mount / -1 Operation not permitted",
				"mount(8) 32",
				"unshare -1 No space left on device",
				"failed Read-only file system",
			},
			never: []string{"wrote"},
			host: func(t *testing.T) {
				if b, _ := os.ReadFile(input); string(b) != "a\n1\n" {
					t.Errorf("the input changed: %q", b)
				}
			},
		},
		{
			name: "mount anything",
			code: `import ctypes, os
libc = ctypes.CDLL(None, use_errno=True)
os.mkdir('m')
for src, fstype in [(b'none', b'tmpfs'), (b'proc', b'proc'), (b'/usr', None)]:
    r = libc.mount(src, b'm', fstype, 4096 if fstype is None else 0, None)
    print('mount', src.decode(), r, os.strerror(ctypes.get_errno()))`,
			want: []string{
				"mount none -1 Operation not permitted",
				"mount proc -1 Operation not permitted",
				"mount /usr -1 Operation not permitted",
			},
		},
		{
			name: "uid, capabilities, seen from the host",
			code: `import os, subprocess
status = dict(l.split(':\t') for l in open('/proc/self/status').read().splitlines() if ':\t' in l)
print('uid', os.getuid(), os.geteuid(), 'caps', status['CapEff'], status['CapPrm'], status['CapBnd'])
subprocess.Popen(['sleep', '987661'])`,
			want: []string{"uid 1000 1000 caps 0000000000000000 0000000000000000 0000000000000000"},
			host: func(t *testing.T) {
				pids := waitStarted(t, "987661")
				if len(pids) != 1 {
					t.Fatalf("the sandbox's sleep on the host: %v", pids)
				}
				b, err := os.ReadFile(filepath.Join("/proc", pids[0], "status"))
				if err != nil {
					t.Fatal(err)
				}
				want := os.Getuid()
				if want == 0 {
					want = 65534
				}
				line := fmt.Sprintf("Uid:\t%d\t%d\t%d\t%d\n", want, want, want, want)
				if !strings.Contains(string(b), line) || !strings.Contains(string(b), "CapEff:\t0000000000000000\n") {
					t.Errorf("host view of the sandbox's process: want %q and no capabilities in\n%s", line, b)
				}
			},
		},
		{
			name:  "allocate 8 GiB",
			code:  "x = bytearray(8 << 30)",
			want:  []string{"MemoryError"},
			limit: LimitMemory,
		},
		{
			name:  "allocate 8 GiB with numpy",
			code:  "import numpy as np\nx = np.ones(1 << 30)",
			want:  []string{"Unable to allocate 8.00 GiB"},
			limit: LimitMemory,
		},
		{
			name:  "run forever",
			code:  "while True:\n    pass",
			want:  []string{"[stopped: the call ran longer than the time limit (tool_timeout 3s)"},
			limit: LimitTimeout,
			in:    quick,
		},
		{
			name:  "print 10 MB",
			code:  "print('x' * 10_000_000)",
			want:  []string{"[... output cut here: bytes 8192 to ", "[stopped: the call wrote more output than its limit (8 MiB)"},
			limit: LimitOutput,
		},
		{
			name:  "shared memory mmap of 3 GiB under 256M",
			code:  "import mmap\nm = mmap.mmap(-1, 3 << 30)\nfor i in range(0, len(m), 4096):\n    m[i] = 1\nprint('held 3 GiB')",
			want:  []string{"OSError: [Errno 12] Cannot allocate memory", stopped},
			never: []string{"held"},
			limit: LimitMemory,
			in:    tight,
		},
		{
			name:  "shared mapping of /dev/zero, 3 GiB under 256M",
			code:  "import mmap, os\nm = mmap.mmap(os.open('/dev/zero', os.O_RDWR), 3 << 30)\nfor i in range(0, len(m), 4096):\n    m[i] = 1\nprint('held 3 GiB')",
			want:  []string{"OSError: [Errno 12] Cannot allocate memory", stopped},
			never: []string{"held"},
			limit: LimitMemory,
			in:    tight,
		},
		{
			name: "memfd files of 1 GiB under 256M",
			code: `import os
fd = os.memfd_create('x')
for i in range(1 << 10):
    os.write(fd, bytes(1 << 20))
print('wrote 1 GiB')`,
			want:  []string{"PermissionError: [Errno 1] Operation not permitted"},
			never: []string{"wrote"},
			in:    tight,
		},
		{
			// A segment outlives its mapping: attach, fill, detach, again.
			name: "SysV shared memory segments, 1 GiB under 256M",
			code: `import ctypes, os
libc = ctypes.CDLL(None, use_errno=True)
libc.shmat.restype = ctypes.c_void_p
n = 0
for i in range(8):
    id = libc.shmget(0, 128 << 20, 0o1600)
    if id < 0:
        print('shmget failed', os.strerror(ctypes.get_errno()))
        break
    a = libc.shmat(id, None, 0)
    ctypes.memset(a, 1, 128 << 20)
    libc.shmdt(ctypes.c_void_p(a))
    n += 128
print('held MiB', n)`,
			want:  []string{"shmget failed Operation not permitted\nheld MiB 0"},
			never: []string{"held MiB 128"},
			in:    tight,
		},
		{
			name:  "fill /tmp past 256M",
			code:  fillCode("/tmp/fill"),
			want:  []string{"OSError: [Errno 28] No space left on device", full},
			never: []string{"wrote"},
			limit: LimitMemory,
			in:    tight,
		},
		{
			name:  "fill the working directory past 256M",
			code:  fillCode("fill"),
			want:  []string{"OSError: [Errno 28] No space left on device", full},
			never: []string{"wrote"},
			limit: LimitMemory,
			in:    tight,
		},
		{
			name:  "fill /dev/shm past 256M",
			code:  fillCode("/dev/shm/fill"),
			want:  []string{"OSError: [Errno 28] No space left on device", full},
			never: []string{"wrote"},
			limit: LimitMemory,
			in:    tight,
		},
		{
			// Everything at once, each failure caught so that nothing is
			// released: files, heap and shared memory held together stay
			// within 1.5 x tool_memory + 128 MiB (docs/sandbox.md).
			name: "hold files, heap and shared memory at once under 256M",
			code: holdAllCode,
			want: []string{"held "},
			in:   tight,
		},
		{
			name: "fork 10,000 processes",
			code: `import os, time
n = 0
try:
    for i in range(10000):
        if os.fork() == 0:
            time.sleep(600)
            os._exit(0)
        n += 1
finally:
    print('forked', n)`,
			want:  []string{"BlockingIOError: [Errno 11] Resource temporarily unavailable", "[stopped: the call started too many processes or threads (limit 128)"},
			limit: LimitProcesses,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := tc.in
			if in == nil {
				in = s
			}
			r := mustExec(t, in, tc.code)
			for _, w := range tc.want {
				if !strings.Contains(r.Output, w) {
					t.Errorf("output lacks %q:\n%s", w, r.Output)
				}
			}
			for _, w := range tc.never {
				if strings.Contains(r.Output, w) {
					t.Errorf("output has %q:\n%s", w, r.Output)
				}
			}
			if r.Limit != tc.limit || r.Restarted != (tc.limit != "") {
				t.Errorf("limit %q restarted %v, want %q", r.Limit, r.Restarted, tc.limit)
			}
			if len(r.Output) > 17<<10 {
				t.Errorf("output of %d bytes", len(r.Output))
			}
			if tc.code == holdAllCode {
				var held int64
				if i := strings.Index(r.Output, "held "); i >= 0 {
					fmt.Sscanf(r.Output[i:], "held %d", &held)
				}
				t.Logf("%s", r.Output)
				if limit := int64(small)*3/2 + 128<<20; held<<20 > limit || held < 256 {
					t.Errorf("the sandbox held %d MiB at once, want at least 256 and at most %d MiB:\n%s", held, limit>>20, r.Output)
				}
			}
			if tc.name == "fork 10,000 processes" {
				var n int
				if i := strings.Index(r.Output, "forked "); i >= 0 {
					fmt.Sscanf(r.Output[i:], "forked %d", &n)
				}
				if n < 1 || n >= 128 {
					t.Errorf("forked %d processes, want fewer than 128", n)
				}
			}
			if tc.host != nil {
				tc.host(t)
			}
		})
	}
	if r := mustExec(t, tight, "print('still here')"); r.Output != "still here\n" {
		t.Errorf("after the limits, the session gives %+v", r)
	}
	s.Close()
	waitGone(t, "987661")
}

// fillCode writes 3 GiB to path, a MiB at a time.
func fillCode(path string) string {
	return fmt.Sprintf(`with open(%q, 'wb', buffering=0) as f:
    for i in range(3 << 10):
        f.write(bytes(1 << 20))
print('wrote 3 GiB')`, path)
}

// holdAllCode fills the three tmpfs, then allocates heap and shared
// memory until each fails (up to 1 GiB of each), keeping everything, and
// prints the MiB held.
const holdAllCode = `import mmap, os
MiB = 1 << 20
held, keep = {}, []
for path in ['fill', '/tmp/fill', '/dev/shm/fill']:
    try:
        with open(path, 'wb', buffering=0) as f:
            for i in range(1 << 10):
                f.write(bytes(MiB))
    except OSError:
        pass
    held[path] = os.path.getsize(path) // MiB
for kind in ['heap', 'shared']:
    n = 0
    try:
        while n < 1 << 10:
            if kind == 'heap':
                keep.append(bytearray(b'\1') * (16 * MiB))
            else:
                m = mmap.mmap(-1, 16 * MiB)
                for i in range(0, 16 * MiB, 4096):
                    m[i] = 1
                keep.append(m)
            n += 16
    except (MemoryError, OSError):
        pass
    held[kind] = n
print('held', sum(held.values()), held)`
