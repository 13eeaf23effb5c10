//go:build unix

package sandbox

import (
	"os"
	"os/exec"
	"syscall"
)

// sigXCPU is the signal of an exceeded CPU-time rlimit.
const sigXCPU = syscall.SIGXCPU

// ownGroup starts cmd in a process group of its own, so that killGroup
// reaches everything it starts; with user set, as uid and gid.
func ownGroup(cmd *exec.Cmd, user bool, uid, gid int) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if user {
		cmd.SysProcAttr.Credential = &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}
	}
}

// killGroup kills p's process group.
func killGroup(p *os.Process) {
	syscall.Kill(-p.Pid, syscall.SIGKILL)
}
