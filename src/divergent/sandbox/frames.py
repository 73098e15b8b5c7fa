"""The parent's side of the sandbox protocol: start a child, send it commands, read its frames.

The protocol is described once, in :mod:`divergent.sandbox.child.kit`: a child starts with its
limits on the command line, the parent sends pickled ``(command, payload)`` frames, the child
answers with JSON frames. Everything a child writes is untrusted: :class:`ChildConnection` reads it
without blocking, refuses frames over a size limit, builds only JSON types
(:func:`divergent.values.loads`), takes only objects and (unless the reader checks every field
itself, as the worker pool does) only objects nested no deeper than :data:`MAX_NESTING`; anything
else is a :class:`ProtocolViolation`, and a closed pipe is :class:`ChildGone`. The worker pool, the
implementation matrix, the generator service and the symbolic runner's process all read their
children through it.
"""

from __future__ import annotations

import json
import os
import pickle
import selectors
import time
from collections.abc import Iterable, Sequence
from functools import cache
from typing import Any

from divergent.programs import PythonFunction
from divergent.sandbox.child.kit import FRAME_HEADER
from divergent.sandbox.isolation import IsolatedProcess, Isolation, program_paths, python_command, spawn
from divergent.sandbox.limits import Limits
from divergent.values import loads

#: the largest frame a child may write unless its reader allows less
MAX_FRAME_BYTES = 256 * 1024 * 1024
#: how deep lists and objects may nest in a frame (the encodings of values stop far above it)
MAX_NESTING = 256
#: bytes one :meth:`ChildConnection.read_frames` reads at most unless told otherwise
_READ_BYTES = 1 << 20


class ChildGone(Exception):
    """The child closed its pipe (it ended, or was killed) or broke the protocol."""


class ProtocolViolation(ChildGone):
    """The child wrote something that is not a frame of the protocol."""

    def __init__(self, what: str) -> None:
        super().__init__(f"protocol violation: {what}")


@cache
def _pid_namespace() -> int | None:
    """The inode of this process's PID namespace (a child compares it with its own)."""
    try:
        return os.stat("/proc/self/ns/pid").st_ino
    except OSError:
        return None


def start_child(
    module: str,
    *args: str,
    limits: Limits,
    level: Isolation,
    read_only: Sequence[str] = (),
    writable: Sequence[str] = (),
    capture_stderr: bool = False,
    settings: dict[str, Any] | None = None,
    pass_fds: Sequence[int] = (),
    as_pid_1: bool = False,
    narrow: bool = False,
) -> IsolatedProcess:
    """Start the child program ``module`` in the sandbox, its settings on its command line.

    The settings are the limits' (:meth:`Limits.child_settings`), ``host_pid_namespace``,
    ``progress_fd`` (-1 unless given in ``settings``), ``scratch`` (the directories the sandbox may
    write and keeps: its private ``/tmp`` and ``/dev/shm`` at the bubblewrap level, its working
    directory at the others), and any other ``settings``.
    ``read_only``: paths the child must read besides the interpreter's (the programs' directories,
    see :func:`implementation_paths`); ``writable``: host directories it may write (see
    :func:`~divergent.sandbox.isolation.spawn`); ``pass_fds``: descriptors it inherits; ``as_pid_1``
    and ``narrow``: see :func:`~divergent.sandbox.isolation.spawn`."""
    child_settings = {
        **limits.child_settings(),
        "host_pid_namespace": _pid_namespace(),
        "progress_fd": -1,
        # the writable directories the sandbox keeps between runs ("." is its working directory)
        "scratch": ["/tmp", "/dev/shm"] if level is Isolation.BUBBLEWRAP else ["."],
        **(settings or {}),
    }
    argv = python_command(module, json.dumps(child_settings), *args)
    return spawn(argv, limits=limits, level=level, read_only=read_only, writable=writable,
                 capture_stderr=capture_stderr, pass_fds=pass_fds, as_pid_1=as_pid_1, narrow=narrow)


def implementation_paths(implementations: Iterable[PythonFunction]) -> list[str]:
    """What the sandbox must let these implementations read: their ``sys.path`` roots (their
    packages, their sibling modules) and their files."""
    implementations = list(implementations)
    return program_paths(
        [entry for impl in implementations for entry in impl.sys_path],
        [impl.path for impl in implementations if impl.path],
    )


def implementation_payload(impl: PythonFunction) -> dict:
    """What a child needs to import an implementation (:func:`~divergent.sandbox.child.kit.import_implementation`).

    The source travels only when there is no file to import."""
    return {
        "label": impl.label,
        "path": impl.path,
        "source": impl.source if impl.path is None else "",
        "module_name": impl.module_name,
        "sys_path": list(impl.sys_path),
        "entry_point": impl.entry_point,
        "setup_code": impl.setup_code,
    }


