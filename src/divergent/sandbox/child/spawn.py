"""Starting one run's process inside the launcher: a program by ``exec``, or a Python script in a
fork of the launcher. The limits and the run's memory cgroup are set in the new process before
the program's first instruction (a binary cannot be trusted to limit itself).

A program is started by the spawn helper where divergent could build it (``helpers/spawn.c``, a
shared library in the build cache, loaded here with :mod:`ctypes`): a vfork-like clone that shares
the launcher's memory until ``exec``, so no page of the launcher is copied or made copy-on-write.
Without it (no C compiler on the machine), by :func:`os.fork` and the same steps in Python. Both
leave the run's process in its own process group, with descriptors 0, 1, 2 only, in the run's
directory, with the default signal dispositions, in the run's cgroups (its memory and its CPU
time counted for the whole family). A warm JVM gets a system-call filter besides, installed last:
threads but no new process.
"""

from __future__ import annotations

import array
import contextlib
import ctypes
import os
import select
import signal
import socket
import struct
import sys
from collections.abc import Callable, Sequence
from typing import Any

from divergent.sandbox.child.kit import install_filter
from divergent.sandbox.child.runs import apply_run_limits, run_limit_values

#: the zygote's account of an ended run: wait status, user and system CPU seconds, peak KiB
REPORT = struct.Struct("<iddq")


