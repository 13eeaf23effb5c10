//go:build linux

package evalmdcmd

import (
	"errors"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/evalmd/evalmd/cmd/internal/cli"
	"github.com/evalmd/evalmd/result"
)

// A full disk while a run writes an output and its .md (here a file size
// limit, which fails writes past it midway as a full disk does; Go ignores
// the SIGXFSZ that comes with it) leaves both as they were: never the new
// JSON beside the old .md, or the other way round, until a rerun.
func TestFullDiskKeepsPairs(t *testing.T) {
	dir := t.TempDir()
	sheet := filepath.Join(dir, "input-big.md")
	write := func(truth string) {
		// A long truth of quotes, which the JSON escapes and the .md
		// does not, so the two differ in size.
		text := "# Big\n\n#### meta\n- grader: lime\n\n## Q\n#### answer\n" + truth + strings.Repeat(`"`, 20000) + "<EVAL-ENDCHAR>\n#### question\nWhat?\n<EVAL-ENDCHAR>\n"
		if err := os.WriteFile(sheet, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("old")
	out := filepath.Join(dir, "out")
	env := testEnv("", nil)
	env.Look.Getenv = func(string) string { return "" }
	run := []string{"run", "-f", sheet, "-m", "mock", "-u", "0", "--force", "-o", out}
	if _, stderr, code := evalmd(t, env, run...); code != 0 {
		t.Fatal(stderr)
	}
	path := filepath.Join(out, "output-big-mock.json")
	md := result.MarkdownPath(path)
	sizes := [2]int64{}
	for i, p := range []string{path, md} {
		fi, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		sizes[i] = fi.Size()
	}
	if d := sizes[0] - sizes[1]; d < 4096 && d > -4096 {
		t.Fatalf("the JSON and the .md are %d and %d bytes: too close to fill the disk between them", sizes[0], sizes[1])
	}
	before := [2]string{readString(t, path), readString(t, md)}
	write("new")
	code, stderr := runLimited(t, uint64(sizes[0]+sizes[1])/2, run...)
	if code == 0 || !strings.Contains(stderr, "file too large") {
		t.Fatalf("run on a full disk: exit %d, %q; want the write's failure", code, stderr)
	}
	if after := [2]string{readString(t, path), readString(t, md)}; after != before {
		t.Errorf("the output changed: JSON %v, .md %v; want both as they were", after[0] != before[0], after[1] != before[1])
	}
	if _, stderr, code := evalmd(t, env, run...); code != 0 {
		t.Fatalf("rerun: %s", stderr)
	}
	f, err := result.Read(path)
	if err != nil {
		t.Fatal(err)
	}
	if readString(t, md) != result.Markdown(f) || readString(t, path) == before[0] {
		t.Error("the rerun did not write the pair")
	}
}

func readString(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// runLimited runs evalmd with args in a process of its own (this test
// binary as TestFullDiskProcess) whose writes past limit bytes of a file
// fail: the test binary's own writes (go test's log of the files a test
// opens, which grows with every file a run reads) never meet the limit.
// It returns the exit status and what the run printed on stderr.
func runLimited(t *testing.T, limit uint64, args ...string) (code int, stderr string) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, append([]string{"-test.run=^TestFullDiskProcess$", "--"}, args...)...)
	home := t.TempDir()
	cmd.Env = []string{"EVALMD_TEST_FSIZE=" + strconv.FormatUint(limit, 10), "HOME=" + home, "XDG_CONFIG_HOME=" + home, "PATH=" + os.Getenv("PATH")}
	var e strings.Builder
	cmd.Stderr = &e
	err = cmd.Run()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		t.Fatal(err)
	}
	return cmd.ProcessState.ExitCode(), e.String()
}

// TestFullDiskProcess is the evalmd of runLimited, under its limit.
func TestFullDiskProcess(t *testing.T) {
	limit := os.Getenv("EVALMD_TEST_FSIZE")
	if limit == "" {
		t.Skip("the run of TestFullDiskKeepsPairs under a file size limit")
	}
	n, err := strconv.ParseUint(limit, 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_FSIZE, &lim); err != nil {
		t.Fatal(err)
	}
	lim.Cur = n
	if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &lim); err != nil {
		t.Fatal(err)
	}
	os.Args = append([]string{"evalmd"}, flag.Args()...)
	cli.Main(Command(System()))
}
