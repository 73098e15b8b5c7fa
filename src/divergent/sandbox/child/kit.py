"""What every program that runs inside the sandbox is built from: the one protocol and the one start.

Three children run next to untrusted code: the worker (:mod:`.worker`, which runs calls of an
implementation in its call child, :mod:`.calls`), the generator runner (:mod:`.generator`: an input
generator a model wrote) and the symbolic runner (:mod:`.symbolic`: CrossHair). This module, like
them, imports only the standard library and :mod:`divergent.values`.

Protocol. A child module runs (started by :func:`divergent.sandbox.frames.start_child`) with the
arguments ``SETTINGS [ARG ...]``, ``SETTINGS`` being a JSON object: the limits of
:meth:`divergent.sandbox.limits.Limits.child_settings`, plus ``progress_fd`` (a descriptor of a
shared page, or -1) and ``host_pid_namespace`` (the inode of the parent's PID namespace). Then
frames flow both ways on the child's stdin and stdout, each a 4-byte big-endian length
(:data:`FRAME_HEADER`) and a payload:

* parent → child: pickles of ``(command, payload)``, trusted data the parent made;
* child → parent: UTF-8 JSON objects only, so the parent never unpickles anything untrusted code
  could have produced (it reads them with :mod:`divergent.sandbox.frames`, which checks their size,
  depth and types).

Each child's commands and answers are described in its module. :func:`start_child` does what every
child does before it reads a command: it moves the protocol to private descriptors (the programs'
fds 0 and 1 go to ``/dev/null``; fd 2 stays where the parent sent it), applies the resource limits,
installs the system-call filter (:func:`restrict_system_calls`: no sockets, no ``io_uring``, no
``ptrace``...) and ignores Ctrl-C (it belongs to the parent). A :class:`Channel` binds everything it
uses when it is made, before untrusted code runs, so a program that patches ``json``, ``os`` or
``pickle`` cannot break the protocol.

A new child (the launcher of whole programs, say) is a module under ``sandbox/child/`` whose ``main()`` calls
:func:`start_child` first thing and talks through the :class:`Channel` it returns; the parent
starts it with :func:`divergent.sandbox.frames.start_child` (giving the paths it must read with
``read_only=``) and reads it with :class:`divergent.sandbox.frames.ChildConnection`.
"""

from __future__ import annotations

import builtins
import ctypes
import importlib.util
import io
import json
import mmap
import os
import pickle
import platform
import resource
import signal
import struct
import sys
import traceback
import types
from typing import Any

from divergent.sandbox.child.containment import safe_import_path, scratch_roots
from divergent.values import qualified_name

#: every frame starts with its payload's length
FRAME_HEADER = struct.Struct(">I")
#: the worker's side channel: before each call, the index of the call, in this form, in a page of
#: memory the parent shares (``progress_fd``), so the parent knows which call killed or hung it
PROGRESS_RECORD = struct.Struct(">q")
#: what the progress page holds when no call has started
NO_PROGRESS = -1