class Starter:
    """Starts the processes of one program's runs (``argv`` + a job's arguments by ``exec``)."""

    def __init__(self, argv: list[str], environment: dict[str, str], run_dir: str, limits: dict,
                 cgroups: Sequence[int] = (), helper: str | None = None, filter_program: bytes | None = None) -> None:
        """``cgroups``: descriptors of the ``cgroup.procs`` files every run joins first;
        ``filter_program``: a seccomp program installed last, before ``exec``."""
        self.argv = list(argv)
        self.run_dir = run_dir
        self.limits = limits
        self.cgroups = tuple(cgroups)
        self.filter_program = filter_program
        self.environment = environment
        #: called while the process cap is full (the launcher kills what runs left behind)
        self.on_full: Callable[[], None] | None = None
        self._spawn = _load_helper(helper) if helper else None
        if self._spawn is not None:
            self._c_limits = (ctypes.c_longlong * 5)(*run_limit_values(limits))
            self._c_env = _strings([f"{key}={value}" for key, value in environment.items()])
            self._c_argv = _strings(self.argv)
            self._c_path = os.fsencode(self.argv[0])
            self._c_cwd = os.fsencode(run_dir)
            self._c_error = ctypes.c_int(0)
            self._c_cgroups = (ctypes.c_int * max(1, len(self.cgroups)))(*self.cgroups)
            self._c_filter = ctypes.create_string_buffer(filter_program, len(filter_program)) if filter_program else None

    @property
    def helped(self) -> bool:
        """Whether runs start through the spawn helper (else by a fork of the launcher)."""
        return self._spawn is not None

    def start(self, stdin: int, stdout: int, stderr: int, args: list[str]) -> int:
        """The run's process id; it runs the program (or has exited 127 saying why it could not)."""
        if self._spawn is not None:
            argv = _strings([*self.argv, *args]) if args else self._c_argv
            self._c_error.value = 0
            pid = self._spawn(self._c_path, argv, self._c_env, stdin, stdout, stderr, self._c_cgroups,
                              len(self.cgroups), self._c_cwd, self._c_limits, self._c_filter,
                              len(self.filter_program or b"") // 8, ctypes.byref(self._c_error))
            if pid < 0:
                raise OSError(self._c_error.value, "cannot start a run")
            return pid
        pid = fork_retrying(self.on_full)
        if pid == 0:
            in_child(self, stdin, stdout, stderr, lambda: os.execve(self.argv[0], [*self.argv, *args],
                                                                     self.environment))
        return pid

    def wait(self, pid: int) -> tuple[int, float, int]:
        """The ended run's wait status, CPU seconds and peak KiB."""
        _, status, usage = os.wait4(pid, 0)
        return status, usage.ru_utime + usage.ru_stime, usage.ru_maxrss


def _strings(values: list[str]) -> ctypes.Array:
    """A NULL-terminated ``char *[]`` of ``values`` (kept alive by the array's own references)."""
    return (ctypes.c_char_p * (len(values) + 1))(*(os.fsencode(value) for value in values), None)


def _load_helper(path: str) -> Any:
    """The spawn helper's ``divergent_spawn`` (None when it cannot be loaded)."""
    try:
        function = ctypes.CDLL(path).divergent_spawn
    except (OSError, AttributeError):
        return None
    function.restype = ctypes.c_int
    function.argtypes = (ctypes.c_char_p, ctypes.POINTER(ctypes.c_char_p), ctypes.POINTER(ctypes.c_char_p),
                         ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.POINTER(ctypes.c_int), ctypes.c_int,
                         ctypes.c_char_p, ctypes.POINTER(ctypes.c_longlong), ctypes.c_void_p, ctypes.c_int,
                         ctypes.POINTER(ctypes.c_int))
    return function


def fork_retrying(on_full: Callable[[], None] | None = None) -> int:
    """``os.fork``, retried while the process cap is full (what a run left behind is being
    killed); a launcher that cannot fork at all dies, which the parent reports as a crash."""
    import time

    for _ in range(50):
        try:
            return os.fork()
        except (BlockingIOError, MemoryError, OSError):
            if on_full is not None:
                on_full()
            time.sleep(0.01)
    return os.fork()


def in_child(starter: Starter, stdin: int, stdout: int, stderr: int, then: Callable[[], object]) -> None:
    """In a fork of the launcher: the cgroup, the descriptors, the limits, then ``then()`` (the
    program). Never returns."""
    try:
        for procs in starter.cgroups:
            # before anything else: every process of the run is counted from its start
            os.write(procs, b"0")
        os.setpgid(0, 0)
        os.dup2(stdin, 0)
        os.dup2(stdout, 1)
        os.dup2(stderr, 2)
        os.closerange(3, 1 << 16)
        os.chdir(starter.run_dir)
        for number in (signal.SIGINT, signal.SIGPIPE, signal.SIGXFSZ, signal.SIGXCPU):
            signal.signal(number, signal.SIG_DFL)
        apply_run_limits(starter.limits)
        if starter.filter_program and not install_filter(starter.filter_program):
            raise OSError("cannot install its system-call filter")
        then()
    except BaseException as error:  # noqa: BLE001 - the fork must never return into the launcher
        with contextlib.suppress(BaseException):
            os.write(2, f"divergent launcher: cannot start the program: {error}\n".encode())
        os._exit(127)
    os._exit(127)


class ZygoteStarter:
    """Runs a Python script as ``python script.py ARGS`` would, in a fork of the script zygote
    (:mod:`.zygote`, a lean interpreter started once): the interpreter's start-up is paid once,
    and every run starts from the same clean state."""

    #: seconds the zygote may take to answer once the run it forked has ended
    PATIENCE = 2.0

    def __init__(self, script: str, run_dir: str, limits: dict, cgroups: Sequence[int], package_root: str,
                 helper: str | None = None) -> None:
        self.arguments = [
            script, run_dir, *(str(value) for value in run_limit_values(limits)),
            ",".join(str(fd) for fd in cgroups), helper or "", package_root,
        ]
        self.on_full: Callable[[], None] | None = None
        self.helped = bool(helper)
        self.pid = 0
        self.sock: socket.socket | None = None
        self._start_zygote()

    def _start_zygote(self) -> None:
        self.close()
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        try:
            os.set_inheritable(theirs.fileno(), True)
            path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "zygote.py")
            bootstrap = f"import sys; sys.argv[0] = {path!r}; exec(compile(open({path!r}).read(), {path!r}, 'exec'))"
            self.pid = os.posix_spawn(sys.executable, [sys.executable, "-s", "-c", bootstrap, str(theirs.fileno()),
                                                       *self.arguments], dict(os.environ))
        finally:
            theirs.close()
        self.sock = ours

    @property
    def alive(self) -> bool:
        if self.sock is None:
            return False
        poller = select.poll()
        poller.register(self.sock.fileno(), select.POLLIN | select.POLLHUP)
        return not any(event & (select.POLLHUP | select.POLLERR) for _fd, event in poller.poll(0))

    def start(self, stdin: int, stdout: int, stderr: int, args: list[str]) -> int:
        for attempt in range(2):
            if attempt or not self.alive:
                self._start_zygote()
            assert self.sock is not None
            message = b"\1" + b"\0".join(os.fsencode(arg) for arg in args)
            fds = array.array("i", (stdin, stdout, stderr))
            try:
                self.sock.sendmsg([message], [(socket.SOL_SOCKET, socket.SCM_RIGHTS, fds)])
                answer = self._receive(4, 10.0)
            except OSError:
                continue
            if len(answer) == 4:
                pid = int.from_bytes(answer, sys.byteorder, signed=True)
                if pid > 0:
                    return pid
        raise OSError("the script zygote does not start runs")

    def wait(self, pid: int) -> tuple[int, float, int]:
        """The ended run's wait status, CPU seconds and peak KiB, as its parent (the zygote) saw
        them; from the run itself when the zygote is gone or stuck (the run is then ours)."""
        try:
            assert self.sock is not None
            self.sock.send(b"?")
            answer = self._receive(REPORT.size, self.PATIENCE)
        except (OSError, AssertionError):
            answer = b""
        if len(answer) == REPORT.size:
            status, user, system, peak = REPORT.unpack(answer)
            if user >= 0 and system >= 0 and peak >= 0:
                return status, user + system, peak
        # a run that killed or stopped its zygote: it becomes the launcher's child, its status ours
        self.close()
        _, status, usage = os.wait4(pid, 0)
        return status, usage.ru_utime + usage.ru_stime, usage.ru_maxrss

    def _receive(self, size: int, timeout: float) -> bytes:
        assert self.sock is not None
        poller = select.poll()
        poller.register(self.sock.fileno(), select.POLLIN)
        if not poller.poll(timeout * 1000):
            raise OSError("the script zygote does not answer")
        return self.sock.recv(size)

    def close(self) -> None:
        """Stop the zygote (its runs are the launcher's to sweep)."""
        if self.sock is not None:
            self.sock.close()
            self.sock = None
        if self.pid:
            with contextlib.suppress(OSError):
                os.kill(self.pid, signal.SIGKILL)
            with contextlib.suppress(ChildProcessError):
                os.waitpid(self.pid, 0)
            self.pid = 0
