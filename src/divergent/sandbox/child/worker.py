"""The worker: the trusted half of a sandboxed implementation, which never runs untrusted code.

The worker holds the protocol's descriptors (the only way to divergent). It forks a *call child*
(:mod:`.calls`) that imports the implementation and runs the calls, talking to the worker over a
private pipe pair; the call child has no descriptor of the protocol, and the worker is
non-dumpable and protected by the system-call filter (no ``ptrace``), so the code under test can
neither write to divergent nor patch the worker. The worker:

* relays the call child's results, byte for byte, to divergent, which checks every one
  (:mod:`.wire`: one result per call, in order, no more than were asked for, each a well-formed
  outcome of bounded depth and size, a timeout only after its time, a stop only after the
  deadline); it checks the answers to ``load`` itself;
* holds back the frame that ends a batch until the call child answers the ``sync`` queued behind
  the batch, from its idle loop, with nothing written in between (a program that wrote an answer
  of its own on the pipe is caught when its real one follows, one that stopped answering when the
  sync's answer comes first);
* notices by itself when the call child dies (a signal, ``os._exit``) or hangs (no answer within
  the timeout plus a grace period: it kills it), or writes where it should not: it then reports a
  *failure* ``{"results": [], "done": true, "failure": {"kind": "crash" | "timeout" |
  "protocol", "detail": "...", "started": i}}`` (``started``: the call the page of progress
  names; after "protocol" none of the batch's answers is to be trusted), kills every process the
  call child left in the sandbox, and forks a fresh call child (loading the implementation again)
  for the next command.

Every call child (for a load, a reload with another implementation, or after a failure) starts in a
sandbox put back as it was: no process of the one before it (every process of the sandbox's PID
namespace but the worker and bubblewrap's init is killed), and the sandbox's scratch directories
(``/tmp``, ``/dev/shm``) holding only what they held before any untrusted code ran
(:mod:`.containment`); no directory a program may write is on its ``sys.path``.

Started by :class:`divergent.sandbox.pool.WorkerProcess` as ``worker SETTINGS`` (see :mod:`.kit`).
Commands: ``load``, ``run``, ``load_many`` and ``run_cells`` (forwarded to the call child, see
:mod:`.calls`), and ``ping`` (answered ``{"ok": true}`` by the worker).
"""

from __future__ import annotations

import contextlib
import fcntl
import gc
import json
import mmap
import os
import pickle
import select
import signal
import sys
import time
from typing import Any

import divergent.sandbox.child.calls as calls
from divergent.sandbox.child.calls import may_use_global_random
from divergent.sandbox.child.containment import Scratch, kill_all_but_me, scratch_roots
from divergent.sandbox.child.kit import (
    FRAME_HEADER,
    NO_PROGRESS,
    PROGRESS_RECORD,
    Channel,
    forbid_inspection,
    in_own_pid_namespace,
    progress_page,
    shield_from_builtin_patches,
    start_child,
)
from divergent.sandbox.child.wire import Malformed, check_load_answer

__all__ = ["Worker", "may_use_global_random"]

#: the recursion limit of the worker itself (it parses only the answers to load: JSON nested
#: deeper than about this is refused by the parser); the call child has the limits' own
_RECURSION_LIMIT = 400
#: the size of the pipes between the worker and its call child
_PIPE_BYTES = 1 << 20
#: the largest message the call child may write (results are capped far below it)
_MAX_FRAME_BYTES = 64 * 1024 * 1024
#: how the call child's frame that ends a batch ends
_LAST_FRAME_ENDINGS = (b',"done":true}', b',"done":true,"stopped":true}')
_SYNC_BODY = pickle.dumps(("sync", {}), protocol=pickle.HIGHEST_PROTOCOL)
_SYNC_COMMAND = FRAME_HEADER.pack(len(_SYNC_BODY)) + _SYNC_BODY
_SYNCED = b'{"synced":true}'


