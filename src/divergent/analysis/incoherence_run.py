"""Running an incoherence measurement: tasks × models, each unit stored as soon as it is done.

For every task: the inputs Gen(d) (the task's test inputs as seeds, then ``n`` draws of type-aware
mutation, reproducible from the seed; a repeated draw runs once and counts as often as it was drawn); the ground truth's outcomes, which decide which inputs
are valid (drop inputs on which the ground truth times out: there is no expected output to
compare with; ``validity="gt-raises"`` also drops inputs on which it raises, as the DiffTrust
artifact did, and ``"auto"`` does so for tasks whose ground truth raises only by accident, MBPP's); then every model's first ``m`` candidates on the valid inputs, all in one
sandboxed :class:`~divergent.sandbox.matrix.ImplementationMatrix` per task. The outcomes become
behaviour-class labels per input (equal labels = equal outcomes under the equality policy), and
:mod:`divergent.analysis.incoherence` turns the labels into the paper's metrics.

Each (model, task) unit is saved in the store when it finishes; a run that is killed resumes
where it stopped, and never saves a unit twice.
"""

from __future__ import annotations

import enum
import time
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass, field
from typing import Any

from divergent.bench.datasets import Candidate, Task
from divergent.engines.base import EngineContext
from divergent.engines.constants import Constants
from divergent.engines.mutation import MutationEngine
from divergent.errors import DivergentError, EngineCannotProceed, InvalidArgument
from divergent.judge import conforms
from divergent.load import load_source
from divergent.model import Implementation, Input, Outcome, OutcomeKind, Signature
from divergent.policy import EqualityPolicy
from divergent.sandbox.isolation import Limits
from divergent.sandbox.matrix import ImplementationMatrix, MatrixDeadline
from divergent.values import canonical_text


class Validity(enum.StrEnum):
    #: the task's own rule: GT_RAISES when its ground truth's exceptions are not behaviour the task
    #: asks for (``Task.raising_is_specified`` False: MBPP), GT_TIMEOUT otherwise
    AUTO = "auto"
    #: drop inputs on which the ground truth times out (no expected output to compare with)
    GT_TIMEOUT = "gt-timeout"
    #: also drop inputs on which the ground truth raises (the DiffTrust artifact's rule)
    GT_RAISES = "gt-raises"

    def for_task(self, task: Task) -> Validity:
        """The rule applied to ``task`` (AUTO resolved)."""
        if self is not Validity.AUTO:
            return self
        return Validity.GT_TIMEOUT if task.raising_is_specified else Validity.GT_RAISES


class InputMode(enum.StrEnum):
    #: n draws from one mutation process; repeats kept (the distribution does not depend on n)
    DRAWS = "draws"
    #: n distinct inputs (mutation goes on until it has found that many new ones)
    DISTINCT = "distinct"


class TaskOverBudget(DivergentError):
    """A task's job ran past its ``task_budget`` (its units are recorded as failed)."""


#: a sample may take this many times the ground truth's time on the same input ...
TIMEOUT_FACTOR = 50.0
#: ... but never less than this many seconds (and never more than the run's --timeout)
TIMEOUT_FLOOR = 0.5


def relative_timeout(truth_seconds: float, cap: float) -> float:
    """The time limit of a sample's call on one input: generous next to the ground truth's time
    there (``TIMEOUT_FACTOR`` times, at least ``TIMEOUT_FLOOR`` s), at most ``cap``.

    Why: samples that are exponential where the ground truth is linear would otherwise cost the
    full timeout on every input until the breaker stops them; a correct sample is rarely 50 times
    slower than the reference and half a second slower still."""
    return min(cap, max(TIMEOUT_FLOOR, TIMEOUT_FACTOR * truth_seconds))


@dataclass(frozen=True)
class TaskInputs:
    inputs: tuple[Input, ...]
    #: inputs generated before the validity filter
    generated: int
    note: str = ""


def generate_inputs(
    task: Task, reference: Implementation | None, n: int, seed: int, mode: InputMode = InputMode.DRAWS
) -> TaskInputs:
    """Gen(d): the task's test inputs, then type-aware mutations of them, up to ``n`` inputs.

    ``mode`` DRAWS keeps repeated draws (see :meth:`MutationEngine.draw`); DISTINCT asks for ``n``
    different inputs, which for small input spaces means inputs far from the task's tests."""
    signature = reference.signature if reference is not None else None
    if signature is None:
        raise InvalidArgument(f"{task.task_id}: no ground truth to read the signature from")
    seeds = [s for s in task.seed_inputs(signature) if conforms(s, signature)]
    context = EngineContext(
        implementations=(reference,),
        signature=signature,
        seeds=tuple(seeds),
        constants=Constants.harvest([reference.source]),
        seed=seed,
        # The paper's Gen(d): Table 6's basic mutations only, not the boundary values and harvested
        # constants `check` uses to hunt rare differences (those would measure another input distribution).
        extras={"operators": "table6"},
    )
    if mode is InputMode.DRAWS:
        drawn = list(seeds[:n])
        note = ""
        try:
            drawn += MutationEngine(context).draw(n - len(drawn))
        except EngineCannotProceed as stop:
            note = f"input generation stopped early: {stop}"
        return TaskInputs(inputs=tuple(drawn), generated=len(drawn), note=note)
    inputs: dict[str, Input] = {s.key: s for s in seeds[:n]}
    note = ""
    try:
        engine = MutationEngine(context)
        fruitless = 0
        while len(inputs) < n and fruitless < 20:
            before = len(inputs)
            for item in engine.propose(min(256, 2 * (n - len(inputs)))):
                if conforms(item, signature):
                    inputs.setdefault(item.key, item)
                    if len(inputs) >= n:
                        break
            fruitless = fruitless + 1 if len(inputs) == before else 0
    except EngineCannotProceed as stop:
        note = f"input generation stopped early: {stop}"
    chosen = tuple(list(inputs.values())[:n])
    return TaskInputs(inputs=chosen, generated=len(chosen), note=note)


