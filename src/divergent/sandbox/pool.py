"""The parent side of the sandbox: one persistent worker per implementation, run in parallel.

:class:`WorkerPool` starts a worker for each implementation, loads the implementation once, and
runs batches of inputs on all of them at the same time. A worker that hangs past its timeout (plus
a grace period) is killed; one that dies is noticed by end of file; either way the input it was on
gets a TIMEOUT or CRASH outcome, a fresh worker takes its place, and the batch goes on.
"""

from __future__ import annotations

import contextlib
import pickle
import selectors
import struct
import time
from collections.abc import Sequence
from dataclasses import dataclass, field

from divergent.errors import LoadError, SandboxUnavailable
from divergent.model import ExceptionInfo, Input, Outcome, OutcomeKind
from divergent.programs import PythonFunction
from divergent.sandbox.child.kit import PROGRESS_FILE, PROGRESS_RECORD
from divergent.sandbox.frames import (
    ChildConnection,
    ChildGone,
    ProtocolViolation,
    implementation_payload,
    start_child,
)
from divergent.sandbox.isolation import Isolation, choose_level
from divergent.sandbox.limits import Limits
from divergent.values import NotBuiltin, decode_builtin

#: inputs sent to a worker in one message (bounds the memory of one exchange)
_CHUNK = 4096
_WORKER_MODULE = "divergent.sandbox.child.worker"


class WorkerProcess(ChildConnection):
    """One sandboxed worker process (:mod:`divergent.sandbox.child.worker`)."""

    def __init__(self, impl: PythonFunction | None, limits: Limits, level: Isolation) -> None:
        """Start a worker; with an implementation, also send it the command to load it."""
        super().__init__(start_child(_WORKER_MODULE, PROGRESS_FILE, limits=limits, level=level))
        self.impl = impl
        self.limits = limits
        if impl is not None:
            self.send("load", implementation_payload(impl))

    def progress(self) -> int | None:
        """The index of the call the worker last started (written by the worker before each call)."""
        try:
            data = (self.process.workdir / PROGRESS_FILE).read_bytes()
            return PROGRESS_RECORD.unpack(data[: PROGRESS_RECORD.size])[0]
        except (OSError, struct.error):
            return None


@dataclass
class _Task:
    """The work of one implementation within one :meth:`WorkerPool.run` call."""

    todo: list[int]
    in_flight: list[int] = field(default_factory=list)
    reported: int = 0
    last_progress: float = 0.0
    careful: bool = False


