"""Semantic clustering and semantic self-consistency with ProbeGen probes (ProbeGen, Sec. 5).

All implementations start in one cluster. Each of ``probes`` (the paper's N_P) steps picks a
random pair of implementations from the largest cluster, a pair not picked before (the seed makes
the choice reproducible), and runs a ProbeGen tree search (:class:`divergent.probegen.ProbeGenSession`)
on that pair. Every input the pair's search produced is run on *all* implementations (the pair's
generators already ran, so this costs no model call), and every cluster whose members an input
tells apart is split, once the difference holds on fresh workers and the spurious-counterexample
filter judges it not spurious (:func:`divergent.search.refine_partition` does both, so ``check``,
``cluster`` and this module split by the same rules).

Choices, and why:

- *Which inputs split*: the paper computes the pair's probe on all implementations. The probe is a
  tree search here, and all of its inputs are kept, not just those of the node that told the pair
  apart: they were run on every implementation anyway, and a difference is a difference whatever
  node found it (each still passes the filter).
- *The pair*: drawn from the largest cluster that still has a pair not picked before (the largest
  one when it has; a smaller one only once every pair of the larger ones was tried).
- *Cheap engines first*: when the caller keeps non-LLM engines (seeds, mutation, hypothesis,
  symbolic; the default), they run first, within ``budget``, and split what they can. Model calls
  cost far more than executions, so the probes are spent only on clusters the cheap engines could
  not split. ``engines="llm"`` skips that phase (the "llm" engine is what the probes are, so it
  never runs in the portfolio here; "randsearch", when named, joins the first phase). ``budget`` bounds the cheap
  phase only; the probe phase is bounded by ``probes`` (each a ProbeGen search of at most
  :func:`divergent.probegen.max_calls` model calls).
- *Failure*: a model that cannot be reached ends the probe phase with a note; the clusters found so
  far, and everything the cheap engines found, are kept.

Semantic self-consistency (Sec. 5.1) picks a member of the largest cluster; several clusters of
that size are a tie, reported as such. Given reference tests, :attr:`SemanticClustering.pass_at_1`
is the pass rate of the largest cluster's members, averaged over all tied clusters' members as the
paper does; :attr:`SemanticClustering.baseline_pass_at_1` is the pass rate of a random sample.

Reference tests (:func:`run_reference_tests`) are a Python file: each top-level ``assert`` is one
test, each top-level ``def test_*()`` is one test, and a HumanEval-style ``def check(candidate)`` is
one test called with the function; other top-level statements (imports, helpers) run before every
test. Tests run in the sandbox inside each implementation's module, never in this process.
"""

from __future__ import annotations

import ast
import random
import time
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from itertools import combinations
from pathlib import Path
from typing import Any

from divergent.clustering.behaviour import Clustering, clustering_of
from divergent.errors import BudgetSpent, InvalidArgument, LoadError
from divergent.llm.chat import ChatModel, Usage
from divergent.probegen.session import ProbeGenResult, ProbeGenSession
from divergent.probegen.strategies import DEFAULT_D, DEFAULT_K, DEFAULT_STRATEGY, TreeStrategy, max_calls
from divergent.programs import PythonFunction
from divergent.records import Counterexample, ExitReason, Input, Observation, Outcome, OutcomeKind, Report
from divergent.sandbox.limits import Limits
from divergent.sandbox.pool import WorkerPool
from divergent.search import (
    ImplementationSpec,
    Partition,
    Search,
    SearchOptions,
    prepare,
    refine_partition,
)
from divergent.search.splitting import within
from divergent.spurious import SpuriousFilter

__all__ = [
    "DEFAULT_PROBES",
    "PairProbe",
    "ReferenceTests",
    "SemanticClustering",
    "TestResults",
    "load_reference_tests",
    "parse_reference_tests",
    "pick_pair",
    "run_reference_tests",
    "self_consistency_pass_at_1",
    "semantic_cluster",
]

#: N_P, the number of probes (ProbeGen searches), as in the paper's Sec. 5.1
DEFAULT_PROBES = 10
#: engines that call a model: never part of the cheap phase
LLM_ENGINES = frozenset({"llm"})
#: the engine name recorded on splits made by the probes
PROBE_ENGINE = "probegen"
_TEST_FUNCTION = "_divergent_reference_test"


