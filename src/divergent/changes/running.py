"""Running a diff's plan: one search per function (``check``'s: confirmation, shrinking, the
verdict rules), ``jobs`` at a time, under a budget the functions share, each side in its own tree.

On threads each job keeps one warm pool of sandboxed workers (:class:`~divergent.search.warm.WarmWorkers`)
and reloads it with each function's two sides, so a diff of 50 functions starts its workers once per
job, not once per function. On a Ray cluster (``--executor ray``) each function is one task that
starts its own workers (a Ray worker process outlives the diff: nothing is left running in it); the
searches and their results are the same. The functions go out as plain records
(:class:`CheckPayload`) and come back as plain JSON, so a cluster on the same machine or a shared
file system (the sides' trees are read where they are) runs them.

The budget: each function gets ``budget_per_function`` seconds, or less when the diff's ``budget``
would not hold the functions still to come: what is left, shared among them and the jobs, but at
least a second while the budget lasts. The functions whose own code changed go first, then the
others by how far they are from the change, so a budget too small for all leaves out the farthest;
a function whose turn comes when the budget is spent is not run, and says so (exit 4)."""

from __future__ import annotations

import functools
import sys
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from divergent.changes.plan import DiffPlan, PlannedFunction, Status
from divergent.changes.results import DiffResult, FunctionResult, Outcome
from divergent.executors.base import Executor, Finished, ThreadExecutor
from divergent.kinds.options import SearchOptions
from divergent.programs import PythonFunction
from divergent.records import Budget
from divergent.search.warm import WarmWorkers

__all__ = ["LEAST_SECONDS", "CheckPayload", "DiffSettings", "FunctionCheck", "diff", "run_diff"]

#: a function is not started with less than this (a search needs its workers and a few batches)
LEAST_SECONDS = 0.5
#: the least a function gets while the diff's budget lasts, when an equal share would be smaller
USEFUL_SECONDS = 1.0


@dataclass(frozen=True)
class DiffSettings:
    """How a diff runs: the options of each function's search (``budget`` and ``started`` are set
    per function), the budgets, the jobs, whether counterexamples are shrunk."""

    options: SearchOptions = field(default_factory=SearchOptions)
    budget_per_function: float = 5.0
    #: seconds for the whole diff (None: each function its own budget, however many there are)
    budget: float | None = None
    jobs: int = 1
    shrink: bool = True
    #: where reproducing tests are written (their paths are relative to it); None: the current directory
    test_dir: str | None = None


@dataclass(frozen=True)
class CheckPayload:
    """One function's search, as it travels to a job."""

    key: str
    old: PythonFunction
    new: PythonFunction
    seconds: float


_LOCAL = threading.local()
#: one reproducing test is written at a time
_SETTING_UP = threading.Lock()


@contextmanager
def _one_syntax_tree_at_a_time(threads: int) -> Iterator[None]:
    """While searches run on several threads, ``ast.parse`` runs in one at a time: CPython before
    3.13 keeps the depth of the syntax tree it is building in state the threads share, and two
    parses at once fail with "SystemError: AST constructor recursion depth mismatch" (gh-106905).
    The searches parse sources when they start and when their engines first run."""
    import ast

    if threads < 2 or sys.version_info >= (3, 13) or getattr(ast.parse, "_divergent_serialized", False):
        yield
        return
    parse = ast.parse
    lock = threading.RLock()

    @functools.wraps(parse)
    def serialized(*args: Any, **kwargs: Any) -> Any:
        with lock:
            return parse(*args, **kwargs)

    serialized._divergent_serialized = True  # type: ignore[attr-defined]
    ast.parse = serialized
    try:
        yield
    finally:
        ast.parse = parse
_OPENED: list[WarmWorkers] = []
_OPENED_LOCK = threading.Lock()


def _thread_workers(options: SearchOptions) -> WarmWorkers:
    """This thread's warm workers (sandboxes live as long as the thread that started them)."""
    workers = getattr(_LOCAL, "workers", None)
    if workers is None or workers.limits != options.limits or workers.isolation != options.isolation:
        workers = _LOCAL.workers = WarmWorkers(options.limits, options.isolation)
        with _OPENED_LOCK:
            _OPENED.append(workers)
    return workers


def close_thread_workers() -> None:
    """Close every warm pool the diff's jobs opened."""
    with _OPENED_LOCK:
        opened = list(_OPENED)
        _OPENED.clear()
    for workers in opened:
        workers.close()


