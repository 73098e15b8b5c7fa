"""The launcher: runs one whole program once per input, inside the sandbox, with limits from outside.

A compiled binary cannot be trusted to limit itself, so the limits are set here, in the forked
process, before ``exec``: CPU seconds, address space, a 256 MiB stack, file size, no core dumps,
processes; the launcher kills the run's process group at twice the CPU limit of wall clock, or as
soon as it writes more than the output cap. It reports how the run ended (exit code or signal, CPU
and wall seconds, peak memory from ``wait4``), what it printed (bounded; never parsed, only
counted), and the ends of its stderr. One launcher serves one program for a whole search (the
sandbox is started once, not per input); Python scripts are compiled once and run from a fork of
the launcher as ``__main__`` (the interpreter starts once) unless a fresh interpreter is asked for.

Started by :mod:`divergent.sandbox.process_runner` (``launcher LIMITS``); speaks the kit's protocol
(:mod:`.kit`). Like every child it imports only the standard library and the kit. Commands::

    ("setup", {"mode": "exec" | "python", "argv": [...], "script": path, "limits": {...}})
        → {"ok": true} | {"ok": false, "error": "..."}
    ("run", {"jobs": [{"stdin": bytes, "args": [...], "files": {name: bytes}, "keep": bool}],
             "indices": [...], "deadline": seconds | None})
        → one {"i": index, "r": result} per job, then {"done": true, "stopped": bool}

``limits``: ``cpu`` and ``wall`` seconds, ``memory`` (bytes of address space, 0: none; Java's JVM
limits its own heap), ``memory_limit`` (bytes, to recognise a run past its memory), ``stack``,
``file``, ``output`` (the stdout cap, bytes), ``stderr`` (bytes kept of each end), ``processes``
(the ``RLIMIT_NPROC`` of a run: what the user runs already plus the run's share; 0: none).

A result: ``k`` (kind: ok, runtime-error, timeout, memory-limit, output-limit), ``o`` (stdout, as
text: invalid UTF-8 shown as ``\\xNN``), ``x`` (exit code or None), ``g`` (signal name or None), ``c``
(CPU seconds), ``w`` (wall seconds), ``m`` (peak resident KiB), ``e`` (stderr, its head and tail),
``d`` (what happened, for failures).

Each run has its own process group, a fresh ``run/`` working directory (emptied after the run
unless ``keep``), and the launcher is a child subreaper, so processes a run leaves behind are found
and killed before the next run starts.

The launcher cannot be taken over by what it runs: it is non-dumpable (a run can neither open its
``/proc/PID/mem`` or ``/proc/PID/fd`` nor take a descriptor with ``pidfd_getfd`` nor read it with
``process_vm_readv``; ``ptrace`` is denied by the filter besides), it is PID 1 of the sandbox's PID
namespace where the sandbox gives one (the kernel drops a signal from inside the namespace to its
init unless the init handles it, and the launcher handles none: a run can neither stop nor kill
it), and a run's process closes every descriptor but 0, 1 and 2 before the program starts.

Where divergent could make one, the settings name a memory cgroup of the run limit
(``run_cgroup``: descriptors of its ``cgroup.procs``, ``memory.oom_control`` and
``memory.max_usage_in_bytes``, opened by divergent): each run's process joins it before anything
else, so the run's whole family (forks, a JVM's native memory, files in the tmpfs) counts against
the limit, and a run in which the kernel killed a process for memory is ``memory-limit``.
"""

from __future__ import annotations

import builtins
import contextlib
import ctypes
import gc
import math
import os
import resource
import select
import shutil
import signal
import sys
import time
import traceback
import types

from divergent.sandbox.child.kit import Channel, allow_inspection, forbid_inspection, start_child

#: how ``memory-limit`` is recognised besides the peak memory (docs/programs.md)
_MEMORY_WORDS = (
    b"std::bad_alloc",
    b"MemoryError",
    b"java.lang.OutOfMemoryError",
    b"Cannot allocate memory",
    b"out of memory",
)
#: a run whose peak resident memory reaches this share of the limit and fails is memory-limit
_NEAR_LIMIT = 0.9
_READ = 1 << 16
_PR_SET_CHILD_SUBREAPER = 36
_RUN_DIR = "run"