# -- records ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class PairProbe:
    """One step: the pair probed, how its ProbeGen search ended, and what its inputs split."""

    #: implementation indices of the pair
    pair: tuple[int, int]
    #: "found", "exhausted", "stopped" or "failed: <why>" (:class:`divergent.probegen.ProbeGenResult`)
    reason: str
    #: model calls of the pair's search (the filter's calls are counted in the clustering's usage)
    calls: int
    #: inputs the search produced, all run on every implementation
    inputs: int
    #: the number of clusters after this step
    clusters_after: int
    usage: Usage = field(default_factory=Usage)
    #: the store run holding the search tree (kind "probegen"), when it was stored
    run_id: str | None = None

    def as_dict(self, labels: Sequence[str]) -> dict[str, Any]:
        return {
            "pair": [labels[i] for i in self.pair],
            "reason": self.reason,
            "calls": self.calls,
            "inputs": self.inputs,
            "clusters_after": self.clusters_after,
            "usage": self.usage.as_dict(),
            "run_id": self.run_id,
        }


@dataclass(frozen=True)
class TestResults:
    """Reference-test results per implementation."""

    __test__ = False  # not a pytest class

    #: tests in the file
    total: int
    #: per implementation: how many tests it passed
    passed: tuple[int, ...]
    #: per implementation: the first failure, "" when it passed every test
    first_failure: tuple[str, ...]

    def passes(self, index: int) -> bool:
        """Whether implementation ``index`` passed every test (what pass@1 counts)."""
        return self.total > 0 and self.passed[index] == self.total

    @property
    def pass_rate(self) -> float:
        """The share of implementations that pass every test: pass@1 of picking one at random."""
        return sum(self.passes(i) for i in range(len(self.passed))) / len(self.passed)


def self_consistency_pass_at_1(classes: Sequence[Sequence[int]], tests: TestResults) -> float:
    """pass@1 of semantic self-consistency (Sec. 5.1): the pass rate of the largest class's members;
    when several classes are the largest, of all their members (the paper averages over tied clusters,
    which are all the same size)."""
    size = max(len(members) for members in classes)
    members = [i for members in classes if len(members) == size for i in members]
    return sum(tests.passes(i) for i in members) / len(members)


@dataclass(frozen=True)
class SemanticClustering(Clustering):
    """Behaviour classes found with ProbeGen probes, largest first, and the self-consistency pick
    (``splits``: the confirmed inputs that split classes, each with the filter's verdict)."""

    #: confirmed differences the filter judged spurious: they split nothing
    filtered_out: tuple[Counterexample, ...] = ()
    probes: tuple[PairProbe, ...] = ()
    #: model usage of the whole clustering (probes and filter)
    usage: Usage = field(default_factory=Usage)
    model: str = ""
    tests: TestResults | None = None

    @property
    def pass_at_1(self) -> float | None:
        """The pass rate of the largest class's members; with a tie, of all tied classes' members
        (Sec. 5.1). None without reference tests."""
        return None if self.tests is None else self_consistency_pass_at_1(self.classes, self.tests)

    @property
    def baseline_pass_at_1(self) -> float | None:
        """The pass rate of all implementations: pass@1 of picking one at random."""
        return None if self.tests is None else self.tests.pass_rate


# -- the pair to probe --------------------------------------------------------------------------


def pick_pair(
    classes: Sequence[Sequence[int]], picked: set[tuple[int, int]], rng: random.Random
) -> tuple[int, int] | None:
    """A random pair not picked before from the largest class that still has one (None: no pair
    is left). Classes of equal size are tried in order of their first member."""
    ordered = sorted(classes, key=lambda members: (-len(members), min(members)))
    for members in ordered:
        unpicked = [pair for pair in combinations(sorted(members), 2) if pair not in picked]
        if unpicked:
            return rng.choice(unpicked)
    return None


# -- the clustering -----------------------------------------------------------------------------


