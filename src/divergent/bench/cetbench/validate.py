"""Running a task's tests on program versions, and asking divergent whether two versions differ:
how the CETBench generator validates each perturbation step and each original pair.

Tests: HumanEval's ``check(candidate)`` is split into its statements (each ``assert``, loop or call
is one test; assignments and imports are the prelude every test runs first), MBPP's ``test_list``
gives one test per assert line. A test runs in the sandbox, in the program's module, with
``candidate`` bound to the entry point; it passes when it runs to its end. A version's result is one
pass/fail per test, so "keeps passing" and "a test that passed now fails" are exact.

Differences: :func:`find_difference` runs ``divergent.check`` on two versions with the task's test
calls as seeds and the cheap, reproducible engines (seeds and mutation) under an *execution* budget,
so a generation run is deterministic for its seed.

Warm workers: a generator makes hundreds of versions, each tested and most of them checked. Starting
a sandbox per version (and per check, three: the main runner and two fresh ones for confirmation)
cost more than the runs themselves, so :class:`WarmWorkers` keeps started sandboxed workers and loads
each new version into them: a fresh call child per load, forked from the warm worker, in a sandbox
put back as it was before any version ran (every process of the previous version killed, its files
in ``/tmp`` and ``/dev/shm`` removed, no writable directory on ``sys.path``: docs/sandbox.md, "Warm
runs"), so the version still runs only in the sandbox, with none of the previous version's state.
At the ``rlimits`` level, which has no PID namespace to contain what a version leaves running, each
version gets new workers. A check confirms a difference on brand-new workers, as every check does.

A deadline (the generator's per-pair budget) bounds both: a test run or a check that reaches it
raises :class:`OverBudget` instead of giving a verdict it did not finish.
"""

from __future__ import annotations

import ast
import hashlib
import time
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from divergent.datasets import Task
from divergent.datasets.tasks import parse_or_none
from divergent.errors import DivergentError, LoadError
from divergent.load import load_source
from divergent.programs import PythonFunction
from divergent.records import Budget, ExitReason, Input, OutcomeKind
from divergent.sandbox.limits import Limits
from divergent.search.warm import BorrowedRunner, WarmWorkers

if TYPE_CHECKING:
    from divergent.sandbox.pool import WorkerPool

__all__ = ["Difference", "OverBudget", "TaskTests", "VersionTester", "WarmWorkers", "find_difference", "task_tests"]


class OverBudget(Exception):
    """The deadline passed before a test run or a check finished: no verdict."""


def _check_deadline(deadline: float | None) -> None:
    if deadline is not None and time.monotonic() >= deadline:
        raise OverBudget

_HARNESS = "_divergent_cetbench_test"


@dataclass(frozen=True)
class TaskTests:
    """A task's tests, one source text each, and the prelude each runs after."""

    task: Task
    prelude: str
    tests: tuple[str, ...]


def _segment(text: str, node: ast.stmt) -> str:
    return ast.get_source_segment(text, node) or ast.unparse(node)


def task_tests(task: Task) -> TaskTests:
    """The task's tests (see the module docstring); no tests is a LoadError."""
    text = task.seeds_text
    tree = parse_or_none(text) if text.strip() else None
    if tree is None:
        raise LoadError(f"{task.task_id}: no readable tests")
    prelude: list[str] = []
    tests: list[str] = []
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.name == "check":
            for inner in node.body:
                if isinstance(inner, ast.Assign | ast.AnnAssign | ast.Import | ast.ImportFrom | ast.FunctionDef):
                    prelude.append(ast.unparse(inner))
                elif not (isinstance(inner, ast.Expr) and isinstance(inner.value, ast.Constant)):
                    tests.append(ast.unparse(inner))
        elif isinstance(node, ast.Assert):
            tests.append(_segment(text, node))
        elif not (isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)):
            prelude.append(_segment(text, node))
    if not tests:
        raise LoadError(f"{task.task_id}: no tests found")
    return TaskTests(task=task, prelude="\n".join(prelude), tests=tuple(tests))