def class_labels(
    outcomes: Sequence[Sequence[Outcome]], policy: EqualityPolicy
) -> list[list[int]]:
    """For each input, a class id per implementation: equal ids for equal outcomes.

    Exactly equal encodings are grouped first (cheap; one shared outcome object, as the matrix
    returns equal outcomes, is encoded once); groups are then merged when the policy says their
    representatives are equal (tolerances, NaN, order-insensitive rules)."""
    labels: list[list[int]] = []
    for row in outcomes:
        exact: dict[str, int] = {}
        by_identity: dict[int, int] = {}
        representatives: list[Outcome] = []
        row_labels = []
        for outcome in row:
            label = by_identity.get(id(outcome))
            if label is not None:
                row_labels.append(label)
                continue
            key = _exact_key(outcome)
            label = exact.get(key)
            if label is None:
                for number, representative in enumerate(representatives):
                    if policy.outcomes_equal(representative, outcome):
                        label = number
                        break
                else:
                    label = len(representatives)
                    representatives.append(outcome)
                exact[key] = label
            by_identity[id(outcome)] = label
            row_labels.append(label)
        labels.append(row_labels)
    return labels


def _exact_key(outcome: Outcome) -> str:
    if outcome.kind is OutcomeKind.RETURNED:
        return canonical_text(["r", outcome.value, outcome.args_after, outcome.stdout])
    if outcome.kind is OutcomeKind.RAISED:
        assert outcome.exception is not None
        return canonical_text(["e", outcome.exception.type_name, outcome.exception.message, outcome.args_after])
    return outcome.kind.value


@dataclass(frozen=True)
class UnitResult:
    """What is stored per (model, task): enough to recompute every metric without running anything."""

    model: str
    temperature: float
    task_id: str
    #: per valid input, the class label of each candidate (m labels)
    labels: list[list[int]]
    #: per valid input, the class label of the ground truth (None without a ground truth)
    gt_labels: list[int] | None
    candidates: int
    inputs: int
    generated_inputs: int
    #: candidates that could not be loaded (they count as wrong everywhere: CRASH outcomes)
    unloadable: int
    notes: list[str] = field(default_factory=list)
    #: different inputs among the valid ones (each ran once; None in runs stored before draws)
    distinct_inputs: int | None = None

    def to_json(self) -> dict[str, Any]:
        return dict(self.__dict__)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> UnitResult:
        return cls(**data)


@dataclass(frozen=True)
class TaskJob:
    task: Task
    #: (model, temperature) → the candidates to run
    candidates: dict[tuple[str, float], list[Candidate]]