class Channel:
    """The child's end of the protocol, on private copies of the pipes (the programs' fds 0 and 1
    point elsewhere)."""

    def __init__(self, in_fd: int, out_fd: int) -> None:
        # Bound now, before untrusted code runs.
        self._read = os.read
        self._write = os.write
        self._dumps = json.dumps
        self._loads_pickle = pickle.loads
        self._pack = FRAME_HEADER.pack
        self._unpack = FRAME_HEADER.unpack
        self._getpid = os.getpid
        self._exit = os._exit
        self._mask = signal.pthread_sigmask
        self._block, self._unblock = signal.SIG_BLOCK, signal.SIG_UNBLOCK
        self._alarm_signal = {signal.SIGALRM}
        self._pid = os.getpid()
        # patching the class afterwards changes nothing here
        self.send_body = self.send_body
        self._write_frames = self._write_frames
        self.in_fd = in_fd
        self.out_fd = out_fd
        self._buffer = b""

    def receive(self) -> tuple[str, dict] | None:
        """The parent's next ``(command, payload)``; None when the parent closed the pipe."""
        body = self.receive_body()
        return None if body is None else self._loads_pickle(body)

    def receive_body(self) -> bytes | None:
        """The parent's next frame, still pickled; None when the parent closed the pipe."""
        header = self._read_exactly(FRAME_HEADER.size)
        if header is None:
            return None
        (length,) = self._unpack(header)
        return self._read_exactly(length)

    def _read_exactly(self, n: int) -> bytes | None:
        while len(self._buffer) < n:
            chunk = self._read(self.in_fd, max(65536, n - len(self._buffer)))
            if not chunk:
                return None
            self._buffer += chunk
        data, self._buffer = self._buffer[:n], self._buffer[n:]
        return data

    def send(self, message: dict) -> None:
        """Write one JSON frame, whole."""
        self.send_body(self._dumps(message, separators=(",", ":"), ensure_ascii=False).encode("utf-8", "surrogatepass"))

    def send_all(self, messages: list[dict]) -> None:
        """Write several JSON frames in one go (results that were ready together)."""
        frames = []
        for message in messages:
            body = self._dumps(message, separators=(",", ":"), ensure_ascii=False).encode("utf-8", "surrogatepass")
            frames.append(self._pack(len(body)))
            frames.append(body)
        self._write_frames(b"".join(frames))

    def send_body(self, body: bytes) -> None:
        """Write one frame whose payload is ``body`` (JSON text), whole."""
        self._write_frames(self._pack(len(body)) + body)

    def _write_frames(self, data: bytes) -> None:
        if self._getpid() != self._pid:
            # A process a program forked must not speak for the child.
            self._exit(0)
        view = memoryview(data)
        # An alarm must not cut a frame in half: it waits until the frame is out.
        self._mask(self._block, self._alarm_signal)
        try:
            while view:
                written = self._write(self.out_fd, view)
                view = view[written:]
        finally:
            self._mask(self._unblock, self._alarm_signal)


def start_child() -> tuple[Channel, dict[str, Any], list[str]]:
    """Start as every child starts: the channel, the settings it was given, and its other arguments.

    The limits apply from here on: address space, file size, no core dumps, a deep C stack,
    Python's recursion limit, and the system-call filter.
    """
    settings = json.loads(sys.argv[1])
    # nothing is imported from where a program may write (its /tmp, the working directory)
    sys.path[:] = safe_import_path(sys.path, scratch_roots(settings))
    in_fd, out_fd = _take_standard_descriptors()
    apply_limits(int(settings["memory_mb"]), int(settings["file_bytes"]))
    sys.setrecursionlimit(int(settings["recursion_limit"]))
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C belongs to the parent
    restrict_system_calls()
    return Channel(in_fd, out_fd), settings, sys.argv[2:]


def progress_page(settings: dict[str, Any]) -> mmap.mmap | None:
    """The page the parent shares for :data:`PROGRESS_RECORD` (None when it gave none)."""
    fd = int(settings.get("progress_fd", -1))
    if fd < 0:
        return None
    page = mmap.mmap(fd, PROGRESS_RECORD.size)
    os.close(fd)
    return page


def in_own_pid_namespace(settings: dict[str, Any]) -> bool:
    """Whether this process is in a PID namespace of its own (not the parent's): then signalling
    every process it can see reaches only the sandbox's."""
    host = settings.get("host_pid_namespace")
    try:
        return host is not None and os.stat("/proc/self/ns/pid").st_ino != int(host)
    except (OSError, ValueError):
        return False


def _take_standard_descriptors() -> tuple[int, int]:
    """Keep the protocol on private copies of fds 0 and 1; the programs' fds 0 and 1 go nowhere."""
    in_fd, out_fd = os.dup(0), os.dup(1)
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1):
        os.dup2(null, fd)
    os.close(null)
    sys.stdin = open(os.devnull)  # noqa: SIM115 - lives as long as the process
    return in_fd, out_fd


