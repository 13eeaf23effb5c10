package sandbox

import (
	"context"
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"
	"time"
)

// Backend names how interpreters are confined.
type Backend string

const (
	// Bwrap runs each interpreter under bubblewrap: no network, a fresh
	// tmpfs working directory, a read-only allowlist of system directories,
	// a non-root uid in its own user namespace with no capabilities.
	Bwrap Backend = "bwrap"
	// Docker runs each interpreter in a container of Config.Image.
	Docker Backend = "docker"
	// None runs the interpreter on the host, unconfined but for rlimits.
	// Only for when asked; every pool warns.
	None Backend = "none"
)

// AptPackages are the Debian packages the default sandbox needs.
const AptPackages = "bubblewrap python3-pandas python3-scipy python3-sklearn python3-openpyxl"

// Config says how to run model-written Python. The zero value is usable:
// each field's comment gives its default.
type Config struct {
	// Backend: Bwrap when empty.
	Backend Backend
	// Python is the interpreter inside the sandbox: /usr/bin/python3
	// (Debian's, with python3-pandas), never the first python3 on PATH.
	Python string
	// Image is the Docker image (Backend Docker): DefaultImage when
	// empty, built from this package's Dockerfile.
	Image string

	// Timeout is the wall-clock limit of one call: 180 s.
	Timeout time.Duration
	// Memory bounds what an interpreter holds, in bytes: 2 GiB. Its
	// heap and private mappings (RLIMIT_DATA), its shared mappings with
	// them (RLIMIT_AS, with 128 MiB for code), and the files it writes:
	// the three tmpfs are half of it (doc.go, Limits).
	Memory int64
	// CPUTime is the CPU time one call may use (RLIMIT_CPU, all threads):
	// Timeout.
	CPUTime time.Duration
	// Processes caps processes and threads in one sandbox (RLIMIT_NPROC):
	// 128.
	Processes int
	// OutputCap is how much of a call's output is kept, head and tail, in
	// bytes: 16 KiB.
	OutputCap int
	// MaxOutput: a call that writes more than this many bytes is stopped
	// (LimitOutput): 8 MiB.
	MaxOutput int64

	// MaxInFlight caps sessions open at once, apart from any request
	// concurrency: runtime.NumCPU().
	MaxInFlight int
	// Warm is how many interpreters are kept started ahead, with Preload
	// imported: MaxInFlight. Negative: none (each session starts cold).
	Warm int
	// Preload lists modules imported before a session is handed out:
	// numpy and pandas.
	Preload []string
	// StartTimeout bounds starting one interpreter (with Preload): 2 min.
	StartTimeout time.Duration

	// HostUID and HostGID: when this process is root, bwrap itself runs as
	// this host user (nobody, 65534), so the sandbox's uid maps to an
	// unprivileged host uid. Ignored when not root, and by Docker and None.
	HostUID, HostGID int
	// TempDir holds the per-interpreter staging folders (and None's
	// working directories): os.TempDir().
	TempDir string
	// Environ is the host environment OPENBLAS_* variables are passed
	// through from: os.Environ() when nil.
	Environ []string
	// Warn receives warnings (the None backend's, on every NewPool):
	// os.Stderr when nil.
	Warn io.Writer
}

// DefaultImage is the Docker image used when Config.Image is empty.
const DefaultImage = "evalmd-sandbox"

func (c Config) withDefaults() Config {
	if c.Backend == "" {
		c.Backend = Bwrap
	}
	if c.Python == "" {
		c.Python = "/usr/bin/python3"
	}
	if c.Image == "" {
		c.Image = DefaultImage
	}
	if c.Timeout <= 0 {
		c.Timeout = 180 * time.Second
	}
	if c.Memory <= 0 {
		c.Memory = 2 << 30
	}
	if c.CPUTime <= 0 {
		c.CPUTime = c.Timeout
	}
	if c.Processes <= 0 {
		c.Processes = 128
	}
	if c.OutputCap <= 0 {
		c.OutputCap = 16 << 10
	}
	if c.MaxOutput <= 0 {
		c.MaxOutput = 8 << 20
	}
	if int64(c.OutputCap) > c.MaxOutput {
		c.MaxOutput = int64(c.OutputCap)
	}
	if c.MaxInFlight <= 0 {
		c.MaxInFlight = runtime.NumCPU()
	}
	if c.Warm == 0 {
		c.Warm = c.MaxInFlight
	}
	if c.Preload == nil {
		c.Preload = []string{"numpy", "pandas"}
	}
	if c.StartTimeout <= 0 {
		c.StartTimeout = 2 * time.Minute
	}
	if c.HostUID == 0 {
		c.HostUID = 65534
	}
	if c.HostGID == 0 {
		c.HostGID = 65534
	}
	if c.TempDir == "" {
		c.TempDir = os.TempDir()
	}
	if c.Environ == nil {
		c.Environ = os.Environ()
	}
	if c.Warn == nil {
		c.Warn = os.Stderr
	}
	return c
}

