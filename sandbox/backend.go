package sandbox

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
)

//go:embed driver.py
var driver string

// Paths inside the sandbox (Bwrap and Docker).
const (
	workDir  = "/work"  // the working directory, a fresh tmpfs
	inputDir = "/input" // the staging folder, bound read-only
	// sandboxUID is the uid code runs as inside the sandbox.
	sandboxUID = 1000
)

// driverConfig is the driver's argv[1].
type driverConfig struct {
	Memory    int64    `json:"memory"`
	Mappings  int64    `json:"mappings"` // address space over Memory, Mappings and code (RLIMIT_AS)
	Processes int      `json:"processes"`
	StartCPU  int      `json:"start_cpu"`
	Preload   []string `json:"preload"`
}

// command builds the process that runs one interpreter. stage is the
// host staging folder, bound read-only at inputDir (Bwrap, Docker); None
// runs in stage+"-work". name names a Docker container.
func (c Config) command(stage, name string) (*exec.Cmd, error) {
	dc, err := json.Marshal(driverConfig{
		Memory:    c.Memory,
		Mappings:  mappingSlack,
		Processes: c.Processes,
		StartCPU:  int(c.StartTimeout.Seconds()) + 1,
		Preload:   c.Preload,
	})
	if err != nil {
		return nil, err
	}
	py := []string{c.Python, "-I", "-B", "-u", "-c", driver, string(dc)}
	env := c.env()
	switch c.Backend {
	case Bwrap:
		bwrap, err := exec.LookPath("bwrap")
		if err != nil {
			return nil, errMissing("bubblewrap is not installed (no bwrap on PATH)")
		}
		args := c.bwrapArgs(stage)
		var extra []*os.File
		if prog := seccompFilter(); prog != nil {
			// bwrap reads the program from descriptor 3 (ExtraFiles[0]);
			// it fits in a pipe's buffer. start closes it after the start.
			r, w, err := os.Pipe()
			if err != nil {
				return nil, fmt.Errorf("sandbox: %w", err)
			}
			_, err = w.Write(prog)
			w.Close()
			if err != nil {
				r.Close()
				return nil, fmt.Errorf("sandbox: seccomp filter: %w", err)
			}
			args = append([]string{"--seccomp", "3"}, args...)
			extra = append(extra, r)
		}
		cmd := exec.Command(bwrap, append(args, py...)...)
		cmd.ExtraFiles = extra
		cmd.Env = env
		cmd.Dir = "/"
		ownGroup(cmd, os.Geteuid() == 0, c.HostUID, c.HostGID)
		return cmd, nil
	case Docker:
		docker, err := exec.LookPath("docker")
		if err != nil {
			return nil, fmt.Errorf("sandbox: docker backend: no docker on PATH")
		}
		cmd := exec.Command(docker, append(c.dockerArgs(stage, name, env), py...)...)
		ownGroup(cmd, false, 0, 0)
		return cmd, nil
	default: // None
		cmd := exec.Command(py[0], py[1:]...)
		work := stage + "-work"
		cmd.Env = append(env, "HOME="+work, "TMPDIR="+work)
		cmd.Dir = work
		ownGroup(cmd, false, 0, 0)
		return cmd, nil
	}
}

// env is the interpreter's whole environment: a fixed set plus the host's
// OPENBLAS_* variables.
func (c Config) env() []string {
	env := []string{
		"PATH=/usr/local/bin:/usr/bin:/bin",
		"LANG=C.UTF-8",
		"USER=sandbox",
		"LOGNAME=sandbox",
		"MPLBACKEND=Agg",
		// One malloc arena: each further one reserves 64 MiB of address
		// space, which RLIMIT_AS counts (threads would use it up).
		"MALLOC_ARENA_MAX=1",
	}
	if c.Backend != None {
		env = append(env, "HOME="+workDir, "TMPDIR=/tmp")
	}
	for _, kv := range c.Environ {
		if strings.HasPrefix(kv, "OPENBLAS_") {
			env = append(env, kv)
		}
	}
	return env
}