class CallChildGone(Exception):
    """The call child died, hung or broke the protocol; ``kind`` is "crash", "timeout" or
    "protocol" (the whole batch's answers are then suspect)."""

    def __init__(self, kind: str, detail: str) -> None:
        super().__init__(detail)
        self.kind = kind
        self.detail = detail


class CallChild:
    """The worker's view of its call child: a process id and two pipe ends."""

    def __init__(self, pid: int, to_child: int, from_child: int) -> None:
        self.pid = pid
        self.to_child = to_child
        self.from_child = from_child
        os.set_blocking(to_child, False)
        os.set_blocking(from_child, False)
        self.buffer = bytearray()

    def write(self, data: bytes, deadline: float) -> None:
        view = memoryview(data)
        while view:
            try:
                written = os.write(self.to_child, view)
            except BlockingIOError:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    raise CallChildGone("timeout", "the program stopped reading its commands") from None
                select.select([], [self.to_child], [], remaining)
                continue
            except OSError as error:
                raise CallChildGone("crash", f"the call process is gone ({error.strerror})") from None
            view = view[written:]

    def frames(self, deadline: float) -> list[bytes]:
        """The whole frames the call child has written (waiting until ``deadline`` for the first);
        raises :class:`CallChildGone` when it ended, hung or wrote a frame over the size limit."""
        while True:
            found = self._take_frames()
            if found:
                return found
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise CallChildGone("timeout", "")
            ready, _, _ = select.select([self.from_child], [], [], remaining)
            if not ready:
                continue
            try:
                chunk = os.read(self.from_child, 1 << 20)
            except BlockingIOError:
                continue
            except OSError as error:
                raise CallChildGone("crash", str(error)) from None
            if not chunk:
                raise CallChildGone("crash", "")
            self.buffer += chunk

    def _take_frames(self) -> list[bytes]:
        found = []
        buffer = self.buffer
        while len(buffer) >= FRAME_HEADER.size:
            (length,) = FRAME_HEADER.unpack_from(buffer)
            if length > _MAX_FRAME_BYTES:
                raise CallChildGone("crash", f"the program broke the protocol (a message of {length:,} bytes)")
            end = FRAME_HEADER.size + length
            if len(buffer) < end:
                break
            found.append(bytes(buffer[FRAME_HEADER.size : end]))
            del buffer[:end]
        return found