def apply_limits(memory_mb: int, file_bytes: int) -> None:
    """Lower the resource limits (never raise them past what the parent allowed)."""

    def lower(which: int, value: int) -> None:
        _soft, hard = resource.getrlimit(which)
        if hard != resource.RLIM_INFINITY:
            value = min(value, hard)
        try:
            resource.setrlimit(which, (value, hard if hard != resource.RLIM_INFINITY else value))
        except (ValueError, OSError):
            pass

    lower(resource.RLIMIT_AS, memory_mb * 1024 * 1024)
    lower(resource.RLIMIT_FSIZE, file_bytes)
    lower(resource.RLIMIT_CORE, 0)
    # Deep recursion needs a deep C stack; the main thread's stack grows up to this limit.
    try:
        _soft, hard = resource.getrlimit(resource.RLIMIT_STACK)
        target = 512 * 1024 * 1024
        if hard == resource.RLIM_INFINITY or hard >= target:
            resource.setrlimit(resource.RLIMIT_STACK, (target, hard))
    except (ValueError, OSError):
        pass


# -- system calls ------------------------------------------------------------------------------

_PR_SET_DUMPABLE, _PR_SET_NO_NEW_PRIVS, _PR_SET_SECCOMP, _SECCOMP_MODE_FILTER = 4, 38, 22, 2
#: per architecture: the audit number, and the system calls no program under test needs: sockets
#: (no network, no host socket even if one were reachable), io_uring (it would open sockets behind
#: the filter's back), ptrace (the worker and the parent are out of reach), kernel keyrings
#: (shared with the host user), bpf and perf_event_open; and the objects of System V IPC and POSIX
#: message queues, state outside the file system that a sandbox reused for the next run or version
#: could neither list nor remove (shared memory and semaphores in ``/dev/shm`` are files, reset)
_DENIED_SYSCALLS: dict[str, tuple[int, dict[str, int]]] = {
    "x86_64": (0xC000003E, {"socket": 41, "ptrace": 101, "add_key": 248, "request_key": 249, "keyctl": 250,
                            "perf_event_open": 298, "bpf": 321, "userfaultfd": 323, "io_uring_setup": 425,
                            "io_uring_enter": 426, "io_uring_register": 427, "shmget": 29, "semget": 64,
                            "msgget": 68, "mq_open": 240}),
    "aarch64": (0xC00000B7, {"socket": 198, "ptrace": 117, "add_key": 217, "request_key": 218, "keyctl": 219,
                             "perf_event_open": 241, "bpf": 280, "userfaultfd": 282, "io_uring_setup": 425,
                             "io_uring_enter": 426, "io_uring_register": 427, "shmget": 194, "semget": 190,
                             "msgget": 186, "mq_open": 180}),
}  # fmt: skip
#: per architecture: the system calls that make a new process (``clone`` makes a thread when its
#: flags hold ``CLONE_THREAD``); ``clone3``, whose flags a filter cannot read, is answered ENOSYS so
#: the C library falls back to ``clone``
_PROCESS_SYSCALLS: dict[str, dict[str, int]] = {
    "x86_64": {"clone": 56, "fork": 57, "vfork": 58, "clone3": 435},
    "aarch64": {"clone": 220, "clone3": 435},
}
_CLONE_THREAD = 0x00010000
_X32_SYSCALL_BIT = 0x40000000