// mappingSlack is the address space an interpreter may map beyond
// Memory and the code it has loaded when it is ready (RLIMIT_AS): later
// imports' libraries (scipy and sklearn: 40 MiB) and shared mappings.
const mappingSlack = 128 << 20

// tmpfsSizes are the sizes of the sandbox's three tmpfs, taken from
// Memory so that files count against it: the working directory a
// quarter, /tmp and /dev/shm an eighth each; together half of Memory.
func (c Config) tmpfsSizes() (work, tmp, shm int64) {
	q := c.Memory / 4
	return q, q / 2, q / 2
}

// bwrapArgs is bubblewrap's command line, up to the program: every mount
// the sandbox has, in order.
func (c Config) bwrapArgs(stage string) []string {
	work, tmp, shm := c.tmpfsSizes()
	size := func(n int64) string { return strconv.FormatInt(n, 10) }
	uid := strconv.Itoa(sandboxUID)
	a := []string{
		"--unshare-all", "--unshare-user", "--disable-userns",
		"--uid", uid, "--gid", uid, "--cap-drop", "ALL",
		"--die-with-parent", "--new-session", "--hostname", "sandbox",
		"--ro-bind", "/usr", "/usr",
	}
	// /bin, /sbin, /lib*: symlinks into /usr on a merged-/usr system,
	// directories on an older one.
	tops, _ := filepath.Glob("/lib*")
	for _, d := range append([]string{"/bin", "/sbin"}, tops...) {
		fi, err := os.Lstat(d)
		switch {
		case err != nil:
		case fi.Mode()&os.ModeSymlink != 0:
			if target, err := os.Readlink(d); err == nil {
				a = append(a, "--symlink", target, d)
			}
		case fi.IsDir():
			a = append(a, "--ro-bind", d, d)
		}
	}
	a = append(a,
		"--ro-bind-try", "/etc/alternatives", "/etc/alternatives",
		"--ro-bind-try", "/etc/ld.so.cache", "/etc/ld.so.cache",
		"--proc", "/proc",
		"--dev", "/dev",
		"--size", size(shm), "--tmpfs", "/dev/shm",
		"--remount-ro", "/dev",
		"--size", size(tmp), "--tmpfs", "/tmp",
		"--size", size(work), "--tmpfs", workDir,
		"--ro-bind", stage, inputDir,
		"--remount-ro", "/",
		"--chdir", workDir,
	)
	return a
}

// dockerArgs is docker's command line, up to the program.
func (c Config) dockerArgs(stage, name string, env []string) []string {
	work, tmp, shm := c.tmpfsSizes()
	size := func(n int64) string { return strconv.FormatInt(n, 10) }
	mem := size(c.Memory)
	a := []string{
		"run", "--rm", "-i", "--init", "--name", name,
		"--network", "none", "--read-only",
		"--cap-drop", "ALL", "--security-opt", "no-new-privileges",
		"--user", fmt.Sprintf("%d:%d", sandboxUID, sandboxUID),
		"--memory", mem, "--memory-swap", mem,
		"--pids-limit", strconv.Itoa(c.Processes),
		"--tmpfs", "/tmp:rw,exec,size=" + size(tmp) + ",mode=1777",
		"--tmpfs", workDir + ":rw,exec,size=" + size(work) + ",mode=1777",
		"--shm-size", size(shm),
		"-v", stage + ":" + inputDir + ":ro",
		"-w", workDir,
	}
	for _, kv := range env {
		a = append(a, "-e", kv)
	}
	return append(a, c.Image)
}

// sandboxName is how the Versions name the backend.
func (c Config) sandboxName() string {
	switch c.Backend {
	case Bwrap:
		out, err := exec.Command("bwrap", "--version").Output()
		if err != nil {
			return "bwrap"
		}
		return strings.Replace(strings.TrimSpace(string(out)), "bubblewrap", "bwrap", 1)
	case Docker:
		return "docker " + c.Image
	}
	return string(c.Backend)
}

// errMissing is the one error for a missing Debian package.
func errMissing(what string) error {
	return fmt.Errorf("sandbox: %s; install with: apt-get install -y %s", what, AptPackages)
}