def _set_subreaper() -> None:
    """Orphans of a run become the launcher's children, so they can be found and killed."""
    with contextlib.suppress(OSError, AttributeError):
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"


class Launcher:
    def __init__(self, channel: Channel, run_cgroup: list[int] | None = None) -> None:
        self.channel = channel
        #: descriptors of the runs' memory cgroup: (cgroup.procs, memory.oom_control,
        #: memory.max_usage_in_bytes), or None without one
        self.run_cgroup = tuple(run_cgroup) if run_cgroup else None
        self.mode = ""
        self.argv: list[str] = []
        self.script = ""
        self.code: types.CodeType | None = None
        self.limits: dict = {}
        self.run_dir = os.path.abspath(_RUN_DIR)
        os.makedirs(self.run_dir, exist_ok=True)
        self.environment = dict(os.environ)
        # The directory divergent's own package was put on sys.path from: a script must not see it.
        here = os.path.dirname(os.path.abspath(__file__))
        self.package_root = os.path.dirname(os.path.dirname(os.path.dirname(here)))

    # -- commands ---------------------------------------------------------------------------------

    def serve(self) -> None:
        while True:
            message = self.channel.receive()
            if message is None:
                return
            command, payload = message
            if command == "setup":
                self.setup(payload)
                gc.freeze()  # what the launcher holds now stays shared with every run's fork
            elif command == "run":
                self.run(payload)
            elif command == "ping":
                self.channel.send({"ok": True})
            else:
                self.channel.send({"ok": False, "error": f"unknown command {command!r}"})

    def setup(self, payload: dict) -> None:
        if payload.get("run_dir"):
            # a directory of the host's, bound writable for this launcher (a build's output)
            self.run_dir = payload["run_dir"]
            os.makedirs(self.run_dir, exist_ok=True)
        self.mode = payload["mode"]
        self.argv = list(payload.get("argv", ()))
        self.script = payload.get("script", "")
        self.limits = dict(payload["limits"])
        if self.mode == "python":
            if not os.path.isfile(self.script):
                self.channel.send({"ok": False, "error": f"no script at {self.script}"})
                return
            # Compiled now, once (compiling runs nothing): every run's fork executes the code object.
            # The parent checked the syntax; a source the compiler cannot take fails in each run.
            try:
                with open(self.script, "rb") as handle:
                    self.code = compile(handle.read(), self.script, "exec", dont_inherit=True)
            except (SyntaxError, ValueError, MemoryError, RecursionError, OSError):
                self.code = None
            import threading  # noqa: F401 - loaded once: scripts often use it
        elif self.mode == "exec":
            if not self.argv or not os.access(self.argv[0], os.X_OK):
                self.channel.send({"ok": False, "error": f"cannot execute {self.argv[:1]}"})
                return
        else:
            self.channel.send({"ok": False, "error": f"unknown mode {self.mode!r}"})
            return
        self.channel.send({"ok": True})

    def run(self, payload: dict) -> None:
        deadline = payload.get("deadline")
        stop_at = None if deadline is None else time.monotonic() + float(deadline)
        stopped = False
        for index, job in zip(payload["indices"], payload["jobs"], strict=True):
            if stop_at is not None and time.monotonic() >= stop_at:
                stopped = True
                break
            self.channel.send({"i": index, "r": self.run_one(job)})
        self.channel.send({"done": True, "stopped": stopped})

    # -- one run ----------------------------------------------------------------------------------

    def run_one(self, job: dict) -> dict:
        limits = self.limits
        for name, data in (job.get("files") or {}).items():
            _write_file(self.run_dir, name, data)
        stdin = os.memfd_create("stdin", os.MFD_CLOEXEC)
        _write_all(stdin, job.get("stdin", b""))
        os.lseek(stdin, 0, os.SEEK_SET)
        out_read, out_write = os.pipe2(os.O_CLOEXEC)
        err_read, err_write = os.pipe2(os.O_CLOEXEC)
        args = list(job.get("args", ()))
        kills_before = self._memory_kills()
        if self.run_cgroup is not None:
            with contextlib.suppress(OSError):
                os.write(self.run_cgroup[2], b"0")  # the peak starts again from here
        started = time.monotonic()
        pid = self._fork()
        if pid == 0:
            self._child(stdin, out_write, err_write, args)  # never returns
        os.close(out_write)
        os.close(err_write)
        os.close(stdin)
        try:
            result = self._watch(pid, out_read, err_read, started, limits)
            if self._memory_kills() > kills_before and result["k"] not in ("output-limit", "timeout"):
                result.update(k="memory-limit", x=None, g=None, d=(
                    f"the run's processes together went past the {int(limits['memory_limit']) >> 20} MiB "
                    "memory limit (one was killed)"))
        finally:
            os.close(out_read)
            os.close(err_read)
            self._sweep(pid)
            if not job.get("keep"):
                self._empty_run_dir()
        return result

    def _memory_kills(self) -> int:
        """How many processes the kernel has killed in the runs' memory cgroup so far (0 without one)."""
        if self.run_cgroup is None:
            return 0
        try:
            text = os.pread(self.run_cgroup[1], 4096, 0)
            return int(text.split(b"oom_kill ", 1)[1].split()[0])
        except (OSError, IndexError, ValueError):
            return 0

    def _fork(self) -> int:
        """``os.fork``, retried while the process cap is full (what a run left behind is being
        killed); a launcher that cannot fork at all dies, which the parent reports as a crash."""
        for _ in range(50):
            try:
                return os.fork()
            except (BlockingIOError, MemoryError, OSError):
                self._kill_orphans()
                time.sleep(0.01)
        return os.fork()

    def _child(self, stdin: int, out_write: int, err_write: int, args: list[str]) -> None:
        """In the fork: the limits, the descriptors, then the program. Never returns."""
        try:
            if self.run_cgroup is not None:
                # before anything else: every process of the run is counted from its start
                os.write(self.run_cgroup[0], b"0")
            os.setpgid(0, 0)
            os.dup2(stdin, 0)
            os.dup2(out_write, 1)
            os.dup2(err_write, 2)
            os.closerange(3, 1 << 16)
            os.chdir(self.run_dir)
            for number in (signal.SIGINT, signal.SIGPIPE, signal.SIGXFSZ, signal.SIGXCPU):
                signal.signal(number, signal.SIG_DFL)
            _apply_run_limits(self.limits)
            if self.mode == "exec":
                os.execve(self.argv[0], [*self.argv, *args], self.environment)
            else:
                # as the interpreter sets them at start-up
                signal.signal(signal.SIGPIPE, signal.SIG_IGN)
                signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
                signal.signal(signal.SIGINT, signal.default_int_handler)
                allow_inspection()  # as `python script.py` is: its own /proc entries are its own
                os._exit(self._python(args))
        except BaseException as error:  # noqa: BLE001 - the fork must never return into the launcher
            with contextlib.suppress(BaseException):
                os.write(2, f"divergent launcher: cannot start the program: {error}\n".encode())
            os._exit(127)
        os._exit(127)

    def _python(self, args: list[str]) -> int:
        """Run the script as ``python script.py ARGS`` would, in this fork of the launcher."""
        import atexit
        import threading

        sys.stdin = sys.__stdin__ = open(0, encoding="utf-8", closefd=False)  # noqa: SIM115
        sys.stdout = sys.__stdout__ = open(1, "w", encoding="utf-8", closefd=False)  # noqa: SIM115
        sys.stderr = sys.__stderr__ = open(  # noqa: SIM115
            2, "w", encoding="utf-8", errors="backslashreplace", closefd=False, buffering=1
        )
        sys.argv = [self.script, *args]
        # As `python script.py` sees it: the script's directory first, not the entry the launcher's
        # bootstrap put first (divergent's own package root) nor the current directory of `-c`.
        inherited = sys.path[1:] if sys.path and sys.path[0] == self.package_root else sys.path
        sys.path[:] = [os.path.dirname(os.path.abspath(self.script)), *(p for p in inherited if p)]
        sys.setrecursionlimit(1000)
        atexit._clear()
        # The script's module, as `python script.py` makes it.
        main = types.ModuleType("__main__")
        main.__file__ = self.script
        main.__cached__ = None
        main.__builtins__ = builtins
        sys.modules["__main__"] = main
        code = 0
        try:
            if self.code is None:
                with open(self.script, "rb") as handle:
                    self.code = compile(handle.read(), self.script, "exec", dont_inherit=True)
            exec(self.code, main.__dict__)
        except SystemExit as exit_:
            code = _exit_status(exit_.code)
        except BaseException:  # noqa: BLE001 - the script's uncaught exception: Python's behaviour
            traceback.print_exc()
            code = 1
        try:
            threading._shutdown()  # non-daemon threads run to their end, as at interpreter exit
        except BaseException:  # noqa: BLE001
            traceback.print_exc()
        try:
            atexit._run_exitfuncs()
        except BaseException:  # noqa: BLE001
            pass
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except BaseException:  # noqa: BLE001 - Python exits 120 when it cannot flush
                code = code or 120
        return code

    def _watch(self, pid: int, out_read: int, err_read: int, started: float, limits: dict) -> dict:
        cap = int(limits["output"])
        kept_err = int(limits["stderr"])
        wall = float(limits["wall"])
        output = bytearray()
        err_head = bytearray()
        err_tail = bytearray()
        err_total = 0
        verdict = ""
        pidfd = os.pidfd_open(pid)
        poller = select.poll()
        open_fds = {out_read, err_read}
        for fd in open_fds:
            poller.register(fd, select.POLLIN)
        poller.register(pidfd, select.POLLIN)
        exited = False
        try:
            while open_fds or not exited:
                remaining = started + wall - time.monotonic()
                if remaining <= 0:
                    verdict = "wall"
                    break
                for fd, _event in poller.poll(remaining * 1000):
                    if fd == pidfd:
                        exited = True
                        poller.unregister(pidfd)
                        continue
                    chunk = os.read(fd, _READ)
                    if not chunk:
                        poller.unregister(fd)
                        open_fds.discard(fd)
                    elif fd == out_read:
                        output += chunk
                        if len(output) > cap:
                            verdict = "output"
                    else:
                        err_total += len(chunk)
                        if len(err_head) < kept_err:
                            err_head += chunk[: kept_err - len(err_head)]
                        err_tail = (err_tail + chunk)[-kept_err:]
                if verdict:
                    break
                if exited and open_fds:
                    # The program ended but something it started holds its pipes: give that a
                    # moment to finish writing, then it dies with the run's process group.
                    open_fds = self._drain_after_exit(poller, open_fds, out_read, output, cap, started + wall)
                    if len(output) > cap:
                        verdict = "output"
                    break
        finally:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(pid, signal.SIGKILL)
            os.close(pidfd)
        _, status, usage = os.wait4(pid, 0)
        seconds = time.monotonic() - started
        cpu = usage.ru_utime + usage.ru_stime
        stderr = bytes(err_head)
        if err_total > len(err_head):
            stderr += b"\n...\n" + bytes(err_tail[-max(0, min(kept_err, err_total - len(err_head))):])
        return _classify(status, verdict, bytes(output[:cap]), stderr, cpu, seconds, usage.ru_maxrss, limits)

    def _drain_after_exit(self, poller: select.poll, open_fds: set[int], out_read: int, output: bytearray,
                          cap: int, wall_end: float) -> set[int]:
        until = min(wall_end, time.monotonic() + 0.05)
        while open_fds and time.monotonic() < until and len(output) <= cap:
            for fd, _event in poller.poll(max(0.0, until - time.monotonic()) * 1000):
                chunk = os.read(fd, _READ)
                if not chunk:
                    poller.unregister(fd)
                    open_fds.discard(fd)
                elif fd == out_read:
                    output += chunk
        return open_fds

    def _sweep(self, pgid: int) -> None:
        """Kill what the run left behind: its process group, then orphans reparented to the
        launcher (processes that left the group with ``setsid``)."""
        for _ in range(100):
            try:
                os.killpg(pgid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                break
            self._reap()
            time.sleep(0.001)
        if self._reap():
            self._kill_orphans()

    @staticmethod
    def _reap() -> bool:
        """Reap the children that ended; whether any child is still alive."""
        while True:
            try:
                child, _status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                return False
            if child == 0:
                return True

    def _kill_orphans(self) -> None:
        """Kill every child of the launcher (orphans that left the run's group with ``setsid``)."""
        me = str(os.getpid())
        for _ in range(20):
            killed = False
            with contextlib.suppress(OSError):
                for entry in os.listdir("/proc"):
                    if not entry.isdigit():
                        continue
                    try:
                        with open(f"/proc/{entry}/stat", "rb") as handle:
                            fields = handle.read().rsplit(b")", 1)[1].split()
                    except OSError:
                        continue
                    if fields[1].decode() == me:
                        with contextlib.suppress(OSError):
                            os.kill(int(entry), signal.SIGKILL)
                            killed = True
            time.sleep(0.001)
            self._reap()
            if not killed:
                return

    def _empty_run_dir(self) -> None:
        try:
            entries = os.listdir(self.run_dir)
        except OSError:
            entries = []
        for entry in entries:
            path = os.path.join(self.run_dir, entry)
            if os.path.isdir(path) and not os.path.islink(path):
                shutil.rmtree(path, ignore_errors=True)
            else:
                with contextlib.suppress(OSError):
                    os.unlink(path)


def _write_file(root: str, name: str, data: bytes) -> None:
    """Write a job's file at its relative path under ``root`` (a source and its declared files),
    never through a link a run left there."""
    parts = [part for part in name.split("/") if part not in ("", ".")]
    if not parts or ".." in parts:
        raise ValueError(f"a job's file outside its directory: {name!r}")
    directory = root
    for part in parts[:-1]:
        directory = os.path.join(directory, part)
        if os.path.islink(directory):
            os.unlink(directory)
        os.makedirs(directory, exist_ok=True)
    path = os.path.join(directory, parts[-1])
    if os.path.islink(path):
        os.unlink(path)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644)
    try:
        _write_all(fd, data)
    finally:
        os.close(fd)


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def _exit_status(code: object) -> int:
    """The exit status ``sys.exit(code)`` gives: None → 0, an int as is, anything else printed → 1."""
    if code is None:
        return 0
    if isinstance(code, int):
        return code & 0xFF
    with contextlib.suppress(BaseException):
        print(code, file=sys.stderr)
    return 1