class Worker:
    """Serves the parent's commands on ``channel`` until the parent closes the pipe."""

    def __init__(self, channel: Channel, settings: dict[str, Any], progress: mmap.mmap) -> None:
        self.channel = channel
        self.settings = settings
        self.progress = progress
        self.timeout = float(settings["timeout"])
        self.load_timeout = float(settings["load_timeout"])
        self.grace = max(0.5, self.timeout * 0.5)
        #: how long the call child may take to answer the current command before it is killed
        self.patience = self.timeout + self.grace
        self.stdout_chars = int(settings["stdout_bytes"])
        self.own_namespace = in_own_pid_namespace(settings)
        #: the sandbox's scratch directories as they were before any untrusted code ran: each call
        #: child starts with them so (a version loaded after another sees none of its files)
        self.scratch = Scratch(scratch_roots(settings))
        self.child: CallChild | None = None
        #: the last load command, replayed in a fresh call child after a failure
        self.load_command: tuple[str, bytes] | None = None

    # -- the call child -----------------------------------------------------------------------

    def _fork(self) -> CallChild:
        self.scratch.reset()
        to_read, to_write = os.pipe()
        from_read, from_write = os.pipe()
        for fd in (to_write, from_write):
            _widen(fd)
        pid = os.fork()
        if pid == 0:  # the call child: it keeps only its own pipe ends
            try:
                os.setpgid(0, 0)
                for fd in (to_write, from_read, self.channel.in_fd, self.channel.out_fd):
                    os.close(fd)
                calls.serve(Channel(to_read, from_write), self.settings, self.progress)
            finally:
                os._exit(0)
        os.close(to_read)
        os.close(from_write)
        return CallChild(pid, to_write, from_read)

    def _end_child(self) -> str:
        """Kill the call child and every process it left in the sandbox; how it ended."""
        child = self.child
        self.child = None
        if child is None:
            return "not running"
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(child.pid, signal.SIGKILL)
        with contextlib.suppress(ProcessLookupError):
            os.kill(child.pid, signal.SIGKILL)
        try:
            _, status = os.waitpid(child.pid, 0)
        except ChildProcessError:
            status = 0
        if self.own_namespace:
            # Alone in its PID namespace with init, the worker reaches every process left behind
            # (also those that left the process group).
            kill_all_but_me()
        for fd in (child.to_child, child.from_child):
            with contextlib.suppress(OSError):
                os.close(fd)
        return _describe_status(status)

    def _fail(self, error: CallChildGone) -> dict:
        """End the call child after it died, hung or broke the protocol: the failure to report."""
        (started,) = PROGRESS_RECORD.unpack(self.progress[: PROGRESS_RECORD.size])
        how = self._end_child()
        if error.kind == "timeout":
            detail = error.detail or f"no answer within {self.patience:g} s; killed"
        else:
            detail = error.detail or f"worker died: {how}"
        return {"kind": error.kind, "detail": detail, "started": None if started == NO_PROGRESS else started}

    def _ask(self, body: bytes, patience: float) -> Any:
        """Send a command to the call child and return its one answer (parsed JSON)."""
        assert self.child is not None
        deadline = time.monotonic() + patience
        self.child.write(FRAME_HEADER.pack(len(body)) + body, deadline)
        frames = self.child.frames(deadline)
        if len(frames) != 1:
            raise Malformed("more than one answer")
        try:
            return json.loads(frames[0])
        except (ValueError, RecursionError) as error:
            raise Malformed(str(error)[:100]) from None

    def _start_and_load(self, command: str, body: bytes) -> Any:
        """A fresh call child with the implementation(s) loaded: the checked answer to the load."""
        if self.child is not None:
            self._end_child()
        self.child = self._fork()
        count = len(pickle.loads(body)[1].get("implementations", [None])) if command == "load_many" else 1
        patience = (self.load_timeout + self.grace) * count + 2.0
        try:
            answer = self._ask(body, patience)
            if command == "load":
                check_load_answer(answer)
            else:
                if type(answer) is not dict or type(answer.get("results")) is not list or len(answer["results"]) != count:
                    raise Malformed("not an answer to load_many")
                for item in answer["results"]:
                    check_load_answer(item)
        except CallChildGone as error:
            failure = self._fail(error)
            if error.kind == "timeout" and not error.detail:
                return {"ok": False, "kind": "timeout", "error": f"loading took longer than {self.load_timeout:g} s"}
            return {"ok": False, "kind": "crash", "error": f"the worker died while loading ({failure['detail']})"}
        except Malformed as error:
            self._end_child()
            return {"ok": False, "kind": "crash", "error": f"the program broke the protocol while loading ({error})"}
        return answer

    # -- commands -----------------------------------------------------------------------------

    def load(self, command: str, body: bytes) -> None:
        self.load_command = (command, body)
        self.channel.send(self._start_and_load(command, body))

    def run(self, command: str, body: bytes, payload: dict) -> None:
        """Forward a batch to the call child, relay its checked results, report its failure."""
        cells = command == "run_cells"
        total = len(payload["cells"] if cells else payload["inputs"])
        if self.child is None:
            if self.load_command is None:
                self.channel.send({"results": [{"k": "crash", "d": "nothing is loaded"}] * total, "done": True})
                return
            answer = self._start_and_load(*self.load_command)
            if not answer.get("ok"):
                detail = f"the implementation did not load again: {answer.get('error', '')}"[:1000]
                self.channel.send({"results": [{"k": "crash", "d": detail}] * total, "done": True})
                return
        self.progress[:] = PROGRESS_RECORD.pack(NO_PROGRESS)
        try:
            if self.child.buffer or select.select([self.child.from_child], [], [], 0)[0]:
                raise CallChildGone("protocol", "the program broke the protocol (it wrote between batches)")
            self._relay(body, payload, cells)
        except CallChildGone as error:
            self.channel.send({"results": [], "done": True, "failure": self._fail(error)})

    def _relay(self, body: bytes, payload: dict, cells: bool) -> None:
        """Relay the call child's frames, byte for byte, until the one that ends the batch.

        The frames are not parsed here: the parent reads and checks every one (a malformed one is
        a crash of this implementation there). The worker only needs to know when the batch ends
        (``"done":true`` closes the object of the last frame, as the call child writes it) and to
        notice when the call child dies or hangs.

        A ``sync`` command is queued right behind the batch: the call child answers it from its
        idle loop once the batch is done, so the frame that ends the batch is held back until the
        answer follows it with nothing in between. A program that wrote an answer of its own on
        the pipe is caught when its real one follows; one that broke its own answering and went
        back to the loop is caught when the answer comes before the end of the batch."""
        assert self.child is not None
        patience = self.timeout + self.grace
        if cells and payload.get("timeouts"):
            patience = max(payload["timeouts"]) + self.grace
        elif not cells and payload.get("timeout"):
            # the batch's own per-call limit (a search sends small, adaptive ones), its own grace
            patience = payload["timeout"] + max(0.5, payload["timeout"] * 0.5)
        self.patience = patience
        command = FRAME_HEADER.pack(len(body)) + body + _SYNC_COMMAND
        self.child.write(command, time.monotonic() + patience + len(body) / 1e7)
        last: bytes | None = None
        while True:
            frames = self.child.frames(time.monotonic() + patience)
            for position, frame in enumerate(frames):
                if last is not None:
                    if frame != _SYNCED or position != len(frames) - 1 or self.child.buffer:
                        raise CallChildGone("protocol", "the program broke the protocol (it wrote after its last answer)")
                    self.channel.send_body(last)
                    return
                if frame == _SYNCED:
                    raise CallChildGone("protocol", "the program broke the protocol (it stopped answering its calls)")
                if frame.endswith(_LAST_FRAME_ENDINGS):
                    last = frame
                else:
                    self.channel.send_body(frame)

    def serve(self) -> None:
        while True:
            body = self.channel.receive_body()
            if body is None:
                self._end_child()
                return
            command, payload = pickle.loads(body)
            if command in ("load", "load_many"):
                self.load(command, body)
            elif command in ("run", "run_cells"):
                self.run(command, body, payload)
            elif command == "ping":
                self.channel.send({"ok": True})
            else:
                self.channel.send({"ok": False, "error": f"unknown command {command!r}"})


def _widen(fd: int) -> None:
    """A 1 MiB pipe: a batch of inputs or of results crosses in one go, not in 64 KiB turns."""
    with contextlib.suppress(OSError):
        fcntl.fcntl(fd, fcntl.F_SETPIPE_SZ, _PIPE_BYTES)


def _describe_status(status: int) -> str:
    if os.WIFSIGNALED(status):
        number = os.WTERMSIG(status)
        try:
            return f"killed by signal {signal.Signals(number).name}"
        except ValueError:
            return f"killed by signal {number}"
    return f"exit code {os.WEXITSTATUS(status)}"


def main() -> None:
    channel, settings, _ = start_child()
    page = progress_page(settings)
    if page is None:  # shared with the call child only
        page = mmap.mmap(-1, PROGRESS_RECORD.size)
    forbid_inspection()
    sys.setrecursionlimit(_RECURSION_LIMIT)
    shield_from_builtin_patches(globals(), vars(calls))
    gc.freeze()
    Worker(channel, settings, page).serve()


if __name__ == "__main__":
    main()