func (c Config) validate() error {
	switch c.Backend {
	case Bwrap, Docker, None:
	default:
		return fmt.Errorf("sandbox: unknown backend %q (want bwrap, docker or none)", c.Backend)
	}
	if c.Backend == Bwrap {
		if err := bwrapRuns(runtime.GOOS); err != nil {
			return err
		}
	}
	if !strings.HasPrefix(c.Python, "/") {
		return fmt.Errorf("sandbox: python %q: want an absolute path inside the sandbox", c.Python)
	}
	return nil
}

// bwrapRuns says in one line why bubblewrap cannot run on goos, where it
// does not exist (macOS, Windows), and what to use instead; nil on Linux.
func bwrapRuns(goos string) error {
	if goos == "linux" {
		return nil
	}
	return fmt.Errorf("sandbox: bubblewrap (the default sandbox) exists only on Linux; on %s use --sandbox docker", goos)
}

// Versions is the sandbox's environment, to be recorded with results.
type Versions struct {
	Sandbox string `json:"sandbox"` // "bwrap 0.8.0", "docker IMAGE", "none"
	Python  string `json:"python"`
	Pandas  string `json:"pandas"`
	Numpy   string `json:"numpy"`
}

// Limit names the limit that stopped a call.
type Limit string

const (
	LimitTimeout   Limit = "tool_timeout" // Config.Timeout, wall clock (the tool_timeout meta)
	LimitMemory    Limit = "memory"       // Config.Memory (a MemoryError, a failed mapping or a full tmpfs reached the top)
	LimitCPU       Limit = "cpu"          // Config.CPUTime
	LimitProcesses Limit = "processes"    // Config.Processes (fork or thread start failed)
	LimitOutput    Limit = "output"       // Config.MaxOutput
)

// Limits are a session's own time and memory limits, over the pool's
// Config: a question's tool_timeout and tool_memory. Zero fields keep the
// pool's.
type Limits struct {
	// Timeout is the wall-clock limit of one call; CPU time follows it
	// unless the pool's Config.CPUTime was set apart from its Timeout.
	Timeout time.Duration
	// Memory is the interpreter's memory limit in bytes (Config.Memory).
	// The sizes of its tmpfs follow it and are fixed when it starts, so a
	// session whose Memory differs from the warm interpreters' starts its
	// own (a cold start), and the pool then keeps its warm interpreters at
	// that Memory: a sheet's questions share one.
	Memory int64
}

// limited is c with the session limits l applied.
func (c Config) limited(l Limits) Config {
	if l.Timeout > 0 {
		if c.CPUTime == c.Timeout {
			c.CPUTime = l.Timeout
		}
		c.Timeout = l.Timeout
	}
	if l.Memory > 0 {
		c.Memory = l.Memory
	}
	return c
}

// Result is what one call gave.
type Result struct {
	// Output is what a model should see: stdout and stderr interleaved as
	// written, the value of a final expression (as Jupyter shows it), a
	// traceback; cut to Config.OutputCap (head and tail, with a line saying
	// how much was left out where), and a closing line when the call was
	// stopped or the interpreter died.
	Output string
	// Limit is the limit that stopped the call, or "".
	Limit Limit
	// LimitValue is Limit's value: seconds (LimitTimeout, LimitCPU),
	// bytes (LimitMemory, LimitOutput) or processes (LimitProcesses).
	LimitValue float64
	// Restarted: the interpreter was stopped (a limit, or it died), its
	// state (variables, imports, files written) is lost, and the next call
	// runs in a fresh one with the same files.
	Restarted bool
}

// Check starts one sandboxed interpreter as cfg says, imports pandas and
// numpy in it, and returns their versions. Call it before any model call:
// a missing bubblewrap, Python or pandas gives one error naming the Debian
// packages to install.
func Check(ctx context.Context, cfg Config) (Versions, error) {
	// The probe runs no model-written code, so the None backend's warning
	// about such code is not said here: the caller says what none means.
	cfg.Warm, cfg.Warn = -1, io.Discard
	p, err := NewPool(ctx, cfg)
	if err != nil {
		return Versions{}, err
	}
	v := p.Versions()
	return v, p.Close()
}
