package evalmdcmd

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// A results folder evalmd wrote on another machine (a CI cache restored on
// a fresh runner), copied here: a run into it reuses nothing, asks every
// question and says once why and how to vouch; after evalmd trust, which
// says what it sealed, the same run reuses every answer and asks nothing.
// The folder's record is still what sha256sum -c checks.
func TestTrustVouchesForACopiedFolder(t *testing.T) {
	root := t.TempDir()
	elsewhere := testEnv(t.TempDir(), map[string]string{"XDG_CONFIG_HOME": filepath.Join(root, "ci-runner")})
	here := testEnv(t.TempDir(), map[string]string{"XDG_CONFIG_HOME": filepath.Join(root, "this-machine")})
	dir := filepath.Join(root, "evals")
	if _, stderr, code := evalmd(t, here, "init", dir); code != 0 {
		t.Fatalf("init: exit %d\n%s", code, stderr)
	}
	results := filepath.Join(root, "cache")
	runArgs := func(out string) []string {
		return []string{"run", "-d", dir, "-m", "mock", "-o", out, "--mock-reply", "C"}
	}
	if _, stderr, code := evalmd(t, elsewhere, runArgs(results)...); code != 0 {
		t.Fatalf("the run elsewhere: exit %d\n%s", code, stderr)
	}
	for _, copied := range []string{"untrusted", "trusted"} {
		if out, err := exec.Command("cp", "-R", results, filepath.Join(root, copied)).CombinedOutput(); err != nil {
			t.Fatalf("cp: %v\n%s", err, out)
		}
	}

	untrusted := filepath.Join(root, "untrusted")
	stdout, stderr, code := evalmd(t, here, runArgs(untrusted)...)
	if code != 0 || !strings.Contains(stdout, "| mock  |         3 |  0 (0%) |") {
		t.Errorf("the run into the copy: exit %d, want every question asked:\n%s\n%s", code, stdout, stderr)
	}
	if strings.Contains(stdout, "reused") || strings.Count(stderr, "not reused") != 1 ||
		!strings.Contains(stderr, "note: 1 earlier output (3 answers) not reused: evalmd did not write it on this machine") ||
		!strings.Contains(stderr, "evalmd trust "+untrusted+" vouches for it") {
		t.Errorf("the run into the copy does not say, once, what it did not reuse and how to vouch:\n%s\n%s", stdout, stderr)
	}

	trusted := filepath.Join(root, "trusted")
	stdout, stderr, code = evalmd(t, here, "trust", trusted)
	if code != 0 || !strings.Contains(stdout, trusted+": 2 files sealed, 0 sealed already") ||
		!strings.Contains(stdout, "2 files sealed, 0 sealed already, in 1 folders below "+trusted) {
		t.Fatalf("trust: exit %d\n%s\n%s", code, stdout, stderr)
	}
	if stdout, _, _ := evalmd(t, here, "trust", trusted); !strings.Contains(stdout, "0 files sealed, 2 sealed already") {
		t.Errorf("trust again:\n%s", stdout)
	}
	stdout, stderr, code = evalmd(t, here, runArgs(trusted)...)
	if code != 0 || !strings.Contains(stdout, "| mock  | 3 (0 asked, 3 reused) |") || !strings.Contains(stderr, "nothing asked: current") || strings.Contains(stderr, "not reused") {
		t.Errorf("the run after trust: exit %d, want every answer reused:\n%s\n%s", code, stdout, stderr)
	}
	if _, err := exec.LookPath("sha256sum"); err == nil {
		cmd := exec.Command("sha256sum", "-c", "--strict", "--quiet", ".evalmd-written")
		cmd.Dir = trusted
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("sha256sum -c after trust: %v\n%s", err, out)
		}
	}
	if _, stderr, code := evalmd(t, here, "trust"); code != 2 || !strings.Contains(stderr, "name the folders") {
		t.Errorf("trust with no folder: exit %d\n%s", code, stderr)
	}
}
