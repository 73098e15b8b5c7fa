"""A task's job as the study's resumable loop ships it: the payload, and the solver that measures it.

A job is one task with all its models' candidates, so one item runs ``n`` inputs × every sample
(a batch, not one input). Its payload is compact, whatever the executor: the task, and its
candidates' sources deduplicated (low-temperature samples repeat often) and zlib-compressed —
sources are the bulk of a job, and on a Ray cluster they cross the wire. :class:`TaskMeasurer` is
the solver (:mod:`divergent.bench.common`): it unpacks a payload, measures it with
:func:`~divergent.incoherence.run.run_task`, and answers with the units as plain JSON.
"""

from __future__ import annotations

import json
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from divergent.datasets import Candidate, Task
from divergent.incoherence.inputs import InputMode
from divergent.incoherence.run import TaskJob, UnitResult, Validity, run_task
from divergent.policy import EqualityPolicy
from divergent.sandbox.limits import Limits

__all__ = ["JobPayload", "TaskMeasurer"]

#: measures one job (``run_task``'s signature); replaceable so tests can make a worker die
JobRunner = Callable[..., list[UnitResult]]


@dataclass(frozen=True)
class JobPayload:
    """A task job as shipped to a worker: each distinct source once, compressed."""

    task: Task
    #: (model, temperature, [(candidate index, entry point, number of its source)])
    groups: tuple[tuple[str, float, tuple[tuple[int, str, int], ...]], ...]
    #: zlib-compressed JSON list of the distinct candidate sources
    sources: bytes

    @classmethod
    def pack(cls, job: TaskJob) -> JobPayload:
        numbers: dict[str, int] = {}
        groups = []
        for (model, temperature), candidates in job.candidates.items():
            members = tuple(
                (c.index, c.entry_point, numbers.setdefault(c.source, len(numbers))) for c in candidates
            )
            groups.append((model, temperature, members))
        sources = zlib.compress(json.dumps(list(numbers)).encode(), level=6)
        return cls(task=job.task, groups=tuple(groups), sources=sources)

    def unpack(self) -> TaskJob:
        sources: list[str] = json.loads(zlib.decompress(self.sources))
        candidates = {
            (model, temperature): [
                Candidate(task_id=self.task.task_id, model=model, temperature=temperature, index=index,
                          source=sources[number], entry_point=entry_point)
                for index, entry_point, number in members
            ]
            for model, temperature, members in self.groups
        }
        return TaskJob(task=self.task, candidates=candidates)


@dataclass(frozen=True)
class TaskMeasurer:
    """The study's solver: a job's payload → ``{"units": [UnitResult as JSON, ...]}``."""

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
