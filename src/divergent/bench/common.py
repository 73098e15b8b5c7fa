"""What every benchmark harness shares: a stored, resumable run over items, pass@k, and the JSON
results envelope.

**A stored run** (:func:`run_items`). A benchmark run is a run of the store (``kind`` = the
benchmark, its ``parameters`` identify it) split into units, one per item of work (for REFUTE one
attempt of one strategy on one problem, ``zero-shot/1975F/0``). Each finished unit is saved in
its own transaction as soon as it is done, so a run killed at any moment keeps every finished
unit, and the same command run again finds the run by its parameters and does only the units it
lacks. Work runs ``jobs`` items at a time on threads; results are saved in the calling thread
(a :class:`~divergent.store.Store` belongs to its thread).

What is *not* saved: a unit whose work raised. An error of one item (a row whose code does not
build, a model answer cache miss in replay mode) is counted and reported, and the next run tries
it again; an error that dooms every item (:data:`FATAL_ERRORS`: the endpoint is down or refuses
the key, the sandbox cannot start) stops the run at once, keeping what was saved.

**pass@k** (:func:`pass_at_k`): the unbiased estimator of Chen et al. (2021) from ``n`` attempts
of which ``c`` succeeded.

**The envelope** (:func:`results_envelope`, :func:`read_results`): every ``--json`` file of a
benchmark is ``{"benchmark", "format", "divergent_version", "run", "parameters", ...}`` plus the
benchmark's own fields, so ``divergent bench NAME report FILE`` can refuse another benchmark's
file or a newer format with a clear message.
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Generic, TypeVar

from divergent import __version__
from divergent.errors import DivergentError, InvalidArgument, LLMUnavailable, LoadError, SandboxUnavailable
from divergent.store import RunRecord, Store, UnitRecord

__all__ = [
    "FATAL_ERRORS",
    "RESULTS_FORMAT",
    "RunProgress",
    "WorkItem",
    "pass_at_k",
    "read_results",
    "results_envelope",
    "run_items",
    "stored_units",
    "write_results",
]

#: errors that doom every item of a run: it stops at the first one (what was saved stays)
FATAL_ERRORS: tuple[type[BaseException], ...] = (LLMUnavailable, SandboxUnavailable)
#: the version of the results envelope; bump it when a field changes meaning
RESULTS_FORMAT = 1
#: messages kept in a progress record (the first ones: later ones are usually the same)
_MAX_MESSAGES = 50

T = TypeVar("T")


@dataclass(frozen=True)
class WorkItem(Generic[T]):
    """One unit of work: its key in the store (unique within the run) and what the work needs."""

    key: str
    payload: T


@dataclass
class RunProgress:
    """Where a run stands; passed to the progress callback after every unit (in the calling thread)."""

    total: int = 0
    #: units finished, those found in the store included
    done: int = 0
    #: units that were already in the store when the run started (a resumed run)
    resumed: int = 0
    #: units whose work raised (not saved: a rerun tries them again)
    failed: int = 0
    #: the key of the unit that finished last
    last: str | None = None
    started: float = field(default_factory=time.monotonic)
    #: why the run stopped before its end (a fatal error), else None
    stopped: str | None = None
    messages: list[str] = field(default_factory=list)

    @property
    def seconds(self) -> float:
        return time.monotonic() - self.started

    def note(self, message: str) -> None:
        if len(self.messages) < _MAX_MESSAGES:
            self.messages.append(message)


def _open_run(store: Store, kind: str, parameters: Mapping[str, Any]) -> RunRecord:
    found = store.find_run(kind, parameters)
    return store.resume_run(found.id) if found is not None else store.create_run(kind, parameters)


def run_items(
    store: Store,
    kind: str,
    parameters: Mapping[str, Any],
    items: Sequence[WorkItem[T]],
    work: Callable[[T], Mapping[str, Any]],
    *,
    jobs: int = 1,
    on_progress: Callable[[RunProgress], None] | None = None,
) -> tuple[RunRecord, RunProgress]:
    """Run (or resume) the stored run of ``kind`` with ``parameters``: ``work(item.payload)`` for
    every item whose key is not saved yet, ``jobs`` at a time, each result saved when it is done.

    ``work`` returns the unit's result (plain JSON). It may raise: a :class:`DivergentError` is
    that unit's failure (counted, reported in ``messages``, not saved), one of
    :data:`FATAL_ERRORS` stops the run (``progress.stopped`` says why; the run is marked failed).
    Ctrl-C marks the run interrupted and re-raises. Returns the run and its progress."""
    if jobs < 1:
        raise InvalidArgument(f"jobs={jobs!r} must be >= 1")
    keys = [item.key for item in items]
    if len(set(keys)) != len(keys):
        raise InvalidArgument("the items of a run need distinct keys")
    run = _open_run(store, kind, parameters)
    done = store.done_keys(run.id)
    progress = RunProgress(total=len(items))
    pending = [item for item in items if item.key not in done]
    progress.resumed = progress.done = len(items) - len(pending)
    if on_progress is not None:
        on_progress(progress)

    def one(item: WorkItem[T]) -> tuple[Mapping[str, Any], float]:
        started = time.monotonic()
        result = work(item.payload)
        return result, time.monotonic() - started

    pool = ThreadPoolExecutor(max_workers=jobs, thread_name_prefix=f"bench-{kind}")
    try:
        running: dict[Future[tuple[Mapping[str, Any], float]], WorkItem[T]] = {}
        queue = iter(pending)
        _submit(pool, running, queue, one, jobs)
        while running:
            finished, _ = wait(running, return_when=FIRST_COMPLETED)
            for future in finished:
                item = running.pop(future)
                _record(store, run, item, future, progress)
                if on_progress is not None:
                    on_progress(progress)
            if progress.stopped is None:
                _submit(pool, running, queue, one, jobs)
    except KeyboardInterrupt:
        pool.shutdown(wait=False, cancel_futures=True)
        store.finish_run(run.id, "interrupted")
        raise
    pool.shutdown(wait=True)
    return store.finish_run(run.id, "failed" if progress.stopped else "finished"), progress


def _submit(
    pool: ThreadPoolExecutor,
    running: dict[Future[Any], WorkItem[T]],
    queue: Iterable[WorkItem[T]],
    one: Callable[[WorkItem[T]], Any],
    jobs: int,
) -> None:
    """Keep ``jobs`` items in flight (submitting lazily, so a fatal error leaves the rest unstarted)."""
    iterator = iter(queue)
    while len(running) < jobs:
        item = next(iterator, None)
        if item is None:
            return
        running[pool.submit(one, item)] = item


def _record(store: Store, run: RunRecord, item: WorkItem[T], future: Future[Any], progress: RunProgress) -> None:
    progress.last = item.key
    try:
        result, seconds = future.result()
    except FATAL_ERRORS as error:
        progress.failed += 1
        if progress.stopped is None:
            progress.stopped = f"{item.key}: {error}"
        return
    except DivergentError as error:
        progress.failed += 1
        progress.note(f"{item.key}: {error}")
        return
    store.save_unit(run.id, item.key, result, seconds)
    progress.done += 1


def stored_units(store: Store, run: RunRecord) -> list[UnitRecord]:
    """The run's saved units (the ones a summary is computed from)."""
    return [unit for unit in store.units(run.id) if unit.state == "done"]


