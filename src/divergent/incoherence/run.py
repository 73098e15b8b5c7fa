"""Measuring one task: every model's samples and the ground truth on Gen(d), in one sandbox.

For a task: the inputs Gen(d) (:mod:`divergent.incoherence.inputs`; a repeated draw runs once and
counts as often as it was drawn); the ground truth's outcomes, which decide which inputs are valid
(by default, drop inputs on which the ground truth times out: there is no expected output to
compare with; ``validity="gt-raises"`` also drops inputs on which it raises, as the DiffTrust
artifact did); then every model's first ``m`` candidates on the valid inputs, all in one sandboxed
:class:`~divergent.sandbox.matrix.ImplementationMatrix` per task, each call timed relative to the
ground truth's. The outcomes become behaviour-class labels per input (equal labels = equal
outcomes under the equality policy), stored per (model, task) as a :class:`UnitResult`;
:mod:`divergent.incoherence.metrics` turns the labels into the paper's metrics.
"""

from __future__ import annotations

import enum
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from divergent.datasets import Task
from divergent.datasets.jobs import JobPayload, TaskJob
from divergent.errors import DivergentError
from divergent.incoherence.inputs import InputMode, generate_inputs
from divergent.load import load_source
from divergent.policy import EqualityPolicy
from divergent.programs import PythonFunction, Signature
from divergent.records import Input, Outcome, OutcomeKind
from divergent.sandbox.limits import Limits
from divergent.sandbox.matrix import ImplementationMatrix, MatrixDeadline

__all__ = [
    "TIMEOUT_FACTOR",
    "TIMEOUT_FLOOR",
    "TaskMeasurer",
    "TaskOverBudget",
    "UnitResult",
    "Validity",
    "class_labels",
    "relative_timeout",
    "run_task",
]


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


def class_labels(outcomes: Sequence[Sequence[Outcome]], policy: EqualityPolicy) -> list[list[int]]:
    """For each input, the behaviour class of each implementation: the policy's partition of the
    input's outcomes as labels (classes numbered in the order they first appear)."""
    labels: list[list[int]] = []
    for row in outcomes:
        row_labels = [0] * len(row)
        for number, members in enumerate(policy.partition(row)):
            for index in members:
                row_labels[index] = number
        labels.append(row_labels)
    return labels


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
    programs: list[PythonFunction] = [reference] if reference is not None else []
    owners: list[tuple[tuple[str, float], int]] = []
    unloadable: dict[tuple[str, float], int] = {}
    for key, candidates in job.candidates.items():
        for number, candidate in enumerate(candidates):
            label = f"{key[0]}@{key[1]}#{candidate.index}"
            try:
                program = load_source(candidate.source, function=candidate.entry_point or task.entry_point, label=label)
            except DivergentError:
                # Unparseable or missing the entry point: it still counts, as a program that never works.
                program = PythonFunction(
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


#: measures one job (``run_task``'s signature); replaceable so tests can make a worker die
JobRunner = Callable[..., list[UnitResult]]


@dataclass(frozen=True)
class TaskMeasurer:
    """The study's solver (:mod:`divergent.bench.common`): a job's payload
    (:class:`~divergent.datasets.jobs.JobPayload`) → ``{"units": [UnitResult as JSON, ...]}``."""

    n: int
    seed: int
    policy: EqualityPolicy
    limits: Limits
    validity: Validity
    isolation: str | None = None
    task_budget: float | None = None
    input_mode: InputMode = InputMode.DRAWS
    runner: JobRunner = run_task

    def __call__(self, payload: JobPayload) -> dict[str, Any]:
        results = self.runner(payload.unpack(), n=self.n, seed=self.seed, policy=self.policy, limits=self.limits,
                              validity=self.validity, isolation=self.isolation, task_budget=self.task_budget,
                              input_mode=self.input_mode)
        return {"units": [result.to_json() for result in results]}