def run_task(
    job: TaskJob,
    *,
    n: int,
    seed: int,
    policy: EqualityPolicy,
    limits: Limits,
    validity: Validity,
    isolation: str | None = None,
    task_budget: float | None = None,
    input_mode: InputMode = InputMode.DRAWS,
) -> list[UnitResult]:
    """Measure one task for every model in the job (one sandboxed worker for all its programs).

    ``task_budget``: wall seconds for the whole job; past it the job stops with
    :class:`TaskOverBudget` and its units are recorded as failed (left out of the aggregates, as
    the artifact left out the tasks that hit its per-task time limit)."""
    deadline = None if task_budget is None else time.monotonic() + task_budget
    task = job.task
    validity = validity.for_task(task)
    reference = task.reference()
    generated = generate_inputs(task, reference, n, seed, input_mode)
    programs: list[Implementation] = [reference] if reference is not None else []
    owners: list[tuple[tuple[str, float], int]] = []
    unloadable: dict[tuple[str, float], int] = {}
    for key, candidates in job.candidates.items():
        for number, candidate in enumerate(candidates):
            label = f"{key[0]}@{key[1]}#{candidate.index}"
            try:
                program = load_source(candidate.source, function=candidate.entry_point or task.entry_point, label=label)
            except DivergentError:
                # Unparseable or missing the entry point: it still counts, as a program that never works.
                program = Implementation(
                    label=label,
                    entry_point=candidate.entry_point or task.entry_point,
                    source="",
                    signature=reference.signature if reference else Signature(),
                    module_name="unloadable",
                )
                unloadable[key] = unloadable.get(key, 0) + 1
            programs.append(program)
            owners.append((key, number))
    offset = 1 if reference is not None else 0
    # Each different input runs once; ``drawn`` maps every draw to its place in ``inputs``.
    number_of: dict[str, int] = {}
    inputs: list[Input] = []
    drawn = []
    for item in generated.inputs:
        if item.key not in number_of:
            number_of[item.key] = len(inputs)
            inputs.append(item)
        drawn.append(number_of[item.key])
    try:
        with ImplementationMatrix(programs, limits=limits, isolation=isolation) as matrix:
            valid = list(range(len(inputs)))
            if reference is not None:
                # The ground truth first: samples run only on the inputs that stay valid.
                truth = matrix.run(inputs, implementations=[0], deadline=deadline)
                valid = [
                    i
                    for i, row in enumerate(truth)
                    if row[0].kind not in (OutcomeKind.TIMEOUT, OutcomeKind.CRASH)
                    and not (validity is Validity.GT_RAISES and row[0].kind is OutcomeKind.RAISED)
                ]
            columns_to_run = list(range(offset, len(programs)))
            sample_timeouts = None
            if reference is not None:
                sample_timeouts = [relative_timeout(truth[i][0].seconds, limits.timeout) for i in valid]
            rows = matrix.run(
                [inputs[i] for i in valid], implementations=columns_to_run, timeouts=sample_timeouts, deadline=deadline
            )
            if reference is not None:
                rows = [[truth[i][0], *row[offset:]] for i, row in zip(valid, rows, strict=True)]
    except MatrixDeadline:
        raise TaskOverBudget(
            f"{task.task_id}: over the task budget of {task_budget:g} s; left out of the aggregates, as the "
            "artifact left out tasks over its time limit"
        ) from None
    row_of = {i: row for row, i in enumerate(valid)}
    distinct_labels = class_labels(rows, policy)
    labels = [distinct_labels[row_of[i]] for i in drawn if i in row_of]
    results = []
    for key, candidates in job.candidates.items():
        columns = [offset + k for k, (owner, _) in enumerate(owners) if owner == key]
        notes = [generated.note] if generated.note else []
        results.append(
            UnitResult(
                model=key[0],
                temperature=key[1],
                task_id=task.task_id,
                labels=[[row[c] for c in columns] for row in labels],
                gt_labels=[row[0] for row in labels] if reference is not None else None,
                candidates=len(candidates),
                inputs=len(labels),
                generated_inputs=generated.generated,
                unloadable=unloadable.get(key, 0),
                notes=notes,
                distinct_inputs=len(valid),
            )
        )
    return results


class Executor(enum.StrEnum):
    #: threads on this machine, each driving its own sandboxed worker
    THREADS = "threads"
    #: Ray tasks on a cluster (the ``divergent[ray]`` extra), one per task job
    RAY = "ray"


def choose_executor(executor: str, address: str | None = None) -> Executor:
    """The executor named ``executor``; an ``address`` only makes sense with Ray."""
    try:
        chosen = Executor(executor)
    except ValueError:
        raise InvalidArgument(f"--executor {executor!r}: choose threads or ray") from None
    if address is not None and chosen is not Executor.RAY:
        raise InvalidArgument(f"--address {address!r} needs --executor ray")
    return chosen


def run_jobs(
    jobs: Iterable[TaskJob],
    *,
    jobs_in_parallel: int | None,
    on_result: Callable[[TaskJob, list[UnitResult] | None, str, float], None],
    executor: str = Executor.THREADS,
    address: str | None = None,
    **options: Any,
) -> None:
    """Run task jobs, ``jobs_in_parallel`` at a time; ``on_result`` gets each job's results (or
    None and the error text) as soon as it is done, in the calling thread.

    ``executor="ray"`` runs each job as a Ray task on the cluster at ``address`` (None: a local
    instance; ``jobs_in_parallel`` None: as many as the cluster has CPUs); threads run one job at a
    time unless told otherwise."""
    if jobs_in_parallel is not None and jobs_in_parallel < 1:
        raise InvalidArgument(f"jobs={jobs_in_parallel!r} must be >= 1")
    if choose_executor(executor, address) is Executor.RAY:
        from divergent.analysis.ray_executor import run_jobs_on_ray

        run_jobs_on_ray(jobs, on_result=on_result, address=address, max_in_flight=jobs_in_parallel, **options)
        return

    def one(job: TaskJob) -> tuple[TaskJob, list[UnitResult] | None, str, float]:
        started = time.monotonic()
        try:
            return job, run_task(job, **options), "", time.monotonic() - started
        except DivergentError as error:
            return job, None, str(error), time.monotonic() - started

    with ThreadPoolExecutor(max_workers=jobs_in_parallel or 1) as pool:
        # Save each job as soon as it is done, whatever the order: a kill loses only running jobs.
        for future in as_completed([pool.submit(one, job) for job in jobs]):
            on_result(*future.result())
