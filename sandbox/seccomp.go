package sandbox

import (
	"encoding/binary"
	"runtime"
	"syscall"
)

// seccompFilter is the classic BPF program bwrap loads (--seccomp) to
// close the two ways of holding memory that neither rlimits nor tmpfs
// sizes count: memfd_create (a file on the kernel's internal tmpfs, of
// any size) and SysV shmget (segments outlive their mappings, so a loop
// of attach, fill, detach holds any amount). Both fail with EPERM.
// System calls of another ABI (i386's int 0x80, x32 on amd64) fail with
// ENOSYS, so the numbers cannot be dodged. Nil on an architecture whose
// numbers are not listed here: the sandbox then runs without the filter.
func seccompFilter() []byte {
	var arch, memfdCreate, shmget uint32
	switch runtime.GOARCH {
	case "amd64":
		arch, memfdCreate, shmget = 0xc000003e, 319, 29 // AUDIT_ARCH_X86_64
	case "arm64":
		arch, memfdCreate, shmget = 0xc00000b7, 279, 194 // AUDIT_ARCH_AARCH64
	default:
		return nil
	}
	const (
		ldAbs   = 0x20 // BPF_LD | BPF_W | BPF_ABS
		jeq     = 0x15 // BPF_JMP | BPF_JEQ | BPF_K
		jge     = 0x35 // BPF_JMP | BPF_JGE | BPF_K
		ret     = 0x06 // BPF_RET | BPF_K
		allow   = 0x7fff0000
		errno   = 0x00050000
		nrField = 0 // offsetof(struct seccomp_data, nr)
		arField = 4 // offsetof(struct seccomp_data, arch)
		x32Bit  = 0x40000000
	)
	type insn struct {
		code   uint16
		jt, jf uint8
		k      uint32
	}
	prog := []insn{
		{ldAbs, 0, 0, arField},
		{jeq, 0, 5, arch}, // another ABI: 7
		{ldAbs, 0, 0, nrField},
		{jge, 3, 0, x32Bit},      // x32: 7
		{jeq, 3, 0, memfdCreate}, // 8
		{jeq, 2, 0, shmget},      // 8
		{ret, 0, 0, allow},
		{ret, 0, 0, errno | uint32(syscall.ENOSYS)},
		{ret, 0, 0, errno | uint32(syscall.EPERM)},
	}
	b := make([]byte, 0, 8*len(prog))
	for _, in := range prog {
		b = binary.NativeEndian.AppendUint16(b, in.code)
		b = append(b, in.jt, in.jf)
		b = binary.NativeEndian.AppendUint32(b, in.k)
	}
	return b
}
