"""What every program that runs inside the sandbox is built from: the one protocol and the one start.

Three children run next to untrusted code: the worker (:mod:`.worker`: calls of an
implementation), the generator runner (:mod:`.generator`: an input generator a model wrote) and the
symbolic runner (:mod:`.symbolic`: CrossHair). This module, like them, imports only the standard
library and :mod:`divergent.values`.

Protocol. A child module runs (started by :func:`divergent.sandbox.frames.start_child`) with the
arguments ``LIMITS [ARG ...]``, ``LIMITS`` being the JSON object of
:meth:`divergent.sandbox.limits.Limits.child_settings`. Then frames flow both ways on
the child's stdin and stdout, each a 4-byte big-endian length (:data:`FRAME_HEADER`) and a payload:

* parent → child: pickles of ``(command, payload)``, trusted data the parent made;
* child → parent: UTF-8 JSON objects only, so the parent never unpickles anything untrusted code
  could have produced (it reads them with :mod:`divergent.sandbox.frames`).

Each child's commands and answers are described in its module. :func:`start_child` does what every
child does before it reads a command: it moves the protocol to private descriptors (the programs'
fds 0 and 1 go to ``/dev/null``; fd 2 stays where the parent sent it), applies the resource limits
and ignores Ctrl-C (it belongs to the parent). A :class:`Channel` binds everything it uses when it
is made, before untrusted code runs, so a program that patches ``json``, ``os`` or ``pickle``
cannot break the protocol.
"""

from __future__ import annotations

import builtins
import importlib.util
import io
import json
import os
import pickle
import resource
import signal
import struct
import sys
import traceback
import types
from typing import Any

from divergent.values import qualified_name

#: every frame starts with its payload's length
FRAME_HEADER = struct.Struct(">I")
#: the worker's side channel: before each call it writes the call's index, in this form, into
#: PROGRESS_FILE in its working directory, so the parent knows which call killed or hung it
PROGRESS_RECORD = struct.Struct(">q")
PROGRESS_FILE = ".divergent-progress"


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
        self._in = in_fd
        self._out = out_fd
        self._buffer = b""

    def receive(self) -> tuple[str, dict] | None:
        """The parent's next ``(command, payload)``; None when the parent closed the pipe."""
        header = self._read_exactly(FRAME_HEADER.size)
        if header is None:
            return None
        (length,) = self._unpack(header)
        body = self._read_exactly(length)
        if body is None:
            return None
        return self._loads_pickle(body)

    def _read_exactly(self, n: int) -> bytes | None:
        while len(self._buffer) < n:
            chunk = self._read(self._in, max(65536, n - len(self._buffer)))
            if not chunk:
                return None
            self._buffer += chunk
        data, self._buffer = self._buffer[:n], self._buffer[n:]
        return data

    def send(self, message: dict) -> None:
        """Write one JSON frame, whole."""
        if self._getpid() != self._pid:
            # A process a program forked must not speak for the child.
            self._exit(0)
        body = self._dumps(message, separators=(",", ":"), ensure_ascii=False).encode("utf-8", "surrogatepass")
        view = memoryview(self._pack(len(body)) + body)
        # An alarm must not cut a frame in half: it waits until the frame is out.
        self._mask(self._block, self._alarm_signal)
        try:
            while view:
                written = self._write(self._out, view)
                view = view[written:]
        finally:
            self._mask(self._unblock, self._alarm_signal)


def start_child() -> tuple[Channel, dict[str, Any], list[str]]:
    """Start as every child starts: the channel, the limits it was given, and its other arguments.

    The limits apply from here on: address space, file size, no core dumps, a deep C stack, and
    Python's recursion limit.
    """
    limits = json.loads(sys.argv[1])
    in_fd, out_fd = _take_standard_descriptors()
    apply_limits(int(limits["memory_mb"]), int(limits["file_bytes"]))
    sys.setrecursionlimit(int(limits["recursion_limit"]))
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C belongs to the parent
    return Channel(in_fd, out_fd), limits, sys.argv[2:]


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
    if spec["path"]:
        module_spec = importlib.util.spec_from_file_location(name, spec["path"])
        if module_spec is None or module_spec.loader is None:
            raise ImportError(f"cannot import {spec['path']}")
        module = importlib.util.module_from_spec(module_spec)
        sys.modules[name] = module
        module_spec.loader.exec_module(module)
    else:
        module = types.ModuleType(name)
        module.__file__ = f"<{name}>"
        sys.modules[name] = module
        exec(compile(spec["source"], f"<{name}>", "exec"), module.__dict__)
    if spec["setup_code"]:
        exec(compile(spec["setup_code"], "<setup>", "exec"), module.__dict__)
    return module


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
