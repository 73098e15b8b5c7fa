"""The parent side of the sandbox: one persistent worker per implementation, run in parallel.

:class:`WorkerPool` starts a worker for each implementation, loads the implementation once (in the
worker's call child, :mod:`divergent.sandbox.child.worker`), and runs batches of inputs on all of
them at the same time. When a call kills or hangs the call child, the worker reports a *failure*:
the input it was on gets a CRASH or TIMEOUT outcome, the worker starts a fresh call child, and the
batch goes on. Should the worker itself die or stop answering (within the timeout plus a grace
period, plus a margin for the worker's own report), the parent kills it, gives the input a CRASH or
TIMEOUT outcome, and starts a fresh worker.

Everything a worker writes is checked here again (:mod:`divergent.sandbox.child.wire`, each call's
outcome in :mod:`divergent.sandbox.answers`): a frame of
the wrong shape, an outcome that is not well-formed, more results than calls, a stop before the
deadline are a CRASH of that implementation, never an exception of divergent.
"""

from __future__ import annotations

import atexit
import contextlib
import mmap
import os
import pickle
import re
import selectors
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, field

from divergent.errors import LoadError, SandboxUnavailable
from divergent.programs import PythonFunction
from divergent.records import Input, Outcome, OutcomeKind
from divergent.sandbox.answers import (
    ArgumentEncodings,
    checked_outcome,
    decoded_atoms,
    well_formed_load_answer,
)
from divergent.sandbox.child.kit import NO_PROGRESS, PROGRESS_RECORD
from divergent.sandbox.child.wire import (
    Malformed,
    check_results_frame,
)
from divergent.sandbox.frames import (
    ChildConnection,
    ChildGone,
    ProtocolViolation,
    implementation_paths,
    implementation_payload,
    start_child,
)
from divergent.sandbox.isolation import Isolation, choose_level
from divergent.sandbox.limits import Limits
from divergent.trace import mark

#: inputs sent to a worker in one message (bounds the memory of one exchange)
_CHUNK = 4096
#: slack between the clocks of two processes (seconds)
_SLACK = 0.05
_SILENT_WORKER = "the worker stopped answering (stopped or broken by the program); killed"
_WORKER_MODULE = "divergent.sandbox.child.worker"


#: past the worker's own patience with its call child, how long the parent waits for its report
REPORT_MARGIN = 1.5


class WorkerProcess(ChildConnection):
    """One sandboxed worker process (:mod:`divergent.sandbox.child.worker`)."""

    def __init__(
        self,
        impl: PythonFunction | None,
        limits: Limits,
        level: Isolation,
        *,
        read_only: Sequence[PythonFunction] = (),
        paths: Sequence[str] | None = None,
    ) -> None:
        """Start a worker that may read the files of ``impl`` and ``read_only`` (or exactly
        ``paths``, as :func:`~divergent.sandbox.frames.implementation_paths` gives them); with an
        implementation, also send it the command to load it."""
        if paths is None:
            paths = implementation_paths([impl, *read_only] if impl is not None else list(read_only))
        #: what the worker was started with (a blank worker is taken by a pool asking for the same)
        self.started_as = StartedAs(level, limits, tuple(paths))
        # The page where the call child writes the index of each call before making it: a memory
        # descriptor, never a path the sandbox could replace.
        fd = os.memfd_create("divergent-progress")
        try:
            os.ftruncate(fd, PROGRESS_RECORD.size)
            self._page = mmap.mmap(fd, PROGRESS_RECORD.size)
            self._page[:] = PROGRESS_RECORD.pack(NO_PROGRESS)
            process = start_child(
                _WORKER_MODULE, limits=limits, level=level, read_only=self.started_as.paths,
                settings={"progress_fd": fd}, pass_fds=(fd,),
            )
        finally:
            os.close(fd)
        # The pool and the matrix check every field of every frame themselves.
        super().__init__(process, check_nesting=False)
        self.impl: PythonFunction | None = None
        self.limits = limits
        if impl is not None:
            self.load(impl)

    def load(self, impl: PythonFunction) -> None:
        """Send the command to load ``impl`` (its answer is the next frame)."""
        self.impl = impl
        self.send("load", implementation_payload(impl))

    @property
    def alive(self) -> bool:
        return self.process.popen.poll() is None

    def progress(self) -> int | None:
        """The index of the call the worker last started (written before each call)."""
        (index,) = PROGRESS_RECORD.unpack(self._page[: PROGRESS_RECORD.size])
        return None if index == NO_PROGRESS else index