class ChildConnection:
    """The parent's end of one child's pipes: commands go out, JSON frames come in."""

    def __init__(
        self, process: IsolatedProcess, *, max_frame_bytes: int = MAX_FRAME_BYTES, check_nesting: bool = True
    ) -> None:
        """``check_nesting``: refuse frames nested deeper than :data:`MAX_NESTING` (a reader that
        checks every field of every frame itself may skip this walk)."""
        self.process = process
        self.max_frame_bytes = max_frame_bytes
        self.check_nesting = check_nesting
        #: the child closed its end (frames read before it are still returned)
        self.end_of_file = False
        self._buffer = bytearray()
        assert process.popen.stdout is not None
        self._fd = process.popen.stdout.fileno()
        os.set_blocking(self._fd, False)

    def fileno(self) -> int:
        return self._fd

    def send(self, command: str, payload: dict) -> None:
        """Send one command; raises :class:`ChildGone` when the child's pipe is closed."""
        body = pickle.dumps((command, payload), protocol=pickle.HIGHEST_PROTOCOL)
        stdin = self.process.popen.stdin
        if stdin is None or stdin.closed:
            raise ChildGone("the child's input is closed")
        try:
            stdin.write(FRAME_HEADER.pack(len(body)) + body)
            stdin.flush()
        except (BrokenPipeError, OSError) as error:
            raise ChildGone(f"the child's pipe closed: {error}") from error

    def finish_sending(self) -> None:
        """Close the child's input: it gets end of file after the commands sent so far."""
        stdin = self.process.popen.stdin
        if stdin is not None:
            try:
                stdin.close()
            except OSError:
                pass  # the child is gone: what it wrote (or its exit status) tells why

    def read_frames(self, max_bytes: int = _READ_BYTES) -> list[dict]:
        """The whole frames available now, reading at most about ``max_bytes`` without blocking.

        Raises :class:`ChildGone` at end of file (once the frames before it were returned) and
        :class:`ProtocolViolation` for anything that is not a JSON object in a frame of allowed size.
        """
        if self.end_of_file:
            raise ChildGone("end of file")
        frames: list[dict] = []
        while max_bytes > 0:
            wanted = min(max_bytes, _READ_BYTES)
            try:
                chunk = os.read(self._fd, wanted)
            except BlockingIOError:
                break
            except OSError as error:
                raise ChildGone(str(error)) from error
            if not chunk:
                self.end_of_file = True
                if frames:
                    return frames
                raise ChildGone("end of file")
            self._buffer += chunk
            self._take_frames(frames)
            if len(chunk) < wanted:
                break  # the pipe is drained: another read would only say so
            max_bytes -= len(chunk)
        return frames

    def _take_frames(self, frames: list[dict]) -> None:
        buffer = self._buffer
        while len(buffer) >= FRAME_HEADER.size:
            (length,) = FRAME_HEADER.unpack_from(buffer)
            if length > self.max_frame_bytes:
                raise ProtocolViolation(f"a frame of {length:,} bytes")
            end = FRAME_HEADER.size + length
            if len(buffer) < end:
                break
            with memoryview(buffer) as view:
                body = bytes(view[FRAME_HEADER.size : end])  # one copy, even of a 16 MiB output
            del buffer[:end]
            try:
                message = loads(body)
            except (ValueError, RecursionError) as error:
                raise ProtocolViolation(str(error)[:200]) from error
            if not isinstance(message, dict):
                raise ProtocolViolation("not an object")
            if self.check_nesting and not nested_within(message, MAX_NESTING):
                raise ProtocolViolation(f"a frame nested deeper than {MAX_NESTING}")
            frames.append(message)

    def wait_frame(self, timeout: float) -> dict | None:
        """Block until a frame arrives and return it (None on timeout). For commands with one
        answer: frames read along with it are dropped."""
        deadline = time.monotonic() + timeout
        with selectors.DefaultSelector() as selector:
            selector.register(self._fd, selectors.EVENT_READ)
            while True:
                frames = self.read_frames()
                if frames:
                    return frames[0]
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    return None
                selector.select(remaining)

    def kill(self) -> str:
        """Kill the child and everything it started; how it ended."""
        self.process.kill()
        return self.process.exit_description()


def nested_within(value: Any, limit: int) -> bool:
    """Whether lists and dicts nest no deeper than ``limit`` in ``value`` (iteratively: a forged
    frame a million levels deep costs no recursion)."""
    containers = (list, dict)
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if depth > limit:
            return False
        children = item.values() if type(item) is dict else item
        stack.extend((child, depth + 1) for child in children if type(child) in containers)
    return True
