"""One item of the self-consistency harness: one model's samples of one task, clustered by behaviour
and scored against the task's reference tests.

The samples are split into behaviour classes by the non-LLM engines (:func:`divergent.clustering.cluster`,
seeded with the calls in the task's tests, their expected values never shown), within ``budget``
seconds; the largest class is the semantic self-consistency pick (ProbeGen, Sec. 5.1). Then every
sample runs the task's own tests (HumanEval's ``check(candidate)``, MBPP's asserts;
:func:`divergent.clustering.semantic.run_reference_tests`): pass@1 of the pick is the pass rate of
the largest class's members (of all tied classes' members on a tie), against the pass rate of all
samples (pass@1 of taking one at random).

Samples are untrusted: they are parsed here and run only in the sandbox. A sample that does not
parse, lacks the entry point, or fails while its module loads in the sandbox (an import error,
top-level code that raises or hangs) cannot be called: such samples form one class of their own
(they all behave alike, as the incoherence study counts them: programs that never work), fail every
test, and the others are clustered without them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any, TypeVar

from divergent.clustering import cluster
from divergent.clustering.semantic import (
    TestResults,
    parse_reference_tests,
    run_reference_tests,
    self_consistency_pass_at_1,
)
from divergent.datasets import Candidate, Task
from divergent.engines.registry import ENGINES, NEEDS_MODEL
from divergent.errors import DivergentError, InvalidArgument, LoadError, SignatureMismatch
from divergent.incoherence.jobs import JobPayload
from divergent.options import SearchOptions
from divergent.programs import PythonFunction, Signature
from divergent.records import ExitReason
from divergent.sandbox.limits import Limits

__all__ = ["ClusterSettings", "SampleClusterer", "cluster_samples"]

#: splitting inputs kept per unit (their calls, for a reader who asks why two classes differ)
KEPT_SPLITS = 5
#: a sample that does not load is set aside and the rest tried again, at most this many times
LOAD_ATTEMPTS = 4
Result = TypeVar("Result")


@dataclass(frozen=True)
class ClusterSettings:
    """How each task's samples are clustered and tested (what a stored run's parameters hold)."""

    #: seconds of search per task (the clustering; the tests run after it)
    budget: float = 5.0
    seed: int = 0
    #: seconds per call, in the search and for each reference test
    timeout: float = 2.0
    #: the engines (None: the default portfolio, without the model's)
    engines: tuple[str, ...] | None = None
    isolation: str | None = None

    def __post_init__(self) -> None:
        if self.budget <= 0:
            raise InvalidArgument(f"--budget {self.budget}: need more than 0 seconds")
        if self.timeout <= 0:
            raise InvalidArgument(f"--timeout {self.timeout}: need more than 0 seconds")
        for name in self.engines or ():
            if name not in ENGINES:
                raise InvalidArgument(f"--engines: unknown engine {name!r}; choose from {', '.join(ENGINES)}")
            if name in NEEDS_MODEL:
                raise InvalidArgument(f"--engines: {name} needs a language model; this harness uses none")


@dataclass(frozen=True)
class SampleClusterer:
    """The harness's solver: a payload of one (model, task) → its unit as plain JSON."""

    settings: ClusterSettings

    def __call__(self, payload: JobPayload) -> dict[str, Any]:
        job = payload.unpack()
        ((model, temperature), candidates), = job.candidates.items()
        for attempt in range(2):
            try:
                unit = cluster_samples(job.task, candidates, self.settings)
                break
            except SystemError as error:
                # CPython 3.11's ast keeps one recursion counter per interpreter: two threads parsing
                # at once (two items on the threads executor) can trip it (python/cpython#106905).
                # Nothing of the samples is at fault; the item is worked again once.
                if attempt or "recursion depth mismatch" not in str(error):
                    raise
        return {"model": model, "temperature": temperature, "task_id": job.task.task_id, **unit}


