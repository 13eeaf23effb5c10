package sandbox

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// What bwrap says when it cannot start gets the hint that fixes it.
func TestBwrapHint(t *testing.T) {
	cfg := Config{HostUID: 65534, TempDir: "/tmp"}
	for _, tc := range []struct {
		msg  string
		root bool
		want string
	}{
		{"bwrap: Can't mount proc on /newroot/proc: Operation not permitted", false, "procMount: Unmasked"},
		{"bwrap: Can't find source path /tmp/x: Permission denied", true, "uid 65534, which must be able to reach the temporary folder /tmp"},
		{"bwrap: Can't find source path /tmp/x: Permission denied", false, "unprivileged user namespaces"},
		{"bwrap: No permissions to create new namespace", false, "unprivileged user namespaces"},
	} {
		if got := bwrapHint(tc.msg, cfg, tc.root); !strings.Contains(got, tc.want) {
			t.Errorf("%q (root %v): hint %q, want one with %q", tc.msg, tc.root, got, tc.want)
		}
	}
}

// maskedProcEnv runs the masked-/proc helper when set.
const maskedProcEnv = "EVALMD_SANDBOX_MASKED_PROC"

// In a container whose /proc has paths masked (runc bind-mounts over
// /proc/keys, /proc/timer_list...), the kernel refuses bwrap a fresh
// /proc, and the sandbox's check says so with the settings that fix it:
// this machine's /proc, masked as runc masks it in a mount namespace of
// its own (unshare, as root), shows the refusal.
func TestMaskedProcRefused(t *testing.T) {
	if os.Getenv(maskedProcEnv) == "1" {
		_, err := Check(context.Background(), Config{})
		fmt.Printf("check: %v\n", err)
		return
	}
	needSandbox(t)
	unshare, err := exec.LookPath("unshare")
	if err != nil || os.Geteuid() != 0 {
		t.Skip("needs root and unshare(1) to mask /proc in a mount namespace")
	}
	masked := ""
	for _, p := range []string{"/proc/keys", "/proc/timer_list", "/proc/sched_debug"} {
		if _, err := os.Stat(p); err == nil {
			masked = p
			break
		}
	}
	if masked == "" {
		t.Skip("none of the /proc paths runc masks is here")
	}
	cmd := exec.Command(unshare, "--mount", "--propagation", "private", "--fork", "sh", "-c",
		`mount --bind /dev/null "$1" && exec "$0" -test.run='^TestMaskedProcRefused$'`, os.Args[0], masked)
	cmd.Env = append(os.Environ(), maskedProcEnv+"=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if !strings.Contains(string(out), "Can't mount proc") || !strings.Contains(string(out), "procMount: Unmasked") {
		t.Errorf("the check with %s masked said:\n%s", masked, out)
	}
}
