//go:build !unix

package sandbox

import (
	"os"
	"os/exec"
	"syscall"
)

// sigXCPU is Linux's SIGXCPU: the interpreter runs in Docker's Linux
// container, whose exit status 128+N names a Linux signal.
const sigXCPU = syscall.Signal(24)

// ownGroup does nothing: there are no process groups here. Only the
// docker backend runs (bubblewrap is Linux's), and killing the docker
// client is backed by docker kill.
func ownGroup(cmd *exec.Cmd, user bool, uid, gid int) {}

// killGroup kills p.
func killGroup(p *os.Process) {
	p.Kill()
}