def seccomp_program(machine: str) -> bytes | None:
    """The classic-BPF seccomp program denying :data:`_DENIED_SYSCALLS` with ``EPERM`` (and every
    system call of another ABI, such as 32-bit calls from a 64-bit process), or None for an
    architecture this module does not know."""
    if machine not in _DENIED_SYSCALLS:
        return None
    audit_arch, denied = _DENIED_SYSCALLS[machine]
    load_word, jump_equal, jump_greater_equal, ret = 0x20, 0x15, 0x35, 0x06
    allow, deny = 0x7FFF0000, 0x00050000 | 1  # SECCOMP_RET_ALLOW, SECCOMP_RET_ERRNO | EPERM
    instruction = struct.Struct("=HBBI")
    checks: list[tuple[int, int]] = []  # (opcode, value): each jumps to deny when it holds
    if machine == "x86_64":
        checks.append((jump_greater_equal, _X32_SYSCALL_BIT))
    checks += [(jump_equal, number) for number in sorted(denied.values())]
    program = [
        instruction.pack(load_word, 0, 0, 4),  # seccomp_data.arch
        instruction.pack(jump_equal, 1, 0, audit_arch),
        instruction.pack(ret, 0, 0, deny),
        instruction.pack(load_word, 0, 0, 0),  # seccomp_data.nr
    ]
    for position, (opcode, value) in enumerate(checks):
        # jump over the remaining checks and the "allow" to the "deny" at the end
        program.append(instruction.pack(opcode, len(checks) - position, 0, value))
    program += [instruction.pack(ret, 0, 0, allow), instruction.pack(ret, 0, 0, deny)]
    return b"".join(program)


_LIBC: list[Any] = []


def _prctl(*arguments: Any) -> int:
    if not _LIBC:  # loaded once: a launcher's fork calls this for every run of a script
        _LIBC.append(ctypes.CDLL(None, use_errno=True))
        _LIBC[0].prctl.restype = ctypes.c_int
    return _LIBC[0].prctl(*arguments)


def restrict_system_calls() -> bool:
    """Install the seccomp filter (inherited by every process started from here, across exec);
    False where it cannot be (an unknown architecture, a kernel without seccomp)."""
    program = seccomp_program(platform.machine())
    return program is not None and install_filter(program)


