// Package sandbox runs model-written Python safely: Debian's Python with
// pandas and numpy, in a persistent interpreter per question (state kept
// between calls, as in a Jupyter kernel), confined by bubblewrap, with
// limits on time, memory, CPU, processes and output, and interpreters
// started ahead of time so that a question starts in milliseconds.
//
//	p, err := sandbox.NewPool(ctx, sandbox.Config{})  // checks bwrap, python3, pandas
//	v := p.Versions()                                 // record with the outputs
//	s, err := p.Open(ctx, []string{"data/x.csv"})     // x.csv, read-only, in the working directory
//	r, err := s.Exec(ctx, "import pandas as pd\ndf = pd.read_csv('x.csv')\ndf.shape")
//	// r.Output == "(3, 2)\n"; r.Limit, r.Restarted say whether a limit stopped it
//	s.Close(); p.Close()
//
// A Session (Pool.Open, Pool.OpenWith) is one question's interpreter with
// its files, its state kept from call to call until Close. Pool.Run is the
// one-shot mode (a fresh interpreter, one call). Config.RunScript runs a
// sheet's grader program once so (an interpreter of its own, nothing
// imported ahead, the program a child process: the grade package's
// script grader). Check is NewPool and Close: call it before any model
// call, and a missing bubblewrap, Python or pandas is one error naming
// the Debian packages (AptPackages).
//
// # The interpreter
//
// Each interpreter runs driver.py (embedded) under /usr/bin/python3 -I -B
// -u. Requests (JSON lines) arrive on stdin, replies leave on stdout, and
// the user's stdout and stderr both go to one pipe, so prints, tracebacks
// and subprocesses' output interleave as written; the driver moves its
// protocol pipes to private descriptors and gives the user /dev/null as
// stdin. A cell runs as in Jupyter: statements, then the value of a final
// expression through sys.displayhook; an uncaught exception prints its
// traceback (with the cell's own lines). A cell that closed descriptor 1
// or 2, or set sys.stdout or sys.stderr to None, does not silence the next
// one: the driver restores them first. Each call's output ends with a
// random marker, so output from the call and the driver's "done" reply are
// matched without relying on timing (a forged reply, or code reading the
// request pipe, costs at most that call: tested). Three descriptors and
// nothing else is why the same driver runs under bwrap, docker and a bare
// process.
//
// Output is kept head and tail within Config.OutputCap (16 KiB): a model
// sees the start and the end (where tracebacks are) with a line saying which
// bytes were left out. More than Config.MaxOutput (8 MiB) in one call stops
// it: a loop printing for ever would otherwise run to the time limit.
//
// # Limits
//
// A call that hits a limit is stopped by killing its interpreter, and the
// Result says which limit and that the state is lost; the next call in the
// session gets a fresh interpreter with the same files. Result.Limit is
// one of LimitTimeout, LimitMemory, LimitCPU, LimitProcesses and
// LimitOutput, whose strings are what output files record.
//   - Timeout (180 s): a timer in Go; the kill takes bwrap's process group,
//     and with it the sandbox's PID namespace (--die-with-parent on its
//     init), so children, setsid'd ones included, die too (tested).
//   - Memory (2 GiB): everything an interpreter holds counts against it:
//     heap and private mappings (numpy arrays), shared mappings, and files.
//     RLIMIT_DATA (Memory), set by the driver before it imports anything,
//     counts heap and private mappings but not shared libraries, so it
//     tracks what code allocates (after importing pandas: 180 MB of data,
//     266 MB of address space). Shared mappings (mmap(-1, n), /dev/zero)
//     are not data: RLIMIT_AS bounds them, set once Preload is imported to
//     Memory plus the address space then mapped that is not data (the
//     code) plus 128 MiB (later imports' libraries: scipy and sklearn take
//     40 MiB). glibc gets one malloc arena (MALLOC_ARENA_MAX=1), since each
//     further one reserves 64 MiB of address space. The three tmpfs take
//     their sizes from Memory: the working directory a quarter, /tmp and
//     /dev/shm an eighth each. memfd_create and SysV shmget, which would
//     hold memory that none of these counts, fail with EPERM (a seccomp
//     filter given to bwrap, amd64 and arm64). So one interpreter holds at
//     most 1.5 x Memory + 128 MiB (tested at 256 MiB: 496 MiB). A
//     MemoryError, a failed mapping (ENOMEM) or a full tmpfs (ENOSPC)
//     reaching the top of a cell is reported as the memory limit, the
//     output saying which. No cgroup is used (none that is delegated to an
//     unprivileged user can be counted on), so rlimits are per process: a
//     cell's child processes (up to Processes) may each hold as much.
//   - CPUTime (= Timeout): RLIMIT_CPU, moved forward by the driver before
//     each call; SIGXCPU ends the interpreter. It matters for threaded code,
//     which can use more CPU than wall time.
//   - Processes (128): RLIMIT_NPROC, processes and threads. It counts per
//     user namespace (Linux 5.14 and later; before, per host uid, so all
//     sandboxes would share it). OpenBLAS starts a thread per core when
//     numpy is imported: on a machine with more than about 100 cores, pass
//     OPENBLAS_NUM_THREADS (the only host variables passed in) or raise it.
//
// A call cancelled through its context kills the interpreter too. Nothing
// waits without a bound: starts (Config.StartTimeout), requests and kills
// all have one.
//
// # Isolation (bubblewrap)
//
// Backend Bwrap, the default, confines each interpreter with bubblewrap.
// bwrap --unshare-all gives new user, mount, PID, network, IPC, UTS and
// cgroup namespaces. The network namespace has only its own loopback, so
// even services on the host's 127.0.0.1 are out of reach. The file system
// is an explicit allowlist, read-only: /usr (and /bin, /sbin, /lib* as its
// symlinks), /etc/alternatives and /etc/ld.so.cache, then a new /proc and
// /dev, fresh tmpfs at /tmp, /dev/shm and the working directory /work, and
// the root itself remounted read-only. No /home, /root, host /tmp, project
// tree or the rest of /etc is there.
//
// Code runs as uid 1000 in a new user namespace with every capability
// dropped (--unshare-user --uid 1000 --cap-drop ALL) and no nested user
// namespaces (--disable-userns), so mount, remount and unshare fail. When
// this process is root (developers and CI), bwrap run as root would map the
// sandbox's uid to host root: root-owned files would be the sandbox's own,
// and RLIMIT_NPROC would not apply (the kernel exempts root). So bwrap
// itself runs as Config.HostUID (nobody): the sandbox is an unprivileged
// host user, and the tests check this from the host's /proc.
//
// # Files
//
// A session's files appear in the working directory under their base
// names, read-only. Interpreters are started before their files are known,
// so each gets an empty host staging folder bound read-only at /input when
// it starts; when a session claims it, the files are hard-linked into that
// folder (copied when the link fails, across file systems, or when the file
// is not world-readable, since the sandbox's host uid must read it) and the
// driver symlinks /input/NAME into /work. A write through the link meets
// the read-only mount ("Read-only file system"), whatever the file's mode.
// Staging folders are 0711 inside a 0711 folder: nobody can list them.
//
// # Warm pool and the in-flight limit
//
// Starting bwrap and python3 takes tens of milliseconds; importing pandas
// takes 0.5 to 3.5 s (idle to loaded machine). Config.Warm interpreters
// (default: MaxInFlight) are kept started with Config.Preload (numpy,
// pandas) imported; a session takes one and a replacement starts at once.
// Measured at load average 30 on 2 cores (BENCHMARKS.md): a question start
// with a warm interpreter (Open with a file, then a first pandas call) is
// 31-37 ms against 3.4 s cold; a call's own overhead is under 1 ms. Each
// warm interpreter holds about 65 MB resident. Without Preload, a start
// only looks up pandas' and numpy's versions (importlib.metadata), so a
// pool that imports nothing ahead starts fast and still checks them. A session's interpreter is
// never reused by another session. The tmpfs sizes are fixed when an
// interpreter starts, so warm interpreters are started with the memory
// limit of the last session opened (Limits.Memory, a question's
// tool_memory): a session with another one waits for a start, and the
// questions after it find warm ones. Config.MaxInFlight (default: the number
// of cores) caps open sessions apart from the run's request concurrency:
// each may use Memory, and 2 GiB times ten is more than a small machine
// has. A failed start is handed to the waiting session as an error, so
// nobody waits for an interpreter that will not come. More sessions opened
// at once than there are warm interpreters wait for starts: the warm pool
// pays off when questions last longer than a start, as an agent's do.
//
// bwrap's --die-with-parent uses PR_SET_PDEATHSIG, tied to the OS thread
// that started bwrap; the Go runtime ends threads only for goroutines that
// exit while locked to one, which this package never does.
//
// # Docker and none
//
// Backend Docker runs the same driver in `docker run --rm -i --init
// --network none --read-only --cap-drop ALL --security-opt
// no-new-privileges --user 1000:1000 --memory --pids-limit` with tmpfs at
// /tmp and /work and the staging folder mounted read-only at /input;
// Config.Image (DefaultImage, built from this package's Dockerfile) must
// have /usr/bin/python3 with pandas. A stopped call is `docker kill`ed.
// Backend None runs the driver on the host in a temporary working folder,
// with the rlimits and nothing else: the code runs as this process's user,
// so it can read and change that user's files and read this process's
// environment, API keys included, from /proc; every NewPool warns so.
package sandbox
