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
top-level code that raises or hangs) cannot be called: each is a class of its own, named with its
error, never the pick while another sample runs; it fails every test, and the others are clustered
without it (:func:`divergent.clustering.cluster`, the same as ``divergent cluster``). A sample that
ran past the limit on every input where the others of its class answered was never told apart
from them: it stands apart too (``undecided``). A pick made on fewer judged inputs than the
verdict's floor is kept, and marked ``thin``: its classes may lump samples nobody told apart.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from divergent.clustering import cluster
from divergent.clustering.behaviour import Unloadable
from divergent.clustering.semantic import (
    TestResults,
    parse_reference_tests,
    run_reference_tests,
    self_consistency_pass_at_1,
)
from divergent.datasets import Candidate, Task
from divergent.datasets.jobs import JobPayload
from divergent.engines.registry import ENGINES, NEEDS_MODEL
from divergent.errors import DivergentError, InvalidArgument, SignatureMismatch
from divergent.kinds.options import SearchOptions
from divergent.load import common_signature
from divergent.programs import PythonFunction, Signature
from divergent.records import ExitReason
from divergent.sandbox.limits import Limits

__all__ = ["ClusterSettings", "SampleClusterer", "cluster_samples"]

#: splitting inputs kept per unit (their calls, for a reader who asks why two classes differ)
KEPT_SPLITS = 5


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
    task's tests on every sample; the unit's plain JSON (classes as positions in ``candidates``).

    A pick made on fewer judged inputs than the floor (the verdict's rule) is kept, and marked:
    ``search.verdict`` is then ``too-few-inputs`` and ``thin`` is true."""
    limits = Limits(timeout=settings.timeout)
    notes: list[str] = []
    loaded: dict[int, PythonFunction] = {}
    unloadable: dict[int, str] = {}
    for position, candidate in enumerate(candidates):
        try:
            loaded[position] = candidate.implementation(task)
        except DivergentError as error:
            unloadable[position] = str(error)
    signature = task.signature()
    first = next(iter(loaded.values()), None)
    # the task's own inputs (its tests' calls) are seeds whatever the samples annotate: a test that
    # passes a tuple where a sample annotates list is still an input of the task
    options = SearchOptions(
        budget=settings.budget, engines=settings.engines, seed=settings.seed, limits=limits,
        isolation=settings.isolation,
        seeds=tuple(task.seed_inputs(signature if signature is not None or first is None else first.signature)),
    )
    try:
        common_signature(list(loaded.values())) if len(loaded) >= 2 else None
    except SignatureMismatch as error:
        if signature is None:
            raise
        _to_the_task_interface(loaded, unloadable, signature, notes, error)
    entries = _entries(candidates, loaded, unloadable)
    clustering = cluster(entries, options)
    if clustering.report.exit_reason is ExitReason.INTERRUPTED:
        # The search keeps what it had at Ctrl-C; a unit must not: the run resumes this task.
        raise KeyboardInterrupt
    unloadable.update(clustering.unloadable)
    classes = [tuple(group) for group in clustering.classes]
    report = clustering.report
    search = None
    if report.inputs or report.executions:
        search = {"inputs": report.inputs, "executions": report.executions, "seconds": round(report.seconds, 3),
                  "exit_reason": report.exit_reason.value, "splits": len(clustering.splits),
                  "isolation": report.isolation, "verdict": report.verdict.value, "reason": report.reason,
                  "judged": report.judged_inputs, "min_inputs": report.min_inputs}
    notes.extend(note for note in report.notes if "does not load" not in note)
    name = task.entry_point
    notes.extend(f"split by {split.input.call(name, max_length=200)}" for split in clustering.splits[:KEPT_SPLITS])
    tests = _tests(task, candidates, entries, limits, settings.isolation, notes)
    tied = clustering.tied_classes if classes else ()
    thin = len(loaded) >= 2 and report.too_few_inputs
    return {
        "samples": len(candidates),
        "indices": [candidate.index for candidate in candidates],
        "classes": [list(group) for group in classes],
        "pick": clustering.largest[0] if classes else None,
        "tied": len(tied) > 1,
        # the pick was made on fewer judged inputs than the floor: the classes may lump samples
        # nobody told apart
        "thin": thin,
        "unloadable": {str(position): _short(why) for position, why in sorted(unloadable.items())},
        "undecided": {str(position): why for position, why in sorted(clustering.undecided.items())},
        "tests": None if tests is None else {"total": tests.total, "passed": list(tests.passed),
                                             "first_failure": [_short(text) for text in tests.first_failure]},
        "pass_at_1": self_consistency_pass_at_1(tied, tests) if tests is not None and classes else None,
        "baseline_pass_at_1": tests.pass_rate if tests is not None and candidates else None,
        "search": search,
        "notes": notes,
    }


def _entries(candidates: Sequence[Candidate], loaded: dict[int, PythonFunction],
             unloadable: dict[int, str]) -> list[PythonFunction | Unloadable]:
    """Every sample in its place: loaded, or what kept it from loading."""
    return [loaded[position] if position in loaded else Unloadable(label=candidate.label, error=unloadable[position])
            for position, candidate in enumerate(candidates)]


def _tests(task: Task, candidates: Sequence[Candidate], entries: Sequence[Any], limits: Limits,
           isolation: str | None, notes: list[str]) -> TestResults | None:
    """Every sample's results on the task's tests (None when the task has none); a sample that does
    not load fails them all."""
    if not task.seeds_text.strip():
        notes.append("the task has no tests: no pass@1")
        return None
    try:
        reference = parse_reference_tests(task.seeds_text, f"{task.qualified_id}:tests")
    except InvalidArgument as error:
        notes.append(f"the task's tests cannot be read: {error}")
        return None
    return run_reference_tests(entries, reference, limits=limits, isolation=isolation or None)


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


def _short(text: str, limit: int = 200) -> str:
    line = " ".join(text.split())
    return line if len(line) <= limit else line[: limit - 1] + "…"