@dataclass(frozen=True)
class FunctionCheck:
    """The solver of one function: ``check`` on its two sides, the result as plain JSON
    (``document``: ``check --json``'s; ``test``: the reproducing test of a difference), or
    ``skipped``/``note`` when the search cannot start (no way to make inputs, a signature the
    sides do not share) and ``note`` alone when the code does not load."""

    options: SearchOptions
    shrink: bool = True
    #: keep this thread's workers warm between functions (threads); False: start and close per function (Ray)
    warm: bool = True
    test_dir: str | None = None

    def __call__(self, payload: CheckPayload) -> dict[str, Any]:
        from divergent.errors import (
            DivergentError,
            InvalidArgument,
            LoadError,
            MissingSeeds,
            SignatureMismatch,
        )
        from divergent.kinds.registry import choose_kind
        from divergent.kinds.reports import report_json
        from divergent.search.check import run_check
        from divergent.search.prepare import prepare
        from divergent.search.warm import BorrowedRunner

        programs = [payload.old, payload.new]
        options = self.options.with_(budget=Budget(seconds=payload.seconds, executions=self.options.budget.executions))
        workers = _thread_workers(options) if self.warm else WarmWorkers(options.limits, options.isolation)
        try:
            try:
                pool = workers.pool(programs, compare_mutation=options.comparison.record_arguments)
                # the budget is the search's: it counts once the workers are there (started or reloaded)
                options = options.with_(started=time.monotonic())
                search = prepare(programs, options, main_runner=lambda: BorrowedRunner(pool))
            except (MissingSeeds, SignatureMismatch) as error:
                return {"skipped": True, "note": _first_line(error)}
            except (LoadError, InvalidArgument) as error:
                return {"note": f"does not load: {_first_line(error)}"}
            except DivergentError as error:
                return {"note": _first_line(error)}
            try:
                report = run_check(search, shrink=self.shrink)
            finally:
                search.close()
            kind = choose_kind(programs, options)
            document = report_json(report, payload.new.entry_point, extras=kind.extras(report, programs, options))
            test = None
            if report.counterexample is not None:
                directory = Path(self.test_dir) if self.test_dir else Path.cwd()
                try:
                    with _SETTING_UP:
                        test = kind.reproduction(report.counterexample, programs, options, test_dir=directory)
                except DivergentError:
                    test = None
            return {"document": document, "test": test}
        finally:
            if not self.warm:
                workers.close()


def _first_line(error: BaseException) -> str:
    text = str(error).strip().splitlines()
    return text[0] if text else type(error).__name__


def _solver_options(options: SearchOptions, remote: bool) -> SearchOptions:
    """Each function's options: no live display (the diff has its own), no model on a cluster."""
    options = options.with_(progress=None)
    return options.with_(llm=None, spurious_filter=None) if remote else options


def run_diff(plan: DiffPlan, settings: DiffSettings | None = None, *, executor: Executor | None = None,
             on_result: Callable[[FunctionResult], None] | None = None,
             done: dict[str, FunctionResult] | None = None,
             save: Callable[[FunctionResult], None] | None = None) -> DiffResult:
    """Check every function the plan checks (see the module docstring); ``executor``: where
    (default: ``settings.jobs`` threads); ``on_result``: called in this thread as each function is
    done; ``done``: results already stored by an earlier run of the same diff (not run again);
    ``save``: called with each new result (the store)."""
    settings = settings or DiffSettings()
    started = time.monotonic()
    work: Executor = executor if executor is not None else ThreadExecutor(settings.jobs)
    remote = not isinstance(work, ThreadExecutor)
    solver = FunctionCheck(_solver_options(settings.options, remote), shrink=settings.shrink, warm=not remote,
                           test_dir=settings.test_dir)
    results: dict[str, FunctionResult] = {}

    def finish(result: FunctionResult, stored: bool = False) -> None:
        results[result.function.name] = result
        if save is not None and not stored:
            save(result)
        if on_result is not None:
            on_result(result)

    to_run: list[PlannedFunction] = []
    for function in plan.functions:
        if done is not None and function.name in done:
            finish(done[function.name], stored=True)
        elif function.status != Status.CHECK:
            finish(FunctionResult(function, function.status))
        else:
            to_run.append(function)
    by_key = {function.name: function for function in to_run}

    # the nearest to the change first: with a budget too small for all, the far ones are left out
    to_run.sort(key=lambda function: function.distance)

    def payloads() -> Iterator[tuple[str, CheckPayload]]:
        for index, function in enumerate(to_run):
            seconds = settings.budget_per_function
            if settings.budget is not None:
                left = settings.budget - (time.monotonic() - started)
                share = left * min(work.capacity, len(to_run) - index) / (len(to_run) - index)
                # an equal share while it is worth a search; else a useful search each while it lasts
                seconds = min(seconds, max(share, USEFUL_SECONDS), left)
            if seconds < LEAST_SECONDS:
                finish(FunctionResult(function, Outcome.NOT_RUN, note="the diff's --budget was spent"))
                continue
            assert function.old is not None and function.new is not None
            yield function.name, CheckPayload(function.name, function.old, function.new, seconds)

    def collect(finished: Finished) -> None:
        function = by_key[finished.key]
        if finished.error is not None:
            finish(FunctionResult(function, Outcome.ERROR, seconds=finished.seconds, note=finished.error))
        else:
            assert finished.result is not None
            finish(FunctionResult.from_search(function, finished.result, finished.seconds))

    try:
        with _one_syntax_tree_at_a_time(0 if remote else work.capacity):
            work.map(solver, payloads(), collect)
    finally:
        if not remote:
            close_thread_workers()
    ordered = tuple(results[f.name] for f in plan.functions if f.name in results)
    return DiffResult(plan, ordered, seconds=time.monotonic() - started)


def diff(revisions: Sequence[str] = (), settings: DiffSettings | None = None, *, cwd: Path | None = None,
         paths: Sequence[str] = (), factories: Sequence[str] = ()) -> DiffResult:
    """``divergent diff`` as one call: the plan (:func:`~divergent.changes.plan.plan_diff`: the work
    tree against ``HEAD`` with no revision, a revision against the work tree, two revisions) run
    with ``settings`` on threads; ``factories`` as ``--factory`` takes them (``Class=module:callable``)."""
    from divergent.changes.calling import parse_factories
    from divergent.changes.plan import plan_diff

    plan = plan_diff(revisions, cwd=cwd, paths=paths, factories=parse_factories(factories))
    return run_diff(plan, settings)