@dataclass(frozen=True)
class StartedAs:
    """What a worker was started with: the isolation level, the limits and the paths it may read
    (a worker's sandbox is fixed when it starts)."""

    level: Isolation
    limits: Limits
    paths: tuple[str, ...]


class _Stock:
    """Blank workers started ahead of need (:func:`prestart_workers`), by what they were started
    with; a pool takes one only when it would start its own with exactly the same (so the same
    command line, the same sandbox): such a worker has run nothing, so it is as fresh as a new one."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._workers: dict[StartedAs, list[WorkerProcess]] = {}

    def put(self, worker: WorkerProcess) -> None:
        with self._lock:
            self._workers.setdefault(worker.started_as, []).append(worker)

    def take(self, wanted: StartedAs) -> WorkerProcess | None:
        while True:
            with self._lock:
                workers = self._workers.get(wanted)
                worker = workers.pop(0) if workers else None
            if worker is None or worker.alive:
                return worker
            worker.kill()  # it died waiting (it never ran anything): start another

    def clear(self) -> None:
        with self._lock:
            workers = [w for waiting in self._workers.values() for w in waiting]
            self._workers.clear()
        for worker in workers:
            worker.process.signal_kill()
        for worker in workers:
            worker.kill()


_STOCK = _Stock()
atexit.register(_STOCK.clear)


def prestart_workers(paths: Sequence[Sequence[str]], *, limits: Limits = Limits(), isolation: str | None = None,
                     copies: int = 2) -> int:
    """Start ``copies`` blank workers for each set of readable ``paths`` (one per implementation,
    as :func:`~divergent.sandbox.frames.implementation_paths` gives them) and keep them for the
    pools that will ask for workers with these paths, ``limits`` and ``isolation`` (the command line
    starts them before it parses its options and imports the rest of divergent); the rest are
    killed at exit. How many were started.

    Call it from a thread that lives as long as the workers (the main thread): a worker is killed
    when the thread that started it ends (bubblewrap's ``--die-with-parent``)."""
    level = choose_level(isolation)
    started = 0
    for _ in range(copies):
        for readable in paths:
            _STOCK.put(WorkerProcess(None, limits, level, paths=readable))
            started += 1
    return started


def started_worker(impl: PythonFunction, limits: Limits, level: Isolation) -> WorkerProcess:
    """A worker loading ``impl``: a blank one started ahead with exactly these settings, else a new one."""
    worker = _STOCK.take(StartedAs(level, limits, tuple(implementation_paths([impl]))))
    if worker is None:
        return WorkerProcess(impl, limits, level)
    try:
        worker.load(impl)
    except ChildGone:
        worker.kill()
        return WorkerProcess(impl, limits, level)
    return worker


@dataclass
class _Task:
    """The work of one implementation within one :meth:`WorkerPool.run` call."""

    todo: list[int]
    in_flight: list[int] = field(default_factory=list)
    reported: int = 0
    last_progress: float = 0.0
    careful: bool = False
    #: the caller's deadline (``time.monotonic()``), past which a worker may stop a batch
    deadline: float | None = None
    #: when the batch in flight was sent, and the seconds its reported calls claim to have taken
    dispatched: float = 0.0
    claimed: float = 0.0


def unreadable_in_sandbox(error: str) -> str:
    """A worker's load error, said plainly when the sandbox could not read a file this process can
    (a PermissionError from the import machinery): the sandbox runs code as an unprivileged user,
    without this user's groups or privileges."""
    if "PermissionError" not in error:
        return error
    error = re.sub(r" \(at <frozen [^)]*\)", "", error)  # where in the import machinery: no help to anyone
    return ("the sandbox cannot read the file (it runs the code as an unprivileged user, without your groups or "
            "privileges): make it and its directory readable by others (chmod o+r FILE, o+x on its directories) "
            f"or copy it to a directory of your own [{error}]")


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
        #: facts the report should show about the runs (none: a worker's failures are outcomes)
        self.notes: list[str] = []
        self._workers: list[WorkerProcess | None] = [None] * len(self.implementations)
        self._arguments = ArgumentEncodings(())
        mark("pool start")
        try:
            self._start_all(range(len(self.implementations)))
            mark("pool ready")
        except BaseException:
            self.close()
            raise

    # -- lifecycle ------------------------------------------------------------------------------

    def _start_all(self, indices: Sequence[int] | range) -> None:
        started = {i: started_worker(self.implementations[i], self.limits, self.level) for i in indices}
        problems = []
        failed = []
        for i, worker in started.items():
            self._workers[i] = worker
            label = self.implementations[i].label
            try:
                answer = worker.wait_frame(self.limits.load_timeout + self.limits.grace + 5.0)
            except ChildGone:
                problems.append(f"{label}: the worker died while loading ({worker.kill()})")
                failed.append(label)
                continue
            if answer is None:
                problems.append(f"{label}: loading did not finish within {self.limits.load_timeout:g} s")
            elif not well_formed_load_answer(answer):
                problems.append(f"{label}: the worker broke the protocol while loading ({worker.kill()})")
            elif not answer.get("ok"):
                problems.append(f"{label}: {unreadable_in_sandbox(str(answer.get('error', 'could not load')))}")
            else:
                self.runtime_constants.extend(decoded_atoms(answer.get("constants")))
                continue
            failed.append(label)
        if problems:
            raise LoadError("; ".join(problems), programs=tuple(failed))

    def reload(self, implementations: Sequence[PythonFunction]) -> None:
        """Load other implementations (as many) into the warm workers: each worker starts a fresh
        call child (forked from the worker, its imports done) and loads its new implementation
        there, as a new worker would, without starting a sandbox: the worker first kills every
        process of its sandbox and puts the sandbox's ``/tmp`` and ``/dev/shm`` back as they were
        (:mod:`divergent.sandbox.child.containment`). A worker that is gone, or that may not read the
        new implementation's files, is started anew; so is every worker at the ``rlimits`` level,
        where no PID namespace contains what the previous implementation left running. Raises
        :class:`LoadError` as the constructor does (the pool then keeps the new implementations: a
        later run restarts the workers that did not load)."""
        if len(implementations) != len(self.implementations):
            raise ValueError("reload needs as many implementations as the pool has")
        if self._closed:
            raise SandboxUnavailable("the worker pool was closed")
        self.implementations = tuple(implementations)
        self.runtime_constants = []
        fresh = []
        for index, impl in enumerate(self.implementations):
            worker = self._workers[index]
            if (worker is None or worker.process.popen.poll() is not None or worker.impl is None
                    or self.level is Isolation.RLIMITS
                    or implementation_paths([impl]) != implementation_paths([worker.impl])):
                fresh.append(index)
                continue
            worker.impl = impl
            try:
                worker.send("load", implementation_payload(impl))
            except ChildGone:
                fresh.append(index)
        problems = []
        failed: list[str] = []
        for index, worker in enumerate(self._workers):
            if index in fresh or worker is None:
                continue
            try:
                answer = worker.wait_frame(self.limits.load_timeout + self.limits.grace + 5.0)
            except ChildGone:
                answer = None
            if answer is None or not well_formed_load_answer(answer):
                worker.kill()
                fresh.append(index)
            elif not answer.get("ok"):
                problems.append(f"{self.implementations[index].label}: {answer.get('error', 'could not load')}")
                failed.append(self.implementations[index].label)
            else:
                self.runtime_constants.extend(decoded_atoms(answer.get("constants")))
        for index in fresh:
            old = self._workers[index]
            if old is not None:
                old.kill()
            self._workers[index] = None
        if fresh:
            try:
                self._start_all(sorted(fresh))
            except LoadError as error:
                problems.append(str(error))
                failed.extend(error.programs)
        if problems:
            raise LoadError("; ".join(problems), programs=tuple(failed))

    def _replace(self, index: int) -> None:
        old = self._workers[index]
        if old is not None:
            old.kill()
        if self._closed:
            # Closed (from another thread) while a run was in progress: the run ends here.
            raise SandboxUnavailable("the worker pool was closed")
        self.restarts += 1
        worker = started_worker(self.implementations[index], self.limits, self.level)
        self._workers[index] = worker
        try:
            answer = worker.wait_frame(self.limits.load_timeout + self.limits.grace + 5.0)
        except ChildGone:
            answer = None
        if answer is None or not well_formed_load_answer(answer) or not answer.get("ok"):
            raise SandboxUnavailable(
                f"{self.implementations[index].label}: a replacement worker did not load "
                f"({answer.get('error') if answer else 'no answer'})"
            )

    def close(self) -> None:
        self._closed = True
        workers = [worker for worker in self._workers if worker is not None]
        self._workers = [None] * len(self.implementations)
        for worker in workers:  # every worker told to die first, then each waited for
            worker.process.signal_kill()
        for worker in workers:
            worker.kill()

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
        tasks = {i: _Task(todo=list(range(len(inputs))), deadline=deadline) for i in range(count)}
        self._arguments = ArgumentEncodings(inputs)
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
                # (not the caller's deadline: that one stays what the caller gave)
                wake_at = min(t.last_progress for t in tasks.values() if t.in_flight) + self._patience()
                for key, _ in selector.select(max(0.0, wake_at - now)):
                    i = key.data
                    self._collect(i, tasks[i], results, selector)
                now = time.monotonic()
                for i, task in tasks.items():
                    if task.in_flight and now - task.last_progress > self._patience():
                        # The worker reports its call child's hangs itself: a worker that does not
                        # answer was stopped or broken (by the program): a crash, not a timeout.
                        self._fail(i, task, results, selector, silent=True)
        complete = [None if None in row else tuple(row) for row in results]
        self.executions += sum(len(row) - row.count(None) for row in results)
        return complete  # type: ignore[return-value]

    def _patience(self) -> float:
        """How long the parent waits for a worker (which waits the batch's per-call limit plus its
        grace for its call child)."""
        return self._batch_timeout + Limits.grace_for(self._batch_timeout) + REPORT_MARGIN

    def _dispatch(self, i: int, task: _Task, blobs: list[bytes], selector: selectors.BaseSelector,
                  results: list[list[Outcome | None]], deadline: float | None) -> None:
        chunk, task.todo = task.todo[:_CHUNK], task.todo[_CHUNK:]
        task.in_flight, task.reported = chunk, 0
        task.last_progress = task.dispatched = time.monotonic()
        task.claimed = 0.0
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
            self._fail(i, task, results, selector)
            return
        selector.register(worker.fileno(), selectors.EVENT_READ, i)

    def _collect(self, i: int, task: _Task, results: list[list[Outcome | None]],
                 selector: selectors.BaseSelector) -> None:
        worker = self._workers[i]
        assert worker is not None
        try:
            frames = worker.read_frames()
            for frame in frames:
                raw_results = check_results_frame(frame, from_worker=True)
                if task.reported + len(raw_results) > len(task.in_flight):
                    raise ProtocolViolation("too many results")
                stdout_chars = self.limits.stdout_bytes
                for raw in raw_results:
                    outcome = checked_outcome(raw, stdout_chars, self._arguments, task.in_flight[task.reported])
                    if outcome.kind is OutcomeKind.TIMEOUT and outcome.seconds < self._batch_timeout - _SLACK:
                        raise ProtocolViolation("a timeout before the time was up")
                    task.claimed += outcome.seconds
                    results[task.in_flight[task.reported]][i] = outcome
                    task.reported += 1
                task.last_progress = time.monotonic()
                if task.claimed > task.last_progress - task.dispatched + _SLACK:
                    raise ProtocolViolation("calls that claim more time than has passed")
                if "failure" in frame:
                    self._fail(i, task, results, selector, failure=frame["failure"])
                    return
                if frame.get("done"):
                    if frame.get("stopped"):
                        if task.deadline is None or time.monotonic() < task.deadline - 0.05:
                            raise ProtocolViolation("a stop before the deadline")
                        task.todo = []  # the deadline passed: what was not run stays None
                    elif task.reported != len(task.in_flight):
                        raise ProtocolViolation("missing results")
                    selector.unregister(worker.fileno())
                    task.in_flight = []
                    task.careful = False
        except (ProtocolViolation, Malformed, KeyError, TypeError, ValueError, IndexError) as error:
            self._fail(i, task, results, selector, broke=f"the worker broke the protocol ({str(error)[:200]})")
        except ChildGone:
            self._fail(i, task, results, selector)

    def _fail(self, i: int, task: _Task, results: list[list[Outcome | None]],
              selector: selectors.BaseSelector, *, failure: dict | None = None, broke: str | None = None,
              silent: bool = False) -> None:
        """A call of the batch in flight failed: its outcome, and the rest of the batch back to do.

        ``failure``: what the worker reported (its call child died, hung or broke the protocol); the
        worker lives on. Else the worker itself died, stopped answering (``silent``) or wrote what
        the protocol does not allow (``broke``: why), and is replaced. After a broken protocol no
        answer of the batch can be trusted: every input of it is a CRASH."""
        worker = self._workers[i]
        assert worker is not None
        with contextlib.suppress(KeyError, ValueError):
            selector.unregister(worker.fileno())
        unreported = task.in_flight[task.reported :]
        started, how, hung, suspect = account_of_failure(worker, failure=failure, broke=broke, silent=silent)
        if suspect:
            for index in task.in_flight:
                results[index][i] = Outcome(kind=OutcomeKind.CRASH, detail=how)
            unreported = []
        elif unreported:
            culprit = started if started in unreported else unreported[0]
            if hung:
                outcome = Outcome(kind=OutcomeKind.TIMEOUT, detail=how, seconds=self._batch_timeout + Limits.grace_for(self._batch_timeout))
            else:
                outcome = Outcome(kind=OutcomeKind.CRASH, detail=how)
            results[culprit][i] = outcome
            unreported.remove(culprit)
        task.todo = unreported + task.todo
        task.in_flight, task.reported = [], 0
        task.careful = started is None  # without progress information, find the culprit one by one
        if failure is None:
            self._replace(i)
        else:
            self.restarts += 1  # the worker started a fresh call child


def account_of_failure(
    worker: WorkerProcess, *, failure: dict | None, broke: str | None, silent: bool
) -> tuple[int | None, str, bool, bool]:
    """What went wrong under a batch: (the call that was running, how it ended, whether it hung,
    whether the batch's answers are suspect). ``failure``: what the worker reported (it lives on);
    without one the worker died, stopped answering (``silent``) or ``broke`` the protocol, and is
    killed here."""
    if failure is not None:
        return failure["started"], failure["detail"], failure["kind"] == "timeout", failure["kind"] == "protocol"
    started = worker.progress()
    ended = worker.kill()
    if broke:
        return started, f"{broke}; killed", False, True
    return started, _SILENT_WORKER if silent else f"worker died: {ended}", False, False