def semantic_cluster(
    implementations: Sequence[ImplementationSpec],
    chat: ChatModel,
    *,
    probes: int = DEFAULT_PROBES,
    spec: str | None = None,
    spurious_filter: SpuriousFilter | bool | None = True,
    tests: str | Path | None = None,
    strategy: TreeStrategy | str = DEFAULT_STRATEGY,
    k: int = DEFAULT_K,
    d: int = DEFAULT_D,
    store: Any = None,
    options: SearchOptions | None = None,
    **changes: Any,
) -> SemanticClustering:
    """Partition implementations into behaviour classes with ``probes`` ProbeGen probes.

    ``spurious_filter``: True makes one from ``chat`` and ``spec``; False or None splits on every
    confirmed difference; or pass your own. ``tests``: a reference-test file for pass@1 (see the
    module docstring). ``strategy``, ``k``, ``d``: each probe's ProbeGen tree search. ``store``: where
    the search trees are kept (a :class:`~divergent.store.Store`, a path, None for the default store,
    False for nowhere). ``options``/``changes``: a :class:`~divergent.search.SearchOptions` and/or its
    fields as keywords (budget, engines, seeds, require, policy, limits, isolation, seed, progress);
    ``engines`` chooses the cheap phase.
    """
    if probes < 0:
        raise InvalidArgument(f"probes={probes!r} must be >= 0")
    max_calls(strategy, k, d)  # a bad strategy, K or D is an input error before any budget is spent
    reference = load_reference_tests(tests) if tests is not None else None
    if spurious_filter is True:
        spurious_filter = SpuriousFilter(chat, spec=spec)
    elif spurious_filter is False:
        spurious_filter = None
    options = SearchOptions.of(options, **changes)
    if not options.engines_requested:
        # The default (or every) engine without the model's: prepare leaves those out when it gets no
        # model, and an engine that cannot start (symbolic without CrossHair) is then a note, not an error.
        options = options.with_(spurious_filter=spurious_filter, llm=None, spec=spec)
        cheap_phase = True
    else:
        cheap = tuple(name for name in options.engines if name not in LLM_ENGINES)
        # The search needs one engine to start; without a cheap phase the seeds engine is never asked.
        options = options.with_(engines=cheap or ("seeds",), spurious_filter=spurious_filter, llm=chat, spec=spec)
        cheap_phase = bool(cheap)
    usage_before = chat.usage()
    try:
        search = prepare(implementations, options, minimum=2)
    except BudgetSpent as error:
        if not isinstance(error.report, Report):
            raise
        return SemanticClustering(report=error.report, classes=error.report.classes, splits=(), model=chat.model)
    try:
        clustering = _run(search, chat, cheap_phase, probes=probes, spec=spec, strategy=strategy, k=k, d=d,
                          store=store)
    finally:
        search.close()
    usage = _usage_between(usage_before, chat.usage())
    results = None
    if reference is not None:
        results = run_reference_tests(
            search.implementations, reference, limits=search.options.limits, isolation=search.runner.level.value
        )
    report = replace(clustering.report, llm={"model": chat.model, **usage.as_dict()})
    return replace(clustering, report=report, usage=usage, tests=results)


def _run(
    search: Search,
    chat: ChatModel,
    cheap_phase: bool,
    *,
    probes: int,
    spec: str | None,
    strategy: TreeStrategy | str,
    k: int,
    d: int,
    store: Any,
) -> SemanticClustering:
    count = len(search.implementations)
    partition = Partition(classes=(tuple(range(count)),))
    exit_reason = ExitReason.EXHAUSTED
    if cheap_phase:
        # the budget bounds the whole clustering: with probes to come, the cheap phase gets half
        deadline = search.deadline
        if probes and deadline is not None:
            deadline = time.monotonic() + (deadline - time.monotonic()) / 2
        exit_reason = refine_partition(search, partition, deadline=deadline)
    rng = random.Random(f"{search.options.seed}:semantic-cluster")
    picked: set[tuple[int, int]] = set()
    steps: list[PairProbe] = []
    for step in range(probes):
        if len(partition.classes) == count or exit_reason is ExitReason.INTERRUPTED:
            break
        pair = pick_pair(partition.classes, picked, rng)
        if pair is None:
            search.journal.note(f"semantic clustering: every pair was probed after {step} probes")
            break
        picked.add(pair)
        if search.out_of_budget() is not None:
            search.journal.note(f"semantic clustering: the budget ended after {step} probe(s)")
            exit_reason = ExitReason.BUDGET_SECONDS
            break
        try:
            probe = _probe(search, partition, chat, pair, step, spec=spec, strategy=strategy, k=k, d=d, store=store)
        except KeyboardInterrupt:
            exit_reason = ExitReason.INTERRUPTED
            break
        steps.append(probe)
        if probe.reason.startswith("failed"):
            search.journal.note(f"semantic clustering stopped after {step + 1} probe(s): {probe.reason}")
            break
    if len(partition.classes) == count:
        exit_reason = ExitReason.FOUND
    return clustering_of(search, partition, exit_reason, record=SemanticClustering,  # type: ignore[return-value]
                         filtered_out=tuple(partition.filtered_out), probes=tuple(steps), usage=Usage(),
                         model=chat.model)


