"""The script zygote: a lean interpreter, started once per launcher, from which each run of a Python
script is forked (``python script.py`` without paying the interpreter's start-up per input).

A fork costs what the child then writes of its parent's memory (every page is copied on its first
write) and the parent's page tables: forking the launcher itself (its protocol, its imports)
costs about three times what forking this process does, which holds nothing but the interpreter
as ``python -s`` starts it and the script, compiled once. It is also what ``python script.py``
would see: no module of divergent is loaded here (this file is executed, not imported).

The launcher (:mod:`.spawn`, ``ZygoteStarter``) starts it by ``exec`` inside the sandbox with
``python -s -c`` and these arguments: the descriptor of its end of a ``SOCK_SEQPACKET`` pair, the
script, the run directory, the run limits (CPU seconds, address space, file, stack, processes),
the descriptors of the runs' ``cgroup.procs`` files (comma-separated; "": none), the spawn helper (or ""), and the
launcher's ``sys.path`` entry of divergent (removed from the script's path). The zygote makes
itself non-dumpable first (a run cannot reach its descriptors through ``/proc``), then serves:

* the launcher sends the run's arguments (NUL-separated) with its stdin, stdout and stderr as
  ``SCM_RIGHTS``; the zygote forks, answers the child's pid (4 bytes);
* when the child ended, the launcher asks (any message) and the zygote reaps it and answers its
  wait status, CPU seconds (user, system) and peak memory (KiB): ``struct "<iddq"``.

Nothing a run does can forge these: the zygote is the run's parent, waits for it with ``wait4``
and holds no descriptor a run keeps. A run can kill or stop its zygote (it is no PID 1): the
launcher then waits for the run itself (it becomes the launcher's child) and starts another.
"""

import _signal
import _socket
import atexit
import builtins
import os
import struct
import sys

_REPORT_FORMAT = "<iddq"


def main() -> None:
    (sock_fd, script, run_dir, cpu, memory, file_bytes, stack, processes, procs, helper,
     package_root) = sys.argv[1:12]
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(4, 0, 0, 0, 0)  # PR_SET_DUMPABLE 0: nothing of this process is a run's to read
    limits = [int(cpu), int(memory), int(file_bytes), int(stack), int(processes)]
    cgroups = [int(fd) for fd in procs.split(",") if fd]
    prepare = None
    if helper:
        try:
            prepare = ctypes.CDLL(helper).divergent_prepare_script
        except (OSError, AttributeError):
            prepare = None
    c_limits = (ctypes.c_longlong * 5)(*limits)
    c_cgroups = (ctypes.c_int * max(1, len(cgroups)))(*cgroups)
    c_cwd = os.fsencode(run_dir)
    with open(script, "rb") as handle:
        source = handle.read()
    try:
        code = compile(source, script, "exec", dont_inherit=True)
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        code = None  # the parent checked the syntax: this fails in each run as Python would
    streams = _streams()
    script_path = [os.path.dirname(os.path.abspath(script)),
                   *(entry for entry in sys.path if entry and entry != package_root)]
    sock = _socket.socket(fileno=int(sock_fd))
    del ctypes, handle, source
    import gc

    gc.collect()
    gc.freeze()  # what the zygote holds now stays shared with every fork
    fd_bytes = _socket.CMSG_SPACE(3 * 4)
    while True:
        try:
            message, ancillary, _flags, _address = sock.recvmsg(1 << 16, fd_bytes)
        except OSError:
            os._exit(0)
        if not message:
            os._exit(0)
        fds = [int.from_bytes(data[k : k + 4], sys.byteorder) for level, kind, data in ancillary
               if level == _socket.SOL_SOCKET and kind == _socket.SCM_RIGHTS for k in range(0, len(data) - 3, 4)]
        if len(fds) != 3:
            os._exit(2)
        args = [os.fsdecode(arg) for arg in message[1:].split(b"\0")] if len(message) > 1 else []
        try:
            pid = os.fork()
        except OSError:
            pid = -1
        if pid == 0:
            _child(fds, args, script, code, streams, script_path, prepare, (cgroups, c_cgroups), c_cwd, c_limits, limits,
                   run_dir)
        for fd in fds:
            os.close(fd)
        sock.send(pid.to_bytes(4, sys.byteorder, signed=True))
        if pid < 0:
            continue
        # reaped only when the launcher asks (it watches the run through a pidfd until it ended)
        try:
            sock.recv(16)
        except OSError:
            os._exit(0)
        _, status, usage = os.wait4(pid, 0)
        sock.send(struct.pack(_REPORT_FORMAT, status, usage.ru_utime, usage.ru_stime, usage.ru_maxrss))
        _reap()


def _reap() -> None:
    """Reap the other children that ended (processes a run cloned as this one's: the launcher kills
    the live ones)."""
    while True:
        try:
            if os.waitpid(-1, os.WNOHANG)[0] == 0:
                return
        except ChildProcessError:
            return


def _child(fds: list[int], args: list[str], script: str, code: object, streams: tuple, script_path: list[str],
           prepare: object, cgroups: tuple, c_cwd: bytes, c_limits: object, limits: list[int], run_dir: str) -> None:
    """In the fork: the run's cgroups, descriptors and limits, then the script. Never returns."""
    try:
        if prepare is not None:
            error = prepare(fds[0], fds[1], fds[2], cgroups[1], len(cgroups[0]), c_cwd, c_limits)
            if error:
                os.write(2, f"divergent launcher: cannot start the program: {os.strerror(error)}\n".encode())
                os._exit(127)
        else:
            _prepare_in_python(fds, cgroups[0], run_dir, limits)
        _signal.signal(_signal.SIGINT, _signal.default_int_handler)
        os._exit(_run(args, script, code, streams, script_path))
    finally:
        os._exit(127)