def install_filter(program: bytes) -> bool:
    """Install the classic-BPF seccomp ``program`` on this process (and what it starts from now
    on); False where the kernel refuses it. Filters add up: none can be taken back."""

    class SockFprog(ctypes.Structure):
        _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_char_p)]

    buffer = ctypes.create_string_buffer(program, len(program))
    fprog = SockFprog(len(program) // 8, ctypes.cast(buffer, ctypes.c_char_p))
    ulong = ctypes.c_ulong
    if _prctl(_PR_SET_NO_NEW_PRIVS, ulong(1), ulong(0), ulong(0), ulong(0)) != 0:
        return False
    return _prctl(_PR_SET_SECCOMP, ulong(_SECCOMP_MODE_FILTER), ctypes.byref(fprog), ulong(0), ulong(0)) == 0


def no_new_processes_program(machine: str) -> bytes | None:
    """A seccomp program, added to the usual one, under which a process may start threads but no
    process: ``fork``, ``vfork`` and a ``clone`` without ``CLONE_THREAD`` kill the whole process
    (``SECCOMP_RET_KILL_PROCESS``), ``clone3`` fails with ENOSYS (the C library then uses
    ``clone``). None for an architecture this module does not know. A warm JVM runs under it: the
    code it runs cannot leave a process behind, whatever it does to the harness in its JVM."""
    if machine not in _PROCESS_SYSCALLS:
        return None
    audit_arch = _DENIED_SYSCALLS[machine][0]
    numbers = _PROCESS_SYSCALLS[machine]
    load_word, jump_equal, jump_set, ret = 0x20, 0x15, 0x45, 0x06
    allow, kill, enosys = 0x7FFF0000, 0x80000000, 0x00050000 | 38
    instruction = struct.Struct("=HBBI")
    forks = [numbers[name] for name in ("fork", "vfork") if name in numbers]
    program = [
        instruction.pack(load_word, 0, 0, 4),  # seccomp_data.arch: another ABI is the usual filter's
        instruction.pack(jump_equal, 0, 3 + len(forks), audit_arch),
        instruction.pack(load_word, 0, 0, 0),  # seccomp_data.nr
        instruction.pack(jump_equal, 2 + len(forks), 0, numbers["clone3"]),
    ]
    for position, number in enumerate(forks):
        program.append(instruction.pack(jump_equal, 2 + len(forks) - position, 0, number))
    program += [
        instruction.pack(jump_equal, 3, 0, numbers["clone"]),
        instruction.pack(ret, 0, 0, allow),
        instruction.pack(ret, 0, 0, enosys),
        instruction.pack(ret, 0, 0, kill),
        instruction.pack(load_word, 0, 0, 16),  # the low word of clone's flags (args[0], little-endian)
        instruction.pack(jump_set, 0, 1, _CLONE_THREAD),
        instruction.pack(ret, 0, 0, allow),
        instruction.pack(ret, 0, 0, kill),
    ]
    return b"".join(program)


def forbid_inspection() -> None:
    """Make this process non-dumpable: a process of the same user (the program under test) can
    then neither trace it nor open its ``/proc/PID/mem`` or ``/proc/PID/fd``."""
    _prctl(_PR_SET_DUMPABLE, ctypes.c_ulong(0), ctypes.c_ulong(0), ctypes.c_ulong(0), ctypes.c_ulong(0))


def allow_inspection() -> None:
    """Make this process dumpable again (a fork of a non-dumpable process that becomes a program of
    its own, as an ``exec`` would)."""
    _prctl(_PR_SET_DUMPABLE, ctypes.c_ulong(1), ctypes.c_ulong(0), ctypes.c_ulong(0), ctypes.c_ulong(0))


def limit_cpu_seconds(seconds: int) -> None:
    """Cap the process's CPU time: a process a program forks (out of reach of the alarm) still ends."""
    try:
        resource.setrlimit(resource.RLIMIT_CPU, (seconds, seconds + 1))
    except (ValueError, OSError):
        pass


# -- time --------------------------------------------------------------------------------------


class TimeUp(BaseException):
    """Raised by the :class:`Alarm` (a BaseException: a program's ``except Exception`` must not
    swallow it)."""


class Alarm:
    """The child's one wall-clock timer (``SIGALRM``).

    It raises :class:`TimeUp` only while :attr:`running`. Setting ``running`` to False pauses it
    without a system call: the worker leaves a call's timer set when the call returns, and the next
    call's :meth:`arm` replaces it; a signal in between does nothing.
    """

    #: after the first expiry the timer keeps firing this often: a bare ``except:`` must not win
    REPEAT = 0.05

    def __init__(self) -> None:
        self.running = False
        # Bound now, before untrusted code runs.
        self._setitimer = signal.setitimer
        self._wall_clock = signal.ITIMER_REAL
        signal.signal(signal.SIGALRM, self.fire)

    def arm(self, seconds: float, repeat: float = REPEAT) -> None:
        self._setitimer(self._wall_clock, seconds, repeat)
        self.running = True

    def disarm(self) -> None:
        self.running = False
        self._setitimer(self._wall_clock, 0, 0)

    def fire(self, signum: int, frame: types.FrameType | None) -> None:
        if self.running:
            raise TimeUp()


# -- what programs print -----------------------------------------------------------------------


class CappedWriter(io.TextIOBase):
    """``sys.stdout`` during a call: keeps the first ``limit`` characters, counts the rest."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.parts: list[str] = []
        self.kept = 0
        self.total = 0

    def writable(self) -> bool:
        return True

    def reset(self) -> None:
        self.parts = []
        self.kept = 0
        self.total = 0

    def write(self, text: str) -> int:
        if not isinstance(text, str):
            raise TypeError(f"write() argument must be str, not {type(text).__name__}")
        self.total += len(text)
        room = self.limit - self.kept
        if room > 0:
            piece = text[:room]
            self.parts.append(piece)
            self.kept += len(piece)
        return len(text)

    def text(self) -> str:
        kept = "".join(self.parts)
        if self.total > self.kept:
            kept += f"\n<… {self.total - self.kept} more characters>"
        return kept


class Discard(io.TextIOBase):
    """``sys.stdout`` or ``sys.stderr`` where nothing a program prints is wanted."""

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        return len(text)


# -- programs and their exceptions -------------------------------------------------------------


def import_implementation(spec: dict, name: str) -> types.ModuleType:
    """Import an implementation (its file, or its source as a fresh module) under ``name`` and run
    its setup code. ``spec`` holds ``path``, ``source`` and ``setup_code`` (the parent's
    :func:`divergent.sandbox.frames.implementation_payload`). This runs untrusted top-level code:
    call it inside the sandbox only."""
    module, package_error = _imported_in_package(spec, name) if spec["path"] and "." in name else (None, "")
    if module is not None:
        pass
    elif spec["path"]:
        module_spec = importlib.util.spec_from_file_location(name, spec["path"])
        if module_spec is None or module_spec.loader is None:
            raise ImportError(f"cannot import {spec['path']}")
        module = importlib.util.module_from_spec(module_spec)
        sys.modules[name] = module
        try:
            module_spec.loader.exec_module(module)
        except Exception as error:
            if package_error:  # the package's failure explains the module's
                raise ImportError(f"{describe_exception(error)}; importing its package {package_error}") from None
            raise
    else:
        module = types.ModuleType(name)
        module.__file__ = f"<{name}>"
        sys.modules[name] = module
        exec(compile(spec["source"], f"<{name}>", "exec"), module.__dict__)
    if spec["setup_code"]:
        exec(compile(spec["setup_code"], "<setup>", "exec"), module.__dict__)
    return module


def _imported_in_package(spec: dict, name: str) -> tuple[types.ModuleType | None, str]:
    """A module of a package imported as Python imports it: its package first, whose ``__init__``
    may import the module itself (which must then not meet a half-run copy of it). (None, why) when
    that fails or finds another file (a package that does not import here): the file alone is
    imported then."""
    top = name.split(".")[0]
    try:
        module = importlib.import_module(name)
    except Exception as error:  # noqa: BLE001 - the package's own import failed: the file alone, as before
        for loaded in [key for key in sys.modules if key == top or key.startswith(top + ".")]:
            sys.modules.pop(loaded, None)
        return None, f"failed: {describe_exception(error, where=True)}"
    if os.path.realpath(getattr(module, "__file__", None) or "") != os.path.realpath(spec["path"]):
        sys.modules.pop(name, None)
        return None, ""
    return module, ""


def exception_fields(error: BaseException) -> list:
    """``[type name, message, [names of its base classes]]``, safe against an untrusted ``__str__``."""
    kind = type(error)
    try:
        message = str(error)
    except Exception:  # noqa: BLE001 - an untrusted __str__
        message = "<unprintable message>"
    if not isinstance(message, str):
        message = "<unprintable message>"
    if len(message) > 2000:
        message = message[:2000] + "…"
    mro = [qualified_name(k) for k in kind.__mro__[1:] if k not in (object, BaseException)]
    return [qualified_name(kind), message, mro]


def describe_exception(error: BaseException, *, where: bool = False) -> str:
    """``"ValueError: message"``; with ``where``, also the innermost line outside divergent."""
    name, message, _ = exception_fields(error)
    location = ""
    if where:
        for frame in reversed(traceback.extract_tb(error.__traceback__)):
            if "divergent" not in frame.filename:
                location = f" (at {os.path.basename(frame.filename)}:{frame.lineno})"
                break
    return f"{name}: {message}{location}" if message else f"{name}{location}"


def shield_from_builtin_patches(*namespaces: dict) -> None:
    """Give the child's own modules private copies of the builtins.

    A program may replace ``builtins.len`` or ``builtins.isinstance``; that is its behaviour and it
    keeps it, but the encoder and the protocol must go on working, so their modules (this one,
    :mod:`divergent.values`, :mod:`json`, and the given ``namespaces``) look names up in their own
    globals first.
    """
    import json.decoder
    import json.encoder

    from divergent import values

    names = {k: v for k, v in builtins.__dict__.items() if not k.startswith("__")}
    for namespace in (globals(), vars(values), vars(json), vars(json.encoder), vars(json.decoder), *namespaces):
        for name, value in names.items():
            namespace.setdefault(name, value)
