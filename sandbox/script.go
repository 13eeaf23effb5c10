package sandbox

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"time"
)

// RunScript runs the program at path (a .py file, by the sandbox's
// Python with -I, or an executable) once, as c confines model-written
// code, in an interpreter of its own that imports nothing ahead: its file
// read-only in the working directory, stdin given, bounded by timeout
// (wall and CPU) and memory. It returns the program's exit code and the
// tails of its stdout and stderr (16000 and 1000 characters); err says
// why it did not run, or the limit that stopped it. It is a sheet's
// script grader's runner (grade.ScriptRunner).
func (c Config) RunScript(ctx context.Context, path string, stdin []byte, timeout time.Duration, memory int64) (code int, stdout, stderr string, err error) {
	c.Timeout, c.CPUTime, c.Memory = timeout, timeout, memory
	c.Warm, c.MaxInFlight, c.Preload = 1, 1, []string{}
	// Room for the report with every character escaped (up to 12 bytes).
	c.OutputCap = 256 << 10
	pool, err := NewPool(ctx, c)
	if err != nil {
		return 0, "", "", err
	}
	defer pool.Close()
	mark := scriptMark()
	r, err := pool.Run(ctx, []string{path}, scriptCell(filepath.Base(path), stdin, mark))
	if err != nil {
		return 0, "", "", err
	}
	if r.Limit != "" {
		return 0, "", "", fmt.Errorf("stopped at the %s limit (%g)", r.Limit, r.LimitValue)
	}
	i := strings.LastIndex(r.Output, mark)
	if i < 0 {
		return 0, "", "", fmt.Errorf("did not run: %s", lastLine(r.Output))
	}
	var run struct {
		Code   int    `json:"rc"`
		Stdout string `json:"out"`
		Stderr string `json:"err"`
	}
	if err := json.Unmarshal([]byte(strings.TrimSpace(r.Output[i+len(mark):])), &run); err != nil {
		return 0, "", "", fmt.Errorf("did not run: %w", err)
	}
	return run.Code, run.Stdout, run.Stderr, nil
}

// scriptMark is a random marker the cell puts before its report, so the
// report is found whatever else the interpreter printed.
func scriptMark() string {
	b := make([]byte, 12)
	rand.Read(b)
	return "evalmd-script-" + hex.EncodeToString(b) + ":"
}

// scriptCell is the Python the interpreter runs: the script as a child
// process, which inherits the namespaces and rlimits, stdin given, the
// tails of its stdout and stderr reported after mark as JSON. An
// executable is copied to /tmp first: a staged copy has no execute bit.
func scriptCell(name string, stdin []byte, mark string) string {
	q := func(s string) string { b, _ := json.Marshal(s); return string(b) }
	return `def _evalmd_script():
    import json, os, shutil, subprocess, sys
    name = ` + q(name) + `
    if name.endswith('.py'):
        cmd = [sys.executable, '-I', '-B', name]
    else:
        exe = os.path.join('/tmp', name)
        shutil.copy(name, exe)
        os.chmod(exe, 0o755)
        cmd = [exe]
    r = subprocess.run(cmd, input=` + q(string(stdin)) + `.encode(), stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    out = r.stdout.decode('utf-8', 'replace')
    err = r.stderr.decode('utf-8', 'replace')
    print(` + q(mark) + ` + json.dumps({'rc': r.returncode, 'out': out[-16000:], 'err': err[-1000:]}))
_evalmd_script()
`
}

// lastLine is s's last non-empty line, trimmed.
func lastLine(s string) string {
	s = strings.TrimSpace(s)
	return strings.TrimSpace(s[strings.LastIndexByte(s, '\n')+1:])
}