def _prepare_in_python(fds: list[int], cgroups: list[int], run_dir: str, limits: list[int]) -> None:
    """What the spawn helper does in one call, where there is none (no C compiler)."""
    import resource

    for procs in cgroups:
        os.write(procs, b"0")
    os.setpgid(0, 0)
    for target, fd in enumerate(fds):
        os.dup2(fd, target)
    os.closerange(3, 1 << 16)
    os.chdir(run_dir)
    for number in (_signal.SIGPIPE, _signal.SIGXFSZ):
        _signal.signal(number, _signal.SIG_IGN)
    _signal.signal(_signal.SIGXCPU, _signal.SIG_DFL)
    cpu, memory, file_bytes, stack, processes = limits

    def lower(which: int, value: int) -> None:
        _soft, hard = resource.getrlimit(which)
        if hard != resource.RLIM_INFINITY:
            value = min(value, hard)
        try:
            resource.setrlimit(which, (value, value))
        except (ValueError, OSError):
            pass

    _soft, hard = resource.getrlimit(resource.RLIMIT_CPU)
    try:
        resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1 if hard == resource.RLIM_INFINITY else min(hard, cpu + 1)))
    except (ValueError, OSError):
        pass
    if memory > 0:
        lower(resource.RLIMIT_AS, memory)
    lower(resource.RLIMIT_FSIZE, file_bytes)
    lower(resource.RLIMIT_CORE, 0)
    _soft, hard = resource.getrlimit(resource.RLIMIT_STACK)
    try:
        resource.setrlimit(resource.RLIMIT_STACK, (stack if hard == resource.RLIM_INFINITY else min(stack, hard), hard))
    except (ValueError, OSError):
        pass
    if processes > 0 and os.getuid() != 0:
        lower(resource.RLIMIT_NPROC, processes)
    import ctypes

    ctypes.CDLL(None).prctl(4, 1, 0, 0, 0)  # dumpable again, as `python script.py` is


def _streams() -> tuple:
    """The script's ``sys.stdin``, ``sys.stdout``, ``sys.stderr``, made once, before any fork, as
    the interpreter makes them (this interpreter's own encodings and error handlers; lines split at
    "\\n" only; stderr line buffered, ``backslashreplace``), while a memfd and a pipe stand in for
    fds 0, 1, 2: what the streams learn of them (seekable or not) is what a run's are."""
    inside = [(stream.encoding, stream.errors) if stream is not None else ("utf-8", "strict")
              for stream in (sys.__stdin__, sys.__stdout__)]
    (in_encoding, in_errors), (out_encoding, out_errors) = inside
    saved = [os.dup(fd) for fd in (0, 1, 2)]
    stand_in = os.memfd_create("stdin", os.MFD_CLOEXEC)
    reader, writer = os.pipe()
    try:
        os.dup2(stand_in, 0)
        os.dup2(writer, 1)
        os.dup2(writer, 2)
        # these live as long as the zygote, and are the scripts' in its forks
        stdin = open(0, encoding=in_encoding, errors=in_errors, newline="\n", closefd=False)  # noqa: SIM115
        stdout = open(1, "w", encoding=out_encoding, errors=out_errors, newline="\n", closefd=False)  # noqa: SIM115
        stderr = open(2, "w", encoding=out_encoding, errors="backslashreplace", newline="\n",  # noqa: SIM115
                      closefd=False, buffering=1)
    finally:
        for fd, copy in zip((0, 1, 2), saved, strict=True):
            os.dup2(copy, fd)
            os.close(copy)
        for fd in (stand_in, reader, writer):
            os.close(fd)
    return stdin, stdout, stderr


def _run(args: list[str], script: str, code: object, streams: tuple, script_path: list[str]) -> int:
    """Run the script as ``python script.py ARGS`` would: its exit status."""
    sys.stdin, sys.stdout, sys.stderr = sys.__stdin__, sys.__stdout__, sys.__stderr__ = streams
    sys.argv = [script, *args]
    sys.path[:] = script_path
    atexit._clear()
    main = type(sys)("__main__")
    main.__file__ = script
    main.__cached__ = None
    main.__builtins__ = builtins
    sys.modules["__main__"] = main
    status = 0
    try:
        if code is None:
            with open(script, "rb") as handle:
                code = compile(handle.read(), script, "exec", dont_inherit=True)
        exec(code, main.__dict__)
    except SystemExit as exit_:
        status = _exit_status(exit_.code)
    except BaseException as error:  # noqa: BLE001 - the script's uncaught exception, printed as Python does
        status = 1
        try:
            # from the script's own frames (this function's is not one)
            traceback = error.__traceback__
            error.__traceback__ = traceback.tb_next if traceback is not None else None
            sys.__excepthook__(type(error), error, error.__traceback__)
        except BaseException:  # noqa: BLE001
            pass
    threading = sys.modules.get("threading")
    if threading is not None:
        try:
            threading._shutdown()  # non-daemon threads run to their end, as at interpreter exit
        except BaseException as error:  # noqa: BLE001
            try:
                sys.__excepthook__(type(error), error, error.__traceback__)
            except BaseException:  # noqa: BLE001
                pass
    try:
        atexit._run_exitfuncs()
    except BaseException:  # noqa: BLE001
        pass
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except BaseException:  # noqa: BLE001 - Python exits 120 when it cannot flush
            status = status or 120
    return status


def _exit_status(code: object) -> int:
    """The exit status ``sys.exit(code)`` gives: None → 0, an int as is, anything else printed → 1."""
    if code is None:
        return 0
    if isinstance(code, int):
        return code & 0xFF
    try:
        print(code, file=sys.stderr)
    except BaseException:  # noqa: BLE001
        pass
    return 1


if __name__ == "__main__":
    main()