def _probe(
    search: Search,
    partition: Partition,
    chat: ChatModel,
    pair: tuple[int, int],
    step: int,
    *,
    spec: str | None,
    strategy: TreeStrategy | str,
    k: int,
    d: int,
    store: Any,
) -> PairProbe:
    """One ProbeGen search on ``pair``; its inputs run on every implementation and split classes."""
    first, second = pair
    pair_impls = [search.implementations[first], search.implementations[second]]
    # Outcomes on every implementation, by input, in the order the pair's search produced them.
    ran: dict[str, tuple[Input, tuple[Outcome, ...]]] = {}

    def run_on_all(inputs: Sequence[Input]) -> list[tuple[Outcome, ...] | None]:
        results = search.runner.run(list(inputs))
        projected: list[tuple[Outcome, ...] | None] = []
        for item, outcomes in zip(inputs, results, strict=True):
            if outcomes is None:
                projected.append(None)
                continue
            ran.setdefault(item.key, (item, outcomes))
            projected.append((outcomes[first], outcomes[second]))
        search.tally.inputs_run += sum(outcomes is not None for outcomes in results)
        return projected

    spurious_filter = search.spurious_filter
    session = ProbeGenSession(
        pair_impls,
        chat=chat,
        signature=search.subjects.signature,
        comparison=search.comparison,
        spec=spec,
        requirement=search.subjects.requirement,
        accept=spurious_filter.accept(pair_impls) if spurious_filter is not None else None,
        executor=run_on_all,
        limits=search.options.limits,
        isolation=search.runner.level.value,
        seed=search.options.seed + step,
        store=store,
        run_parameters={"purpose": "semantic-cluster", "step": step, "pair": list(pair)},
    )
    try:
        search.journal.phase(f"probe {step + 1}")
        # a slow or dead model holds the probe, never the budget: past it, the probe is given up
        remaining = search.remaining()
        result = within(None if remaining == float("inf") else max(0.0, remaining),
                        lambda: session.search(strategy=strategy, k=k, d=d))
        run_id = session.run_id
    finally:
        session.close()
    if result is None:
        result = ProbeGenResult(found=None, calls=session.calls, usage=session.usage,
                                reason="stopped: the budget ended while the model was asked")
    observations = [search.comparison.observe(item, outcomes) for item, outcomes in ran.values()]
    _split(search, partition, observations)
    return PairProbe(
        pair=pair,
        reason=result.reason,
        calls=result.calls,
        inputs=len(ran),
        clusters_after=len(partition.classes),
        usage=result.usage,
        run_id=run_id,
    )


def _split(search: Search, partition: Partition, observations: Sequence[Observation]) -> None:
    """Split the classes on these observations, confirmed and judged like every other split.

    :func:`refine_partition` looks at ``pending`` observations first; a deadline already past
    makes it stop there instead of asking the engines for more."""
    if observations:
        refine_partition(
            search, partition, deadline=time.monotonic(),
            pending=[(PROBE_ENGINE, observation) for observation in observations],
        )


def _usage_between(before: Usage, after: Usage) -> Usage:
    return Usage(
        calls=after.calls - before.calls,
        cached_calls=after.cached_calls - before.cached_calls,
        prompt_tokens=after.prompt_tokens - before.prompt_tokens,
        completion_tokens=after.completion_tokens - before.completion_tokens,
        cost=after.cost - before.cost,
        seconds=after.seconds - before.seconds,
        retries=after.retries - before.retries,
    )


# -- reference tests ----------------------------------------------------------------------------


@dataclass(frozen=True)
class ReferenceTests:
    """A parsed reference-test file: the shared prelude and one source text per test."""

    path: str
    prelude: str
    tests: tuple[str, ...]


def load_reference_tests(path: str | Path) -> ReferenceTests:
    """Read a reference-test file (parsed with ``ast`` only; nothing of it runs here)."""
    file = Path(path)
    try:
        text = file.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise InvalidArgument(f"--tests {file}: cannot read it: {error}") from None
    return parse_reference_tests(text, str(file), what=f"--tests {file}")


