"""What every benchmark harness shares: a resumable per-item run over the store, and the JSON
envelope its results are written in.

A harness turns its dataset into items, each with a stable key (``"OJ_A/17"``, ``"1975F"``), and a
function that solves one item and returns a plain-JSON result. :func:`run_items` finds the stored
run with the same kind and parameters (or creates it), skips the items already saved, runs the rest
(``jobs`` at a time, in threads) and saves each result in its own transaction as soon as it is
done: a run killed at any moment resumes where it stopped, and a rerun whose model answers come
from the response cache costs nothing. The results are then read back from the store alone
(:func:`stored_results`), so a stored run can be reported again without running anything.

:func:`results_envelope` is the one shape of a harness's ``--json`` file::

    {"benchmark": "equibench", "format": 1, "divergent_version": "...", "run": "<id>",
     "status": "finished", "parameters": {...}, "summary": {...}, "usage": {...} | null,
     "items": [{"key": "...", ...}, ...]}
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from divergent import __version__
from divergent.errors import InvalidArgument
from divergent.store import UNIT_DONE, UNIT_ERROR, RunRecord, Store

__all__ = [
    "ENVELOPE_FORMAT",
    "ItemProgress",
    "results_envelope",
    "run_items",
    "stored_results",
]

#: the version of the results envelope (bump when a field changes meaning)
ENVELOPE_FORMAT = 1

Item = TypeVar("Item")


@dataclass
class ItemProgress:
    """Where a run stands, passed to the progress callback after every saved item."""

    total: int = 0
    #: items saved, in this invocation or an earlier one
    done: int = 0
    #: items found saved by an earlier invocation (skipped)
    resumed: int = 0
    #: items whose solver raised (saved with state "error")
    failed: int = 0
    seconds: float = 0.0
    messages: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class _Pending(Generic[Item]):
    key: str
    item: Item


def run_items(
    store: Store,
    kind: str,
    parameters: Mapping[str, Any],
    items: Iterable[tuple[str, Item]],
    solve: Callable[[Item], Mapping[str, Any]],
    *,
    jobs: int = 1,
    fatal: tuple[type[BaseException], ...] = (),
    on_progress: Callable[[ItemProgress], None] | None = None,
) -> tuple[RunRecord, ItemProgress]:
    """Run (or resume) the items of the stored run ``kind``/``parameters``; return the run and how it went.

    ``solve(item)`` returns the item's result (plain JSON); it runs in worker threads when
    ``jobs > 1``, while the store is written from the calling thread only. An exception of a type in
    ``fatal`` (say, an unreachable model: every later item would fail the same way) stops the run:
    the items already saved stay, the run is marked "failed" and the exception is raised again. Any
    other exception is saved as that item's error (``{"error": "..."}``, state "error") and the run
    goes on. Ctrl-C marks the run "interrupted" and raises KeyboardInterrupt; a rerun resumes it.
    """
    if jobs < 1:
        raise InvalidArgument(f"jobs={jobs}: need at least 1")
    keyed = list(items)
    keys = [key for key, _ in keyed]
    if len(set(keys)) != len(keys):
        duplicates = sorted({key for key in keys if keys.count(key) > 1})[:5]
        raise InvalidArgument(f"items with the same key: {', '.join(duplicates)}")
    run = store.find_run(kind, parameters)
    run = store.resume_run(run.id) if run is not None else store.create_run(kind, parameters)
    saved = store.done_keys(run.id)
    progress = ItemProgress(total=len(keyed))
    pending = [_Pending(key, item) for key, item in keyed if key not in saved]
    progress.resumed = progress.done = len(keyed) - len(pending)
    started = time.monotonic()

    def save(key: str, result: Mapping[str, Any] | None, error: BaseException | None, seconds: float) -> None:
        if error is None:
            assert result is not None
            store.save_unit(run.id, key, result, seconds, state=UNIT_DONE)
        else:
            message = f"{type(error).__name__}: {error}"
            store.save_unit(run.id, key, {"error": message}, seconds, state=UNIT_ERROR)
            progress.failed += 1
            if len(progress.messages) < 50:
                progress.messages.append(f"{key}: {message}")
        progress.done += 1
        progress.seconds = time.monotonic() - started
        if on_progress is not None:
            on_progress(progress)

    def timed(entry: _Pending[Item]) -> tuple[Mapping[str, Any], float]:
        begin = time.monotonic()
        result = solve(entry.item)
        return result, time.monotonic() - begin

    if on_progress is not None:
        on_progress(progress)
    try:
        if jobs == 1:
            for entry in pending:
                begin = time.monotonic()
                try:
                    result, seconds = timed(entry)
                except fatal:
                    raise
                except Exception as error:  # noqa: BLE001 - one item's failure is that item's result
                    save(entry.key, None, error, time.monotonic() - begin)
                else:
                    save(entry.key, result, None, seconds)
        else:
            _run_threaded(pending, timed, save, jobs, fatal)
    except KeyboardInterrupt:
        store.finish_run(run.id, "interrupted")
        raise
    except fatal:
        store.finish_run(run.id, "failed")
        raise
    return store.finish_run(run.id, "finished"), progress


def _run_threaded(
    pending: Sequence[_Pending[Item]],
    timed: Callable[[_Pending[Item]], tuple[Mapping[str, Any], float]],
    save: Callable[[str, Mapping[str, Any] | None, BaseException | None, float], None],
    jobs: int,
    fatal: tuple[type[BaseException], ...],
) -> None:
    """Keep ``jobs`` items in flight; save each in this thread as it completes."""
    queue = list(reversed(pending))
    executor = ThreadPoolExecutor(max_workers=jobs, thread_name_prefix="bench")
    running: dict[Future[tuple[Mapping[str, Any], float]], tuple[str, float]] = {}
    try:
        while queue or running:
            while queue and len(running) < jobs:
                entry = queue.pop()
                running[executor.submit(timed, entry)] = (entry.key, time.monotonic())
            finished, _ = wait(running, return_when=FIRST_COMPLETED)
            for future in finished:
                key, begin = running.pop(future)
                error = future.exception()
                if error is not None and isinstance(error, fatal):
                    raise error
                if error is not None and not isinstance(error, Exception):
                    raise error
                if error is None:
                    result, seconds = future.result()
                    save(key, result, None, seconds)
                else:
                    save(key, None, error, time.monotonic() - begin)
    finally:
        for future in running:
            future.cancel()
        executor.shutdown(wait=True, cancel_futures=True)


def stored_results(store: Store, run: RunRecord) -> tuple[dict[str, dict[str, Any]], dict[str, str]]:
    """The saved results of a run by key, and the errors of the items that failed (key -> message)."""
    results: dict[str, dict[str, Any]] = {}
    errors: dict[str, str] = {}
    for unit in store.units(run.id):
        if unit.state == UNIT_DONE:
            results[unit.key] = unit.result
        else:
            errors[unit.key] = str(unit.result.get("error", "unknown error"))
    return results, errors


def results_envelope(
    benchmark: str,
    run: RunRecord,
    *,
    summary: Mapping[str, Any],
    items: Sequence[Mapping[str, Any]],
    usage: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """The ``--json`` document of a harness (the shape in this module's docstring)."""
    return {
        "benchmark": benchmark,
        "format": ENVELOPE_FORMAT,
        "divergent_version": __version__,
        "run": run.id,
        "status": run.status,
        "parameters": dict(run.parameters),
        "summary": dict(summary),
        "usage": dict(usage) if usage is not None else None,
        "items": [dict(item) for item in items],
    }