def _apply_run_limits(limits: dict) -> None:
    def lower(which: int, value: int) -> None:
        _soft, hard = resource.getrlimit(which)
        if hard != resource.RLIM_INFINITY:
            value = min(value, hard)
        with contextlib.suppress(ValueError, OSError):
            resource.setrlimit(which, (value, value))

    cpu = max(1, math.ceil(float(limits["cpu"])))
    _soft, hard = resource.getrlimit(resource.RLIMIT_CPU)
    with contextlib.suppress(ValueError, OSError):
        resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1 if hard == resource.RLIM_INFINITY else min(hard, cpu + 1)))
    if int(limits["memory"]) > 0:
        lower(resource.RLIMIT_AS, int(limits["memory"]))
    lower(resource.RLIMIT_FSIZE, int(limits["file"]))
    lower(resource.RLIMIT_CORE, 0)
    with contextlib.suppress(ValueError, OSError):
        _soft, hard = resource.getrlimit(resource.RLIMIT_STACK)
        stack = int(limits["stack"])
        if hard != resource.RLIM_INFINITY:
            stack = min(stack, hard)
        resource.setrlimit(resource.RLIMIT_STACK, (stack, hard))
    # RLIMIT_NPROC counts every process and thread of the user across the machine: the parent
    # counted them (a PID namespace hides them from here) and sent the cap. Root is exempt (the
    # sandbox's pids cgroup caps it there).
    processes = int(limits.get("processes", 0))
    if processes > 0 and os.getuid() != 0:
        lower(resource.RLIMIT_NPROC, processes)