class WorkerPool:
    """Persistent sandboxed workers, one per implementation.

    Use as a context manager, or call :meth:`close`. Loading errors (syntax, imports, a missing
    function, top-level code that hangs) raise :class:`LoadError` from the constructor.
    """

    def __init__(
        self,
        implementations: Sequence[PythonFunction],
        *,
        limits: Limits = Limits(),
        isolation: str | Isolation | None = None,
        compare_mutation: bool = True,
    ) -> None:
        self.implementations = tuple(implementations)
        self.limits = limits
        self.level = choose_level(isolation)
        self.compare_mutation = compare_mutation
        self.executions = 0
        self.restarts = 0
        #: the per-call limit of the batch being run
        self._batch_timeout = limits.timeout
        self._closed = False
        #: numbers, strings and bytes the implementations computed when they loaded (decoded builtins)
        self.runtime_constants: list = []
        self._workers: list[WorkerProcess | None] = [None] * len(self.implementations)
        try:
            self._start_all(range(len(self.implementations)))
        except BaseException:
            self.close()
            raise

    # -- lifecycle ------------------------------------------------------------------------------

    def _start_all(self, indices: Sequence[int] | range) -> None:
        started = {i: WorkerProcess(self.implementations[i], self.limits, self.level) for i in indices}
        problems = []
        for i, worker in started.items():
            self._workers[i] = worker
            label = self.implementations[i].label
            try:
                answer = worker.wait_frame(self.limits.load_timeout + self.limits.grace + 5.0)
            except ChildGone:
                problems.append(f"{label}: the worker died while loading ({worker.kill()})")
                continue
            if answer is None:
                problems.append(f"{label}: loading did not finish within {self.limits.load_timeout:g} s")
            elif not answer.get("ok"):
                problems.append(f"{label}: {answer.get('error', 'could not load')}")
            else:
                self.runtime_constants.extend(_decoded_atoms(answer.get("constants")))
        if problems:
            raise LoadError("; ".join(problems))

    def _replace(self, index: int) -> None:
        old = self._workers[index]
        if old is not None:
            old.kill()
        if self._closed:
            # Closed (from another thread) while a run was in progress: the run ends here.
            raise SandboxUnavailable("the worker pool was closed")
        self.restarts += 1
        worker = WorkerProcess(self.implementations[index], self.limits, self.level)
        self._workers[index] = worker
        try:
            answer = worker.wait_frame(self.limits.load_timeout + self.limits.grace + 5.0)
        except ChildGone:
            answer = None
        if answer is None or not answer.get("ok"):
            raise SandboxUnavailable(
                f"{self.implementations[index].label}: a replacement worker did not load "
                f"({answer.get('error') if answer else 'no answer'})"
            )

    def close(self) -> None:
        self._closed = True
        for worker in self._workers:
            if worker is not None:
                worker.kill()
        self._workers = [None] * len(self.implementations)

    def __enter__(self) -> WorkerPool:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- running --------------------------------------------------------------------------------

    def run(
        self, inputs: Sequence[Input], *, deadline: float | None = None, timeout: float | None = None
    ) -> list[tuple[Outcome, ...] | None]:
        """Run every input on every implementation; one tuple of outcomes per input.

        With a ``deadline`` (a ``time.monotonic()`` value), no call starts after it; inputs that did
        not run on every implementation get None instead of outcomes. ``timeout``: the per-call
        limit of this batch (default: the pool's ``limits.timeout``).
        """
        if not inputs:
            return []
        self._batch_timeout = self.limits.timeout if timeout is None else timeout
        blobs = [pickle.dumps((tuple(i.args), dict(i.kwargs)), protocol=pickle.HIGHEST_PROTOCOL) for i in inputs]
        count = len(self.implementations)
        results: list[list[Outcome | None]] = [[None] * count for _ in inputs]
        tasks = {i: _Task(todo=list(range(len(inputs)))) for i in range(count)}
        with selectors.DefaultSelector() as selector:
            while tasks:
                for i, task in list(tasks.items()):
                    if not task.in_flight:
                        if deadline is not None and time.monotonic() >= deadline:
                            task.todo = []
                        if not task.todo:
                            del tasks[i]
                            continue
                        self._dispatch(i, task, blobs, selector, results, deadline)
                if not tasks:
                    break
                now = time.monotonic()
                # (its own name: ``deadline`` is the caller's, still needed for the next dispatch)
                wake = min(t.last_progress for t in tasks.values() if t.in_flight) + self._patience()
                for key, _ in selector.select(max(0.0, wake - now)):
                    i = key.data
                    self._collect(i, tasks[i], results, selector)
                now = time.monotonic()
                for i, task in tasks.items():
                    if task.in_flight and now - task.last_progress > self._patience():
                        self._fail(i, task, results, selector, hung=True)
        complete = [None if None in row else tuple(row) for row in results]
        self.executions += sum(len(row) - row.count(None) for row in results)
        return complete  # type: ignore[return-value]

    def _patience(self) -> float:
        return self._batch_timeout + Limits.grace_for(self._batch_timeout)

    def _dispatch(self, i: int, task: _Task, blobs: list[bytes], selector: selectors.BaseSelector,
                  results: list[list[Outcome | None]], deadline: float | None) -> None:
        chunk, task.todo = task.todo[:_CHUNK], task.todo[_CHUNK:]
        task.in_flight, task.reported = chunk, 0
        task.last_progress = time.monotonic()
        worker = self._workers[i]
        assert worker is not None
        try:
            worker.send(
                "run",
                {
                    "inputs": [blobs[j] for j in chunk],
                    "indices": chunk,
                    "encode_args": self.compare_mutation,
                    "careful": task.careful,
                    "timeout": self._batch_timeout,
                    "deadline": None if deadline is None else max(0.0, deadline - time.monotonic()),
                },
            )
        except ChildGone:
            self._fail(i, task, results, selector, hung=False)
            return
        selector.register(worker.fileno(), selectors.EVENT_READ, i)

    def _collect(self, i: int, task: _Task, results: list[list[Outcome | None]],
                 selector: selectors.BaseSelector) -> None:
        worker = self._workers[i]
        assert worker is not None
        try:
            frames = worker.read_frames()
            for frame in frames:
                for raw in frame.get("results", ()):
                    if task.reported >= len(task.in_flight):
                        raise ProtocolViolation("too many results")
                    results[task.in_flight[task.reported]][i] = outcome_from_wire(raw)
                    task.reported += 1
                task.last_progress = time.monotonic()
                if frame.get("done"):
                    if frame.get("stopped"):
                        task.todo = []  # the deadline passed: what was not run stays None
                    elif task.reported != len(task.in_flight):
                        raise ProtocolViolation("missing results")
                    selector.unregister(worker.fileno())
                    task.in_flight = []
                    task.careful = False
        except (ChildGone, KeyError, TypeError, ValueError, IndexError):
            self._fail(i, task, results, selector, hung=False)

    def _fail(self, i: int, task: _Task, results: list[list[Outcome | None]],
              selector: selectors.BaseSelector, *, hung: bool) -> None:
        worker = self._workers[i]
        assert worker is not None
        with contextlib.suppress(KeyError, ValueError):
            selector.unregister(worker.fileno())
        unreported = task.in_flight[task.reported :]
        started = worker.progress()
        how = worker.kill()
        if started in unreported:
            culprit = started
        elif unreported:
            culprit = unreported[0]
        else:
            culprit = None
        if culprit is not None:
            if hung:
                outcome = Outcome(
                    kind=OutcomeKind.TIMEOUT,
                    detail=f"no answer within {self._patience():g} s; killed",
                    seconds=self._patience(),
                )
            else:
                outcome = Outcome(kind=OutcomeKind.CRASH, detail=f"worker died: {how}")
            results[culprit][i] = outcome
            unreported.remove(culprit)
        task.todo = unreported + task.todo
        task.in_flight, task.reported = [], 0
        task.careful = started is None  # without progress information, find the culprit one by one
        self._replace(i)


_KINDS = {kind.value: kind for kind in OutcomeKind}


def _decoded_atoms(encoded: object) -> list:
    """Rebuild the reported runtime constants; anything that is not a plain atom is dropped."""
    if not isinstance(encoded, list):
        return []
    atoms = []
    for item in encoded:
        try:
            value = decode_builtin(item)
        except (NotBuiltin, TypeError, ValueError, IndexError):
            continue
        if type(value) in (int, float, str, bytes):
            atoms.append(value)
    return atoms


def outcome_from_wire(raw: dict) -> Outcome:
    """The :class:`Outcome` a worker reported in its wire form (``{"k": kind, "v": value, ...}``);
    raises KeyError, TypeError or ValueError for a malformed one."""
    kind = _KINDS[raw["k"]]
    exception = None
    if kind is OutcomeKind.RAISED:
        name, message, mro = raw["e"]
        exception = ExceptionInfo(type_name=str(name), message=str(message), mro=tuple(map(str, mro)))
    return Outcome(
        kind=kind,
        value=raw.get("v"),
        exception=exception,
        args_after=raw.get("a"),
        stdout=str(raw.get("o", "")),
        detail=str(raw.get("d", "")),
        seconds=float(raw.get("s", 0.0)),
    )
