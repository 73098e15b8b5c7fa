"""What every benchmark harness shares: the shape of a run (a dataset, a solver, a scorer), the
resumable loop that works it, and the JSON envelope its results are written in.

A harness is three things, as an Inspect AI ``Task`` is:

* a **dataset**: :class:`Item` s, each with a stable key (``"OJ_A/17"``, ``"1975F/0"``) and a
  payload;
* a **solver**: a function of a payload that returns the item's plain-JSON result; it runs in
  worker threads, or on a Ray cluster's workers (so it is picklable: a frozen dataclass with a
  ``__call__`` that opens its sandbox runner in the process it runs in);
* a **scorer**: a function of the stored results alone (``summarize``), so a stored run is
  reported again without running anything; its ``--json`` document is :func:`results_envelope`.

:class:`RunPlan` holds the dataset and the solver with the stored run's identity (a kind and the
parameters that decide its results). :func:`run_plan` finds the stored run with the same kind and
parameters (or creates it), skips the items already saved, runs the rest on an
:class:`~divergent.executors.base.Executor` (threads, or Ray) and saves each result in its own
transaction as soon as it is back: a run killed at any moment resumes where it stopped, on either
executor, and a rerun whose model answers come from the response cache costs nothing.

:func:`results_envelope` is the one shape of a harness's ``--json`` file::

    {"benchmark": "equibench", "format": 1, "divergent_version": "...", "run": "<id>",
     "status": "finished", "parameters": {...}, "summary": {...}, "usage": {...} | null,
     "items": [{"key": "...", ...}, ...]}
"""

from __future__ import annotations

import contextlib
import json
import math
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Generic, TypeVar

from divergent import __version__
from divergent.errors import InvalidArgument, LoadError
from divergent.executors.base import Executor, Finished, ThreadExecutor
from divergent.store import UNIT_DONE, UNIT_ERROR, RunRecord, Store

__all__ = [
    "ENVELOPE_FORMAT",
    "Item",
    "ItemProgress",
    "RunPlan",
    "open_run",
    "pass_at_k",
    "plain_json",
    "read_results",
    "results_envelope",
    "run_items",
    "run_plan",
    "stored_results",
    "write_results",
]

#: the version of the results envelope (bump when a field changes meaning)
ENVELOPE_FORMAT = 1

Payload = TypeVar("Payload")


@dataclass
class ItemProgress:
    """Where a run stands, passed to the progress callback after every saved item (counted in the
    store's units: an item may fill several)."""

    total: int = 0
    #: units saved, in this invocation or an earlier one
    done: int = 0
    #: units found saved by an earlier invocation (skipped)
    resumed: int = 0
    #: units whose solver raised (saved with state "error")
    failed: int = 0
    seconds: float = 0.0
    messages: list[str] = field(default_factory=list)
    #: what is being worked on, when a run has parts (a strategy's name)
    label: str = ""


@dataclass(frozen=True)
class Item(Generic[Payload]):
    """One item of a dataset: its key, what the solver gets, and the store's units it fills."""

    key: str
    payload: Payload
    #: the units it fills (default: one, named by its key); a solver of several units returns
    #: ``{unit key: result}`` and the plan's ``split`` says so
    units: tuple[str, ...] = ()

    @property
    def unit_keys(self) -> tuple[str, ...]:
        return self.units or (self.key,)


@dataclass(frozen=True)
class RunPlan(Generic[Payload]):
    """A stored run to make: its identity (``kind``, ``parameters``), its dataset and its solver."""

    kind: str
    parameters: Mapping[str, Any]
    dataset: Sequence[Item[Payload]]
    solver: Callable[[Payload], Mapping[str, Any]]
    #: errors that doom every later item (an unreachable model): they stop the run
    fatal: tuple[type[BaseException], ...] = ()
    #: for items of several units: the solver's result → each unit's result (unit key → result)
    split: Callable[[Item[Payload], Mapping[str, Any]], Mapping[str, Mapping[str, Any]]] | None = None


def open_run(store: Store, kind: str, parameters: Mapping[str, Any]) -> tuple[RunRecord, set[str]]:
    """The stored run of ``kind`` with these parameters, marked running (created when there is
    none), and the keys of its saved units."""
    run = store.find_run(kind, parameters)
    run = store.resume_run(run.id) if run is not None else store.create_run(kind, parameters)
    return run, store.done_keys(run.id)


@contextmanager
def settled(store: Store, run: RunRecord) -> Iterator[None]:
    """While a stored run works: Ctrl-C marks it "interrupted", any other error "failed" (then
    raised again), so no run that stopped stays "running"; the units saved so far stay, and the
    same command resumes it."""
    try:
        yield
    except KeyboardInterrupt:
        store.finish_run(run.id, "interrupted")
        raise
    except BaseException:
        with contextlib.suppress(Exception):  # (the error being raised says more than this one)
            store.finish_run(run.id, "failed")
        raise