def cluster_samples(task: Task, candidates: Sequence[Candidate], settings: ClusterSettings) -> dict[str, Any]:
    """Cluster ``candidates`` (one model's samples of ``task``), pick the largest class, run the
    task's tests on every sample; the unit's plain JSON (classes as positions in ``candidates``)."""
    limits = Limits(timeout=settings.timeout)
    notes: list[str] = []
    loaded: dict[int, PythonFunction] = {}
    unloadable: dict[int, str] = {}
    for position, candidate in enumerate(candidates):
        try:
            loaded[position] = candidate.implementation(task)
        except DivergentError as error:
            unloadable[position] = str(error)

    classes: list[tuple[int, ...]] = []
    search: dict[str, Any] | None = None
    if len(loaded) >= 2:
        signature = task.signature()
        first = next(iter(loaded.values()))
        options = SearchOptions(
            budget=settings.budget, engines=settings.engines, seed=settings.seed, limits=limits,
            isolation=settings.isolation,
            seeds=tuple(task.seed_inputs(signature if signature is not None else first.signature)),
        )
        try:
            clustering = _setting_aside(loaded, unloadable, notes, lambda impls: cluster(impls, options))
        except SignatureMismatch as error:
            if signature is None:
                raise
            _to_the_task_interface(loaded, unloadable, signature, notes, error)
            clustering = _setting_aside(loaded, unloadable, notes, lambda impls: cluster(impls, options))
        if clustering is not None and clustering.report.exit_reason is ExitReason.INTERRUPTED:
            # The search keeps what it had at Ctrl-C; a unit must not: the run resumes this task.
            raise KeyboardInterrupt
        if clustering is not None:
            members = list(loaded)
            classes = [tuple(members[i] for i in group) for group in clustering.classes]
            report = clustering.report
            search = {"inputs": report.inputs, "executions": report.executions, "seconds": round(report.seconds, 3),
                      "exit_reason": report.exit_reason.value, "splits": len(clustering.splits),
                      "isolation": report.isolation}
            notes.extend(report.notes)
            name = task.entry_point
            notes.extend(f"split by {split.input.call(name, max_length=200)}"
                         for split in clustering.splits[:KEPT_SPLITS])
    if len(loaded) == 1 or (len(loaded) >= 2 and not classes):
        classes = [tuple(loaded)] if loaded else []
    if unloadable:
        classes.append(tuple(sorted(unloadable)))
    classes.sort(key=lambda group: (-len(group), group[0]))

    tests = _tests(task, candidates, loaded, unloadable, limits, settings.isolation, notes)
    tied = [group for group in classes if len(group) == len(classes[0])] if classes else []
    return {
        "samples": len(candidates),
        "indices": [candidate.index for candidate in candidates],
        "classes": [list(group) for group in classes],
        "pick": classes[0][0] if classes else None,
        "tied": len(tied) > 1,
        "unloadable": {str(position): _short(why) for position, why in sorted(unloadable.items())},
        "tests": None if tests is None else {"total": tests.total, "passed": list(tests.passed),
                                             "first_failure": [_short(text) for text in tests.first_failure]},
        "pass_at_1": self_consistency_pass_at_1(classes, tests) if tests is not None and classes else None,
        "baseline_pass_at_1": tests.pass_rate if tests is not None and candidates else None,
        "search": search,
        "notes": notes,
    }


def _tests(task: Task, candidates: Sequence[Candidate], loaded: dict[int, PythonFunction], unloadable: dict[int, str],
           limits: Limits, isolation: str | None, notes: list[str]) -> TestResults | None:
    """Every sample's results on the task's tests (None when the task has none)."""
    if not task.seeds_text.strip():
        notes.append("the task has no tests: no pass@1")
        return None
    try:
        reference = parse_reference_tests(task.seeds_text, f"{task.qualified_id}:tests")
    except InvalidArgument as error:
        notes.append(f"the task's tests cannot be read: {error}")
        return None
    passed = [0] * len(candidates)
    failures = ["does not load"] * len(candidates)
    if loaded:
        results = _setting_aside(
            loaded, unloadable, notes,
            lambda impls: run_reference_tests(impls, reference, limits=limits, isolation=isolation))
        for number, position in enumerate(loaded):
            if results is not None:
                passed[position] = results.passed[number]
                failures[position] = results.first_failure[number]
    return TestResults(total=len(reference.tests), passed=tuple(passed), first_failure=tuple(failures))


def _to_the_task_interface(loaded: dict[int, PythonFunction], unloadable: dict[int, str], declared: Signature,
                           notes: list[str], error: SignatureMismatch) -> None:
    """Samples whose annotations disagree (``list`` beside ``List[int]``) are all called through the
    task's declared signature, the interface they were asked for; one of another arity cannot be."""
    notes.append(f"the samples' signatures disagree ({error}); clustered through the task's {declared}")
    for position, impl in list(loaded.items()):
        if len(impl.signature.positional) == len(declared.positional):
            loaded[position] = replace(impl, signature=declared)
        else:
            unloadable[position] = f"takes {impl.signature}, not the task's {declared}"
            del loaded[position]


def _setting_aside(loaded: dict[int, PythonFunction], unloadable: dict[int, str], notes: list[str],
                   work: Callable[[list[PythonFunction]], Result]) -> Result | None:
    """``work`` on the loaded samples; those the sandbox cannot load are moved to ``unloadable`` and
    the rest tried again. None when fewer than one (for the tests) or two samples are left."""
    for _ in range(LOAD_ATTEMPTS):
        if not loaded:
            return None
        try:
            return work(list(loaded.values()))
        except LoadError as error:
            position_of = {impl.label: position for position, impl in loaded.items()}
            failed = [position_of[label] for label in error.programs if label in position_of]
            if not failed:
                raise
            for position in failed:
                unloadable[position] = f"does not load in the sandbox: {error}"
                del loaded[position]
            notes.append(f"{len(failed)} sample(s) do not load in the sandbox; set aside")
    return None


def _short(text: str, limit: int = 200) -> str:
    line = " ".join(text.split())
    return line if len(line) <= limit else line[: limit - 1] + "…"
