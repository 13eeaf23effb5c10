package sandbox

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/evalmd/evalmd/internal/outfile"
)

// interp is one interpreter process: the driver (driver.py) in its
// sandbox, with a request pipe, a reply pipe and an output pipe.
type interp struct {
	cfg   Config
	cmd   *exec.Cmd
	stage string // host folder bound read-only at inputDir (None: the working directory)
	name  string // Docker container name

	req    *os.File         // requests, to the driver's stdin
	ctl    chan ctlMsg      // replies, from its stdout
	out    chan []byte      // output chunks, from its stderr
	exited chan struct{}    // closed once the process has been waited for
	dead   chan struct{}    // closed by kill: readers stop
	status *os.ProcessState // set before exited is closed

	killOnce, signalOnce sync.Once
	tail                 []byte
	versions             Versions
}

// ctlMsg is one reply line of the driver.
type ctlMsg struct {
	Ready  bool   `json:"ready"`
	Error  string `json:"error"`
	OK     bool   `json:"ok"`
	Done   string `json:"done"`
	Limit  Limit  `json:"limit"`
	Full   bool   `json:"full"` // the limit was a full tmpfs
	Python string `json:"python"`
	Pandas string `json:"pandas"`
	Numpy  string `json:"numpy"`
}

// startInterp starts one interpreter in a fresh staging folder under dir
// and waits until it has imported cfg.Preload.
func startInterp(ctx context.Context, cfg Config, dir string) (*interp, error) {
	stage, err := os.MkdirTemp(dir, "i-")
	if err != nil {
		return nil, fmt.Errorf("sandbox: %w", err)
	}
	// Readable by the unprivileged host uid bwrap runs as.
	if err := os.Chmod(stage, 0o711); err != nil {
		os.RemoveAll(stage)
		return nil, fmt.Errorf("sandbox: %w", err)
	}
	it := &interp{
		cfg:    cfg,
		stage:  stage,
		name:   "evalmd-sandbox-" + randomHex(8),
		ctl:    make(chan ctlMsg, 4),
		out:    make(chan []byte, 8),
		exited: make(chan struct{}),
		dead:   make(chan struct{}),
	}
	if cfg.Backend == None {
		if err := outfile.MkdirAll(stage+"-work", 0o700); err != nil {
			os.RemoveAll(stage)
			return nil, fmt.Errorf("sandbox: %w", err)
		}
	}
	cmd, err := cfg.command(stage, it.name)
	if err != nil {
		it.removeDirs()
		return nil, err
	}
	it.cmd = cmd
	if err := it.start(); err != nil {
		it.removeDirs()
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, cfg.StartTimeout)
	defer cancel()
	msg, err := it.reply(ctx)
	if err != nil {
		it.kill()
		return nil, it.startError(err)
	}
	if msg.Error != "" {
		it.kill()
		if strings.Contains(msg.Error, "No module named") {
			return nil, errMissing(fmt.Sprintf("%s in the sandbox cannot %s", cfg.Python, msg.Error))
		}
		return nil, fmt.Errorf("sandbox: %s: %s", cfg.Python, msg.Error)
	}
	it.versions = Versions{Python: msg.Python, Pandas: msg.Pandas, Numpy: msg.Numpy}
	return it, nil
}

// start runs the process with its three pipes; goroutines read the reply
// and output pipes until the process is killed or closes them.
func (it *interp) start() error {
	defer func() { // the child has its copies (bwrap's seccomp filter)
		for _, f := range it.cmd.ExtraFiles {
			f.Close()
		}
	}()
	reqR, reqW, err := os.Pipe()
	if err != nil {
		return fmt.Errorf("sandbox: %w", err)
	}
	ctlR, ctlW, err := os.Pipe()
	if err != nil {
		reqR.Close()
		reqW.Close()
		return fmt.Errorf("sandbox: %w", err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		reqR.Close()
		reqW.Close()
		ctlR.Close()
		ctlW.Close()
		return fmt.Errorf("sandbox: %w", err)
	}
	it.cmd.Stdin, it.cmd.Stdout, it.cmd.Stderr = reqR, ctlW, outW
	err = it.cmd.Start()
	reqR.Close()
	ctlW.Close()
	outW.Close()
	if err != nil {
		reqW.Close()
		ctlR.Close()
		outR.Close()
		return fmt.Errorf("sandbox: start %s: %w", filepath.Base(it.cmd.Path), err)
	}
	it.req = reqW
	go func() {
		it.cmd.Wait()
		it.status = it.cmd.ProcessState
		close(it.exited)
	}()
	go it.readCtl(ctlR)
	go it.readOut(outR)
	return nil
}

func (it *interp) readCtl(r *os.File) {
	defer r.Close()
	defer close(it.ctl)
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 4096), 1<<20)
	for sc.Scan() {
		var m ctlMsg
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			m = ctlMsg{Error: fmt.Sprintf("bad reply from the interpreter: %.200q", sc.Text())}
		}
		select {
		case it.ctl <- m:
		case <-it.dead:
			return
		}
	}
}

