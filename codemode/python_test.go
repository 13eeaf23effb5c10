package codemode

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/evalmd/evalmd/internal/testkit/shared"
)

// debianPython is the interpreter the sandbox runs (Debian's, not the first
// python3 on PATH).
const debianPython = "/usr/bin/python3"

var pythonCheck = sync.OnceValue(func() error {
	return exec.Command(debianPython, "-c", "import numpy, pandas").Run()
})

// python returns Debian's Python after checking it imports pandas; without
// it the test is skipped naming the package (failed under
// EVALMD_REQUIRE_SHARED=1).
func python(t testing.TB) string {
	t.Helper()
	if err := pythonCheck(); err != nil {
		shared.Missing(t, "needs "+debianPython+" with pandas (apt-get install -y python3-pandas): "+err.Error())
	}
	return debianPython
}

// runPython runs script with args, stdin as its input, and returns its
// stdout; the bound is generous (a loaded 2-core machine) and only stops a
// hang.
func runPython(t testing.TB, script string, stdin []byte, args ...string) []byte {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	dir := t.TempDir()
	path := filepath.Join(dir, "script.py")
	if err := os.WriteFile(path, []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.CommandContext(ctx, python(t), append([]string{"-I", path}, args...)...)
	cmd.Stdin = bytes.NewReader(stdin)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("python %s: %v\n%s", filepath.Base(path), err, stderr.Bytes())
	}
	return out
}

// cellRunner runs each program of a JSON list as a cell of one interpreter
// (as the sandbox's persistent interpreter does), each with its own
// captured stdout, and prints the list of outputs.
const cellRunner = `import io, json, sys
programs = json.load(sys.stdin)
outputs = []
real = sys.stdout
for p in programs:
    sys.stdout = io.StringIO()
    try:
        exec(compile(p, "<cell>", "exec"), {"__name__": "__main__"})
    finally:
        captured, sys.stdout = sys.stdout.getvalue(), real
    outputs.append(captured)
json.dump(outputs, real)
`

// runPrograms runs programs in one interpreter and parses each output.
func runPrograms(t *testing.T, programs []string) []Outcome {
	t.Helper()
	in, err := json.Marshal(programs)
	if err != nil {
		t.Fatal(err)
	}
	var outs []string
	if err := json.Unmarshal(runPython(t, cellRunner, in), &outs); err != nil {
		t.Fatal(err)
	}
	if len(outs) != len(programs) {
		t.Fatalf("%d outputs for %d programs", len(outs), len(programs))
	}
	res := make([]Outcome, len(outs))
	for i, o := range outs {
		if res[i], err = ParseOutput(o); err != nil {
			t.Fatalf("program %d: %v\noutput: %q", i, err, o)
		}
	}
	return res
}
