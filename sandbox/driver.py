# The interpreter side of package sandbox: a small kernel that runs cells.
#
# Started as `python3 -I -B -u -c DRIVER CONFIG_JSON`. Three file
# descriptors carry everything, so the same protocol works through bwrap,
# docker and a bare process:
#   stdin   requests from Go, one JSON object a line (moved to a private fd;
#           the user's fd 0 is /dev/null)
#   stdout  replies to Go, one JSON object a line (moved to a private fd)
#   stderr  the user's output: fd 1 and fd 2 both point here, so prints,
#           tracebacks and subprocesses' output interleave as written. Each
#           cell's output ends with the marker Go sent in the request.
import ast
import builtins
import errno
import json
import linecache
import os
import resource
import sys
import traceback
import types


def main():
    cfg = json.loads(sys.argv[1])
    requests = os.fdopen(os.dup(0), "rb")
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    ctl = os.fdopen(os.dup(1), "wb", buffering=0)
    out = os.dup(2)
    os.dup2(2, 1)

    def reply(**msg):
        ctl.write(json.dumps(msg).encode() + b"\n")

    if cfg.get("memory"):
        resource.setrlimit(resource.RLIMIT_DATA, (cfg["memory"], cfg["memory"]))
    if cfg.get("processes"):
        resource.setrlimit(resource.RLIMIT_NPROC, (cfg["processes"], cfg["processes"]))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    set_cpu(cfg.get("start_cpu", 0))

    error = ""
    for name in cfg.get("preload", []):
        try:
            __import__(name)
        except BaseException as e:  # an import can raise anything
            error = error or "import %s: %s: %s" % (name, type(e).__name__, e)
    versions = {"python": sys.version.split()[0]}
    for name in ("pandas", "numpy"):
        try:
            versions[name] = version(name)
        except BaseException as e:
            error = error or "import %s: %s: %s" % (name, type(e).__name__, e)
    if cfg.get("memory") and cfg.get("mappings"):
        # Shared mappings (mmap(-1, n), /dev/zero, SysV segments) are not
        # data: the address space bounds them, over what is mapped now
        # that is not data (the code loaded).
        status = vm_status()
        code = (status["VmSize"] - status["VmData"]) * 1024
        limit = cfg["memory"] + code + cfg["mappings"]
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    reply(ready=True, error=error, **versions)

    user = types.ModuleType("__main__")
    user.__dict__["__builtins__"] = builtins
    sys.modules["__main__"] = user
    cells = 0

    while True:
        line = requests.readline()
        if not line:
            return
        req = json.loads(line)
        op = req.get("op")
        if op == "files":
            try:
                for name, target in req["links"]:
                    os.symlink(target, name)
                reply(ok=True)
            except OSError as e:
                reply(ok=False, error=str(e))
        elif op == "exec":
            cells += 1
            set_cpu(req.get("cpu", 0))
            restore_streams(out)
            limit, full = run_cell(cells, req["code"], user.__dict__)
            for f in (sys.stdout, sys.stderr):
                try:
                    f.flush()
                except BaseException:
                    pass
            write_all(out, req["marker"].encode())
            reply(done=req["marker"], limit=limit, full=full)
        else:
            reply(ok=False, error="unknown op %r" % op)


def vm_status():
    """The VmSize and VmData lines of /proc/self/status, in KiB."""
    status = {}
    with open("/proc/self/status") as f:
        for line in f:
            key, _, value = line.partition(":")
            if key in ("VmSize", "VmData"):
                status[key] = int(value.split()[0])
    return status


def version(name):
    """A module's version, without importing it when it is not loaded."""
    mod = sys.modules.get(name)
    if mod is not None:
        return mod.__version__
    import importlib.metadata
    import importlib.util

    if importlib.util.find_spec(name) is None:
        raise ModuleNotFoundError("No module named %r" % name)
    try:
        return importlib.metadata.version(name)
    except importlib.metadata.PackageNotFoundError:
        return __import__(name).__version__


def restore_streams(out):
    """Gives a cell working stdout and stderr when an earlier one closed
    descriptors 1 or 2 or set sys.stdout or sys.stderr to None or closed
    them (a redirection that works is kept)."""
    for fd in (1, 2):
        try:
            os.fstat(fd)
        except OSError:
            os.dup2(out, fd)
    for name in ("stdout", "stderr"):
        f = getattr(sys, name)
        if f is None or getattr(f, "closed", False):
            setattr(sys, name, getattr(sys, "__%s__" % name))


def set_cpu(seconds):
    """Lets this process use `seconds` more CPU seconds from now (SIGXCPU after)."""
    if not seconds:
        return
    use = resource.getrusage(resource.RUSAGE_SELF)
    soft = int(use.ru_utime + use.ru_stime) + 1 + int(seconds)
    hard = resource.getrlimit(resource.RLIMIT_CPU)[1]
    if hard != resource.RLIM_INFINITY:
        soft = min(soft, hard)
    resource.setrlimit(resource.RLIMIT_CPU, (soft, hard))


def run_cell(n, code, ns):
    """Runs one cell as Jupyter does: statements, then the value of a final
    expression shown by sys.displayhook. Returns the limit an uncaught
    exception stands for ("" when none) and whether it was a full tmpfs."""
    name = "<cell %d>" % n
    linecache.cache[name] = (len(code), None, code.splitlines(True), name)
    try:
        tree = ast.parse(code, name, "exec")
        last = None
        if tree.body and isinstance(tree.body[-1], ast.Expr):
            last = ast.Expression(tree.body.pop().value)
        body = compile(tree, name, "exec")
        tail = compile(last, name, "eval") if last is not None else None
    except BaseException as e:  # SyntaxError, ValueError (NUL bytes), MemoryError
        show(e, None)
        return classify(e)
    try:
        exec(body, ns)
        if tail is not None:
            value = eval(tail, ns)
            if value is not None:
                sys.displayhook(value)
        return "", False
    except BaseException as e:
        show(e, e.__traceback__.tb_next)
        return classify(e)


def show(e, tb):
    try:
        traceback.print_exception(type(e), e, tb)
    except BaseException:
        try:
            os.write(2, ("%s: %s\n" % (type(e).__name__, e)).encode("utf-8", "replace"))
        except BaseException:
            pass


def classify(e):
    """The limit an exception stands for, and whether it is a full tmpfs
    (files count against the memory limit)."""
    seen = 0
    while e is not None and seen < 10:
        if isinstance(e, MemoryError):
            return "memory", False
        if isinstance(e, OSError) and e.errno == errno.ENOMEM:
            return "memory", False  # a mapping over the address space limit
        if isinstance(e, OSError) and e.errno in (errno.ENOSPC, errno.EDQUOT):
            return "memory", True
        if isinstance(e, OSError) and e.errno == errno.EAGAIN:
            return "processes", False
        if isinstance(e, RuntimeError) and "can't start new thread" in str(e):
            return "processes", False
        e = e.__cause__ or e.__context__
        seen += 1
    return "", False


def write_all(fd, data):
    while data:
        data = data[os.write(fd, data):]


main()