def _harnessed(source: str, tests: TaskTests, label: str) -> PythonFunction:
    task = tests.task
    implementation = load_source(source, function=task.entry_point, label=label)
    harness = (
        f"_divergent_candidate = {task.entry_point}\n"
        f"_divergent_prelude = {tests.prelude!r}\n"
        f"_divergent_tests = {list(tests.tests)!r}\n"
        f"def {_HARNESS}(index):\n"
        "    namespace = dict(globals())\n"
        "    namespace['candidate'] = _divergent_candidate\n"
        "    exec(compile(_divergent_prelude, '<tests>', 'exec'), namespace)\n"
        "    exec(compile(_divergent_tests[index], '<tests>', 'exec'), namespace)\n"
        "    return True\n"
    )
    setup = f"{task.setup_code.rstrip()}\n{harness}" if task.setup_code.strip() else harness
    return replace(implementation, entry_point=_HARNESS, setup_code=setup)


def source_digest(source: str) -> str:
    return hashlib.sha256(source.encode()).hexdigest()


class VersionTester:
    """Runs a task's tests on program versions in the sandbox, remembering each version's results.

    ``workers``: warm workers to run them on (default: a pool started per run, as before);
    :attr:`deadline` (a ``time.monotonic()`` value, set by the caller): past it a run raises
    :class:`OverBudget` and nothing unfinished is remembered."""

    def __init__(self, tests: TaskTests, *, limits: Limits, isolation: str | None = None,
                 workers: WarmWorkers | None = None) -> None:
        self.tests = tests
        self.limits = limits
        self.isolation = isolation
        self.workers = workers
        self.deadline: float | None = None
        self._results: dict[str, tuple[bool, ...]] = {}
        #: versions whose tests were run (cache misses), for the generator's figures
        self.runs = 0

    def _pool(self, implementations: list[PythonFunction]) -> tuple[WorkerPool, bool]:
        """A pool of ``implementations``, and whether the caller closes it."""
        from divergent.sandbox.pool import WorkerPool

        if self.workers is not None:
            return self.workers.pool(implementations, compare_mutation=False), False
        return WorkerPool(implementations, limits=self.limits, isolation=self.isolation, compare_mutation=False), True

    def _run(self, pool: WorkerPool, inputs: list[Input]) -> list:
        _check_deadline(self.deadline)
        rows = pool.run(inputs, deadline=self.deadline)
        if any(row is None for row in rows):
            raise OverBudget
        return rows

    def results(self, sources: Sequence[str]) -> list[tuple[bool, ...]]:
        """One pass/fail tuple per source (a source that does not load fails every test)."""
        missing = [s for s in dict.fromkeys(sources) if source_digest(s) not in self._results]
        loadable: list[tuple[str, PythonFunction]] = []
        for number, source in enumerate(missing):
            try:
                loadable.append((source, _harnessed(source, self.tests, f"version{number}")))
            except DivergentError:
                self._results[source_digest(source)] = (False,) * len(self.tests.tests)
        if loadable:
            _check_deadline(self.deadline)
            self.runs += len(loadable)
            inputs = [Input(args=(index,), how_generated="tests") for index in range(len(self.tests.tests))]
            try:
                runner, owned = self._pool([impl for _, impl in loadable])
            except LoadError:
                for source, _ in loadable:
                    self._results[source_digest(source)] = (False,) * len(self.tests.tests)
            else:
                try:
                    rows = self._run(runner, inputs)
                finally:
                    if owned:
                        runner.close()
                for position, (source, _) in enumerate(loadable):
                    self._results[source_digest(source)] = tuple(
                        row is not None and row[position].kind is OutcomeKind.RETURNED for row in rows
                    )
        return [self._results[source_digest(s)] for s in sources]

    def result(self, source: str) -> tuple[bool, ...]:
        return self.results([source])[0]

    def known(self, source: str) -> tuple[bool, ...] | None:
        """The results of a version already run to the end, else None (nothing runs)."""
        return self._results.get(source_digest(source))

    def first_change(
        self, source: str, before: tuple[bool, ...], *, breaking: bool
    ) -> int | None:
        """The first test on which ``source`` does not do what ``before`` says: any change
        (``breaking=False``), or a test that passed and now fails (``breaking=True``); None when there
        is none. Tests run one at a time and stop at the first change, so a version that loops costs
        one timeout, not one per test; a version run to the end is remembered."""

        def changed(old: bool, new: bool) -> bool:
            return old and not new if breaking else old != new

        known = self._results.get(source_digest(source))
        if known is not None:
            return next((i for i, (old, new) in enumerate(zip(before, known, strict=True)) if changed(old, new)), None)
        _check_deadline(self.deadline)
        try:
            implementation = _harnessed(source, self.tests, "version")
            runner, owned = self._pool([implementation])
        except DivergentError:
            self._results[source_digest(source)] = (False,) * len(self.tests.tests)
            return self.first_change(source, before, breaking=breaking)
        self.runs += 1
        results: list[bool] = []
        try:
            for index in range(len(self.tests.tests)):
                row = self._run(runner, [Input(args=(index,), how_generated="tests")])[0]
                passed = row[0].kind is OutcomeKind.RETURNED
                results.append(passed)
                if changed(before[index], passed):
                    return index
        finally:
            if owned:
                runner.close()
        self._results[source_digest(source)] = tuple(results)
        return None