def run_plan(
    store: Store,
    plan: RunPlan[Payload],
    *,
    executor: Executor | None = None,
    on_progress: Callable[[ItemProgress], None] | None = None,
    opened: tuple[RunRecord, set[str]] | None = None,
    progress: ItemProgress | None = None,
) -> tuple[RunRecord, ItemProgress]:
    """Run (or resume) ``plan``; return the stored run and how it went.

    Items whose units are all saved are skipped; the rest go to ``executor`` (default: one thread)
    and each result is saved in the calling thread as soon as it is back. An exception of a type
    in ``plan.fatal`` stops the run: the items already saved stay, the run is marked "failed" and
    the exception is raised again. Any other exception is saved as that item's error (``{"error":
    "..."}``, state "error") and the run goes on. Ctrl-C marks the run "interrupted" and raises
    KeyboardInterrupt; a rerun resumes it.

    ``opened`` is the run and its saved keys when the caller opened it (:func:`open_run`) to build
    the dataset from what is missing; ``progress`` then counts what it left out."""
    keys = [key for item in plan.dataset for key in item.unit_keys]
    if len(set(keys)) != len(keys):
        duplicates = sorted({key for key in keys if keys.count(key) > 1})[:5]
        raise InvalidArgument(f"items with the same key: {', '.join(duplicates)}")
    run, saved = opened if opened is not None else open_run(store, plan.kind, plan.parameters)
    state = progress if progress is not None else ItemProgress()
    pending: dict[str, Item[Payload]] = {}
    for item in plan.dataset:
        state.total += len(item.unit_keys)
        if all(key in saved for key in item.unit_keys):
            state.resumed += len(item.unit_keys)
            state.done += len(item.unit_keys)
        else:
            pending[item.key] = item
    started = time.monotonic()

    def save(finished: Finished) -> None:
        item = pending[finished.key]
        if finished.error is None:
            assert finished.result is not None
            results = plan.split(item, finished.result) if plan.split is not None else {item.key: finished.result}
            share = finished.seconds / max(1, len(results))
            for key, result in results.items():
                store.save_unit(run.id, key, result, share, state=UNIT_DONE)
            state.done += len(results)
        else:
            share = finished.seconds / len(item.unit_keys)
            for key in item.unit_keys:
                store.save_unit(run.id, key, {"error": finished.error}, share, state=UNIT_ERROR)
            state.failed += len(item.unit_keys)
            state.done += len(item.unit_keys)
            if len(state.messages) < 50:
                state.messages.append(f"{item.key}: {finished.error}")
        state.seconds = time.monotonic() - started
        if on_progress is not None:
            on_progress(state)

    if on_progress is not None:
        on_progress(state)
    work = executor if executor is not None else ThreadExecutor(1)
    with settled(store, run):
        work.map(plan.solver, ((key, item.payload) for key, item in pending.items()), save, fatal=plan.fatal)
    return store.finish_run(run.id, "finished"), state


def run_items(
    store: Store,
    kind: str,
    parameters: Mapping[str, Any],
    items: Iterable[tuple[str, Payload]],
    solve: Callable[[Payload], Mapping[str, Any]],
    *,
    jobs: int = 1,
    fatal: tuple[type[BaseException], ...] = (),
    on_progress: Callable[[ItemProgress], None] | None = None,
    executor: Executor | None = None,
) -> tuple[RunRecord, ItemProgress]:
    """:func:`run_plan` of ``(key, payload)`` items, ``jobs`` threads at a time (or on ``executor``)."""
    if jobs < 1:
        raise InvalidArgument(f"jobs={jobs}: need at least 1")
    plan = RunPlan(kind, parameters, [Item(key, payload) for key, payload in items], solve, fatal)
    return run_plan(store, plan, executor=executor if executor is not None else ThreadExecutor(jobs),
                    on_progress=on_progress)


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


# -- pass@k, and results files read back by ``divergent bench NAME show FILE`` --


def pass_at_k(n: int, c: int, k: int) -> float:
    """The probability that at least one of ``k`` attempts drawn from ``n`` (of which ``c``
    succeeded) succeeds: ``1 - C(n - c, k) / C(n, k)``, the unbiased estimator of Chen et al. (2021)."""
    if n < 1 or not 0 <= c <= n or not 1 <= k <= n:
        raise InvalidArgument(f"pass@k needs 1 <= k <= n and 0 <= c <= n (n={n}, c={c}, k={k})")
    if n - c < k:
        return 1.0
    return 1.0 - math.prod((n - c - i) / (n - i) for i in range(k))


def write_results(path: Path, document: Mapping[str, Any]) -> None:
    """Write a results document (UTF-8, indented; NaN, an undefined rate, written as null)."""
    text = json.dumps(plain_json(document), indent=2, ensure_ascii=False)
    try:
        path.write_text(text + "\n", encoding="utf-8")
    except OSError as error:
        raise InvalidArgument(f"{path}: cannot write the results: {error.strerror or error}") from None


def plain_json(value: Any) -> Any:
    """``value`` with every NaN or infinity (an undefined rate) as None: strict JSON."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, Mapping):
        return {key: plain_json(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [plain_json(item) for item in value]
    return value


def read_results(path: Path, benchmark: str) -> dict[str, Any]:
    """A results document of ``benchmark`` (the envelope's shape); LoadError for anything else, or
    a newer format than this divergent knows."""
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
    if not isinstance(document.get("format"), int) or document["format"] > ENVELOPE_FORMAT:
        raise LoadError(f"{path}: results format {document.get('format')!r}, newer than this divergent's "
                        f"{ENVELOPE_FORMAT}")
    return document