def pass_at_k(n: int, c: int, k: int) -> float:
    """The probability that at least one of ``k`` attempts drawn from ``n`` (of which ``c``
    succeeded) succeeds: ``1 - C(n - c, k) / C(n, k)`` (Chen et al., 2021)."""
    if n < 1 or not 0 <= c <= n or not 1 <= k <= n:
        raise InvalidArgument(f"pass@k needs 1 <= k <= n and 0 <= c <= n (n={n}, c={c}, k={k})")
    if n - c < k:
        return 1.0
    return 1.0 - math.prod((n - c - i) / (n - i) for i in range(k))


def results_envelope(
    benchmark: str, run: RunRecord | None, parameters: Mapping[str, Any], **body: Any
) -> dict[str, Any]:
    """A benchmark's ``--json`` document: the envelope fields, then the benchmark's own."""
    return {
        "benchmark": benchmark,
        "format": RESULTS_FORMAT,
        "divergent_version": __version__,
        "run": run.id if run is not None else None,
        "parameters": dict(parameters),
        **body,
    }


def write_results(path: Path, document: Mapping[str, Any]) -> None:
    """Write a results document (UTF-8, indented, NaN written as null)."""
    text = json.dumps(_no_nan(document), indent=2, ensure_ascii=False)
    try:
        path.write_text(text + "\n", encoding="utf-8")
    except OSError as error:
        raise InvalidArgument(f"{path}: cannot write the results: {error.strerror or error}") from None


def _no_nan(value: Any) -> Any:
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, Mapping):
        return {key: _no_nan(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_no_nan(item) for item in value]
    return value


def read_results(path: Path, benchmark: str) -> dict[str, Any]:
    """A results document of ``benchmark`` written by :func:`write_results` (LoadError otherwise)."""
    try:
        document = json.loads(path.read_text(encoding="utf-8"))
    except OSError as error:
        raise LoadError(f"{path}: cannot read: {error.strerror or error}") from None
    except ValueError as error:
        raise LoadError(f"{path}: not JSON: {error}") from None
    if not isinstance(document, dict) or "benchmark" not in document:
        raise LoadError(f"{path}: not a divergent benchmark results file")
    if document["benchmark"] != benchmark:
        raise LoadError(f"{path}: results of benchmark {document['benchmark']!r}, not {benchmark!r}")
    if not isinstance(document.get("format"), int) or document["format"] > RESULTS_FORMAT:
        raise LoadError(
            f"{path}: results format {document.get('format')!r}, newer than this divergent's {RESULTS_FORMAT}"
        )
    return document