func (it *interp) readOut(r *os.File) {
	defer r.Close()
	defer close(it.out)
	for {
		buf := make([]byte, 32<<10)
		n, err := r.Read(buf)
		if n > 0 {
			select {
			case it.out <- buf[:n]:
			case <-it.dead:
				return
			}
		}
		if err != nil {
			return
		}
	}
}

// send writes one request line.
func (it *interp) send(v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	it.req.SetWriteDeadline(time.Now().Add(it.cfg.StartTimeout))
	_, err = it.req.Write(append(b, '\n'))
	return err
}

// reply waits for the driver's next reply line, keeping what it writes
// meanwhile (bwrap's or docker's own error messages) for errors.
func (it *interp) reply(ctx context.Context) (ctlMsg, error) {
	out := it.out
	for {
		select {
		case m, ok := <-it.ctl:
			if !ok {
				it.drainOut(ctx)
				return ctlMsg{}, errExited
			}
			return m, nil
		case b, ok := <-out:
			if !ok {
				out = nil
				continue
			}
			it.keepTail(b)
		case <-ctx.Done():
			return ctlMsg{}, ctx.Err()
		}
	}
}

var errExited = errors.New("the interpreter exited")

// drainOut keeps output until the process has exited and its output
// pipe is closed, or ctx ends, or 2 s have passed (a process that left a
// child holding the pipe).
func (it *interp) drainOut(ctx context.Context) {
	t := time.NewTimer(2 * time.Second)
	defer t.Stop()
	for {
		select {
		case b, ok := <-it.out:
			if !ok {
				return
			}
			it.keepTail(b)
		case <-t.C:
			return
		case <-ctx.Done():
			return
		}
	}
}

func (it *interp) keepTail(b []byte) {
	it.tail = append(it.tail, b...)
	if len(it.tail) > 4096 {
		it.tail = it.tail[len(it.tail)-4096:]
	}
}

// startError explains an interpreter that did not get ready.
func (it *interp) startError(err error) error {
	msg := strings.TrimSpace(strings.ToValidUTF8(string(it.tail), "?"))
	if errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("sandbox: %s did not start within %v: %s", it.cfg.Backend, it.cfg.StartTimeout, msg)
	}
	if errors.Is(err, context.Canceled) {
		return err
	}
	if msg == "" {
		msg = "no message"
	}
	hint := ""
	switch it.cfg.Backend {
	case Bwrap:
		if strings.Contains(msg, "No such file") && strings.Contains(msg, it.cfg.Python) {
			return errMissing(fmt.Sprintf("%s not found", it.cfg.Python))
		}
		hint = bwrapHint(msg, it.cfg, os.Geteuid() == 0)
	case Docker:
		hint = fmt.Sprintf(" (build the image with: docker build -t %s sandbox/)", DefaultImage)
	}
	return fmt.Errorf("sandbox: %s could not start the interpreter: %s%s", it.cfg.Backend, oneLine(msg), hint)
}

// bwrapHint says what to change when bwrap could not start, from what it
// said (msg); root says this process runs as root.
func bwrapHint(msg string, cfg Config, root bool) string {
	switch {
	case strings.Contains(msg, "Can't find source path") && root:
		return fmt.Sprintf(" (bwrap runs as uid %d, which must be able to reach the temporary folder %s)", cfg.HostUID, cfg.TempDir)
	case strings.Contains(msg, "Can't mount proc"):
		// A container's /proc with paths masked (runc masks /proc/keys,
		// /proc/kcore...): the kernel refuses a new procfs beside them.
		return " (this runs in a container whose /proc has paths masked, where the kernel refuses bwrap a fresh /proc: Kubernetes' procMount: Unmasked with hostUsers: false, Docker's --security-opt systempaths=unconfined; see docs/kubernetes.md)"
	}
	return " (bwrap needs unprivileged user namespaces: sysctl kernel.unprivileged_userns_clone=1, or an AppArmor profile allowing bwrap)"
}

func oneLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	for i := range lines {
		lines[i] = strings.TrimSpace(lines[i])
	}
	return strings.Join(lines, "; ")
}

// setFiles makes each staged file visible in the working directory under
// its base name.
func (it *interp) setFiles(ctx context.Context, names []string) error {
	links := make([][2]string, len(names))
	for i, n := range names {
		target := inputDir + "/" + n
		if it.cfg.Backend == None {
			target = filepath.Join(it.stage, n)
		}
		links[i] = [2]string{n, target}
	}
	if err := it.send(map[string]any{"op": "files", "links": links}); err != nil {
		return fmt.Errorf("sandbox: %w", err)
	}
	ctx, cancel := context.WithTimeout(ctx, it.cfg.StartTimeout)
	defer cancel()
	m, err := it.reply(ctx)
	if err != nil {
		return fmt.Errorf("sandbox: setting up files: %w", err)
	}
	if !m.OK {
		return fmt.Errorf("sandbox: setting up files: %s", m.Error)
	}
	return nil
}

// exec runs one cell. err is for the caller's ctx only; every other
// outcome is in the Result.
func (it *interp) exec(ctx context.Context, code string) (Result, error) {
	cfg := it.cfg
	marker := "\x1e" + randomHex(16) + "\x1e"
	capt := newCapture(cfg.OutputCap)
	scan := markerScanner{marker: []byte(marker)}
	cpu := int(cfg.CPUTime.Seconds())
	if cpu < 1 {
		cpu = 1
	}
	if err := it.send(map[string]any{"op": "exec", "code": code, "marker": marker, "cpu": cpu}); err != nil {
		it.kill()
		return it.stopped(capt, "", fmt.Sprintf("could not send the code: %v", err)), nil
	}
	timer := time.NewTimer(cfg.Timeout)
	defer timer.Stop()
	var (
		done, seen bool
		limit      Limit
		full       bool
		out, ctl   = it.out, it.ctl
	)
	for !done || !seen {
		select {
		case b, ok := <-out:
			if !ok {
				out = nil // closed: wait for the exit
				continue
			}
			if seen {
				continue // a background process writing after the call: dropped
			}
			before, found, _ := scan.feed(b)
			capt.write(before)
			seen = found
			if capt.total > cfg.MaxOutput {
				it.kill()
				return it.stopped(capt, LimitOutput, ""), nil
			}
		case m, ok := <-ctl:
			if !ok {
				ctl = nil
				continue
			}
			if m.Done == marker {
				done, limit, full = true, m.Limit, m.Full
			}
		case <-it.exited:
			it.drainInto(out, capt, &scan)
			return it.stopped(capt, it.exitLimit(), ""), nil
		case <-timer.C:
			it.signal()
			it.drainInto(out, capt, &scan) // what it wrote before the kill
			return it.stopped(capt, LimitTimeout, ""), nil
		case <-ctx.Done():
			it.kill()
			return Result{}, ctx.Err()
		}
	}
	if limit != "" {
		why := ""
		if full && limit == LimitMemory {
			work, tmp, shm := cfg.tmpfsSizes()
			why = fmt.Sprintf("the files written reached the limit (tool_memory %s: %s in the working directory, %s in /tmp, %s in /dev/shm)",
				bytesString(cfg.Memory), bytesString(work), bytesString(tmp), bytesString(shm))
		}
		it.kill()
		return it.stopped(capt, limit, why), nil
	}
	return Result{Output: capt.String()}, nil
}

// drainInto adds what is left in the output pipe of an exited process.
func (it *interp) drainInto(out <-chan []byte, capt *capture, scan *markerScanner) {
	defer func() { capt.write(scan.carry) }()
	t := time.NewTimer(time.Second)
	defer t.Stop()
	for out != nil {
		select {
		case b, ok := <-out:
			if !ok {
				return
			}
			before, _, _ := scan.feed(b)
			if capt.total <= it.cfg.MaxOutput {
				capt.write(before)
			}
		case <-t.C:
			return
		}
	}
}