def _classify(status: int, verdict: str, output: bytes, stderr: bytes, cpu: float, seconds: float,
              peak_kb: int, limits: dict) -> dict:
    """The run's outcome from how it ended (the heuristics for memory: docs/programs.md)."""
    exit_code = os.WEXITSTATUS(status) if os.WIFEXITED(status) else None
    signal_name = _signal_name(os.WTERMSIG(status)) if os.WIFSIGNALED(status) else None
    cpu_limit = float(limits["cpu"])
    memory_limit = int(limits["memory_limit"])
    detail = ""
    if verdict == "output":
        kind, detail = "output-limit", f"wrote more than {int(limits['output']):,} bytes"
        exit_code = signal_name = None
    elif verdict == "wall":
        kind, detail = "timeout", f"no end within {float(limits['wall']):g} s of wall clock; killed"
        exit_code = signal_name = None
    elif cpu > cpu_limit or signal_name == "SIGXCPU":
        kind, detail = "timeout", f"{cpu:.2f} s of CPU, over the {cpu_limit:g} s limit"
    elif exit_code == 0:
        kind = "ok"
    elif _past_memory(stderr, peak_kb, memory_limit, signal_name):
        kind, detail = "memory-limit", f"peak {peak_kb // 1024} MiB, limit {memory_limit // (1 << 20)} MiB"
    else:
        kind = "runtime-error"
        if signal_name == "SIGXFSZ":
            detail = f"wrote a file past {int(limits['file']):,} bytes"
        elif signal_name:
            detail = f"killed by {signal_name}"
        else:
            detail = f"exit code {exit_code}"
    return {
        "k": kind,
        "o": _text(output),
        "x": exit_code,
        "g": signal_name,
        "c": round(cpu, 6),
        "w": round(seconds, 6),
        "m": int(peak_kb),
        "e": stderr.decode("utf-8", "backslashreplace"),
        "d": detail,
    }