def parse_reference_tests(text: str, path: str, *, what: str | None = None) -> ReferenceTests:
    """Reference tests from their source text (a benchmark task's tests: HumanEval's ``check``,
    MBPP's asserts), parsed with ``ast`` only; ``path`` names them in tracebacks, ``what`` in errors."""
    what = what or path
    try:
        tree = ast.parse(text, filename=path)
    except SyntaxError as error:
        raise InvalidArgument(f"{what}: line {error.lineno}: {error.msg}") from None
    prelude: list[str] = []
    tests: list[str] = []
    checker = False
    for node in tree.body:
        segment = ast.get_source_segment(text, node, padded=False) or ast.unparse(node)
        if isinstance(node, ast.Assert):
            tests.append(segment)
            continue
        prelude.append(segment)
        if isinstance(node, ast.FunctionDef) and node.name.startswith("test"):
            tests.append(f"{node.name}()")
        elif isinstance(node, ast.FunctionDef) and node.name == "check":
            checker = True
    if checker and not tests:
        tests.append("check(_divergent_function)")
    if not tests:
        raise InvalidArgument(
            f"{what}: no tests found (expected top-level assert lines, test_*() functions or a "
            "HumanEval-style check(candidate))"
        )
    return ReferenceTests(path=path, prelude="\n".join(prelude), tests=tuple(tests))


def _with_test_harness(impl: PythonFunction, reference: ReferenceTests) -> PythonFunction:
    """The implementation with a function that runs test ``i`` in its module (in the sandbox)."""
    harness = (
        f"_divergent_function = {impl.entry_point}\n"
        f"_divergent_prelude = {reference.prelude!r}\n"
        f"_divergent_tests = {list(reference.tests)!r}\n"
        f"def {_TEST_FUNCTION}(index):\n"
        "    namespace = dict(globals())\n"
        f"    exec(compile(_divergent_prelude, {reference.path!r}, 'exec'), namespace)\n"
        f"    exec(compile(_divergent_tests[index], {reference.path!r}, 'exec'), namespace)\n"
        "    return True\n"
    )
    setup = f"{impl.setup_code.rstrip()}\n{harness}" if impl.setup_code.strip() else harness
    return replace(impl, entry_point=_TEST_FUNCTION, setup_code=setup)


def run_reference_tests(
    implementations: Sequence[Any],
    reference: ReferenceTests,
    *,
    limits: Limits = Limits(),
    isolation: str | None = None,
) -> TestResults:
    """Run every test on every implementation in the sandbox (one worker per implementation).

    A test passes when it runs to its end; an exception, a timeout or a crash fails it. An
    implementation that does not load (an :class:`~divergent.clustering.behaviour.Unloadable`, or
    one the sandbox cannot start) fails every test, and the others' tests run without it."""
    from divergent.clustering.behaviour import LOAD_ATTEMPTS, Unloadable

    entries = list(implementations)
    failures = [f"does not load: {entry.error}" if isinstance(entry, Unloadable) else "" for entry in entries]
    passed = [0] * len(entries)
    for _ in range(LOAD_ATTEMPTS):
        runnable = [position for position, entry in enumerate(entries) if not failures[position]]
        if not runnable:
            break
        try:
            ran, first = _tests_of([entries[position] for position in runnable], reference, limits, isolation)
        except LoadError as error:
            failed = {entries[position].label: position for position in runnable}
            if not any(label in failed for label in error.programs):
                raise
            for label in error.programs:
                if label in failed:
                    failures[failed[label]] = f"does not load in the sandbox: {error}"
            continue
        for position, count, failure in zip(runnable, ran, first, strict=True):
            passed[position], failures[position] = count, failure
        break
    return TestResults(total=len(reference.tests), passed=tuple(passed), first_failure=tuple(failures))


def _tests_of(implementations: Sequence[PythonFunction], reference: ReferenceTests, limits: Limits,
              isolation: str | None) -> tuple[list[int], list[str]]:
    harnessed = [_with_test_harness(impl, reference) for impl in implementations]
    inputs = [Input(args=(index,), how_generated="tests") for index in range(len(reference.tests))]
    with WorkerPool(harnessed, limits=limits, isolation=isolation, compare_mutation=False) as pool:
        results = pool.run(inputs)
    passed = [0] * len(implementations)
    failures = [""] * len(implementations)
    for index, outcomes in enumerate(results):
        assert outcomes is not None  # no deadline: every test ran everywhere
        for member, outcome in enumerate(outcomes):
            if outcome.kind is OutcomeKind.RETURNED:
                passed[member] += 1
            elif not failures[member]:
                failures[member] = f"{_short(reference.tests[index])}: {outcome.describe()}"
    return passed, failures


def _short(text: str, limit: int = 80) -> str:
    line = " ".join(text.split())
    return line if len(line) <= limit else line[: limit - 1] + "…"