// exitLimit says which limit, if any, an interpreter that exited by
// itself during a call hit.
func (it *interp) exitLimit() Limit {
	sig := it.exitSignal()
	switch {
	case sig == sigXCPU:
		return LimitCPU
	case sig == syscall.SIGKILL && it.cfg.Backend == Docker:
		return LimitMemory // the container's memory cgroup
	}
	return ""
}

// exitSignal is the signal that ended the interpreter, or 0. bwrap and
// docker report a child killed by signal N as exit status 128+N.
func (it *interp) exitSignal() syscall.Signal {
	st := it.status
	if st == nil {
		return 0
	}
	ws, ok := st.Sys().(syscall.WaitStatus)
	if ok && ws.Signaled() {
		return ws.Signal()
	}
	if it.cfg.Backend != None && st.ExitCode() > 128 && st.ExitCode() < 128+65 {
		return syscall.Signal(st.ExitCode() - 128)
	}
	return 0
}

// stopped is the Result of a call whose interpreter was stopped.
func (it *interp) stopped(capt *capture, limit Limit, why string) Result {
	it.kill()
	cfg := it.cfg
	var value float64
	switch limit {
	case LimitTimeout:
		why = fmt.Sprintf("the call ran longer than the time limit (tool_timeout %v)", cfg.Timeout)
		value = cfg.Timeout.Seconds()
	case LimitMemory:
		if why == "" {
			why = fmt.Sprintf("the call ran out of memory (tool_memory %s)", bytesString(cfg.Memory))
		}
		value = float64(cfg.Memory)
	case LimitCPU:
		why = fmt.Sprintf("the call used more CPU time than its limit (%v)", cfg.CPUTime)
		value = cfg.CPUTime.Seconds()
	case LimitProcesses:
		why = fmt.Sprintf("the call started too many processes or threads (limit %d)", cfg.Processes)
		value = float64(cfg.Processes)
	case LimitOutput:
		why = fmt.Sprintf("the call wrote more output than its limit (%s)", bytesString(cfg.MaxOutput))
		value = float64(cfg.MaxOutput)
	default:
		if why == "" {
			why = "the Python interpreter exited"
			if sig := it.exitSignal(); sig != 0 {
				why += fmt.Sprintf(" (signal %d, %v)", int(sig), sig)
			} else if it.status != nil {
				why += fmt.Sprintf(" (status %d)", it.status.ExitCode())
			}
		}
	}
	out := capt.String()
	if out != "" && !strings.HasSuffix(out, "\n") {
		out += "\n"
	}
	out += "[stopped: " + why + "; the Python interpreter was restarted and its state (variables, imports, files written) is lost]"
	return Result{Output: out, Limit: limit, LimitValue: value, Restarted: true}
}

func bytesString(n int64) string {
	switch {
	case n >= 1<<30 && n%(1<<30) == 0:
		return fmt.Sprintf("%d GiB", n>>30)
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}

// kill stops the interpreter with everything it started, waits for the
// process, and removes its staging folder. Safe to call more than once.
func (it *interp) kill() {
	it.killOnce.Do(func() {
		it.signal()
		it.req.Close()
		select {
		case <-it.exited:
		case <-time.After(30 * time.Second):
		}
		close(it.dead)
		it.removeDirs()
	})
}

// signal kills the interpreter's processes without waiting for them.
func (it *interp) signal() {
	it.signalOnce.Do(func() {
		if it.cfg.Backend == Docker {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			exec.CommandContext(ctx, "docker", "kill", it.name).Run()
			cancel()
		}
		// The process group: bwrap (whose children die with it:
		// --die-with-parent, and the PID namespace goes with its init),
		// the docker client, or python and its children (None).
		killGroup(it.cmd.Process)
	})
}

func (it *interp) removeDirs() {
	os.RemoveAll(it.stage)
	if it.cfg.Backend == None {
		os.RemoveAll(it.stage + "-work")
	}
}

func randomHex(n int) string {
	b := make([]byte, n)
	if _, err := io.ReadFull(rand.Reader, b); err != nil {
		panic(err) // crypto/rand does not fail on Linux
	}
	return hex.EncodeToString(b)
}