def _text(data: bytes) -> str:
    """What a run printed, as text: invalid UTF-8 shown as ``\\xNN``, as ``backslashreplace``
    decodes it, but at the speed of the codec even when every byte of 16 MiB is invalid (the
    error handler would be called once per byte: seconds)."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        pass
    if b"\\udc" in data:  # the trick below would also rewrite this text: the slow, exact way
        return data.decode("utf-8", "backslashreplace")
    # surrogateescape maps each invalid byte to U+DC80..U+DCFF; the encoder writes those as \udcNN
    escaped = data.decode("utf-8", "surrogateescape").encode("utf-8", "backslashreplace")
    return escaped.replace(b"\\udc", b"\\x").decode("utf-8")


def _past_memory(stderr: bytes, peak_kb: int, memory_limit: int, signal_name: str | None) -> bool:
    if any(word in stderr for word in _MEMORY_WORDS):
        return True
    if memory_limit and peak_kb * 1024 >= _NEAR_LIMIT * memory_limit:
        return True
    # The kernel's OOM killer (or a cgroup's) ends a process with SIGKILL that nobody sent.
    return signal_name == "SIGKILL" and memory_limit > 0 and peak_kb * 1024 >= 0.5 * memory_limit


def main() -> None:
    channel, settings, _ = start_child()
    forbid_inspection()
    _set_subreaper()
    # fd 0 is /dev/null here and becomes a run's input in its fork: a stream that never closes it
    sys.stdin = open(0, closefd=False)  # noqa: SIM115
    Launcher(channel, settings.get("run_cgroup")).serve()
    os._exit(0)


if __name__ == "__main__":
    main()