@dataclass(frozen=True)
class Difference:
    """divergent's verdict on two versions: a witness, none found, or why it could not look."""

    found: bool
    #: the call on which they differ, and each version's outcome
    witness: dict[str, object] | None = None
    #: not empty when the check could not run (then ``found`` is False but means nothing)
    error: str = ""
    executions: int = 0


def find_difference(
    source_a: str,
    source_b: str,
    task: Task,
    *,
    executions: int,
    seed: int,
    limits: Limits,
    isolation: str | None = None,
    workers: WarmWorkers | None = None,
    deadline: float | None = None,
) -> Difference:
    """Run ``divergent.check`` on two versions of a task's program (seeds + mutation, an execution
    budget), on ``workers`` when given; :class:`OverBudget` when ``deadline`` comes first."""
    from divergent.kinds.options import SearchOptions
    from divergent.search import prepare, run_check

    try:
        implementations = [
            replace(load_source(source, function=task.entry_point, label=label), setup_code=task.setup_code)
            for source, label in ((source_a, "before"), (source_b, "after"))
        ]
        signature = task.signature()
        seeds = tuple(task.seed_inputs(signature if signature is not None else implementations[0].signature))
        seconds = usual = max(30.0, executions / 20)
        if deadline is not None:
            _check_deadline(deadline)
            seconds = min(seconds, deadline - time.monotonic())
        options = SearchOptions(
            budget=Budget(seconds=seconds, executions=executions),
            engines=("seeds", "mutation"), seeds=seeds, limits=limits, isolation=isolation, seed=seed,
        )
        main_runner = None
        if workers is not None:
            pool = workers.pool(implementations, compare_mutation=options.comparison.record_arguments)
            main_runner = lambda: BorrowedRunner(pool)  # noqa: E731
        search = prepare(implementations, options, main_runner=main_runner)
        try:
            report = run_check(search, shrink=False)
        finally:
            search.close()
    except DivergentError as error:
        return Difference(False, error=f"{type(error).__name__}: {error}")
    if deadline is not None and not report.divergent and (
            time.monotonic() >= deadline or (seconds < usual and report.exit_reason is ExitReason.BUDGET_SECONDS)):
        raise OverBudget  # stopped by the pair's deadline: "no difference found" would mean nothing
    if report.error:
        return Difference(False, error=report.error, executions=report.executions)
    if report.too_few_inputs:
        # "no difference" on too few inputs would label the versions equivalent on no evidence
        return Difference(False, error=f"too few inputs to tell: {report.reason}", executions=report.executions)
    if not report.divergent or report.counterexample is None:
        return Difference(False, executions=report.executions)
    counterexample = report.counterexample
    witness = {
        "call": counterexample.call,
        "outcomes": [outcome.describe() for outcome in counterexample.outcomes],
    }
    return Difference(True, witness=witness, executions=report.executions)
