"""A task's samples as a long run ships them to a worker: :class:`TaskJob` (a task and its
candidates by model) and its compact form :class:`JobPayload`, and the key of one (model, task)
unit of a stored run.

The incoherence study measures a job's samples and the self-consistency harness clusters them; both
ship the same payload. A payload is compact, whatever the executor: the task, and its candidates'
sources deduplicated (low-temperature samples repeat often) and zlib-compressed — sources are the
bulk of a job, and on a Ray cluster they cross the wire.
"""

from __future__ import annotations

import json
import zlib
from dataclasses import dataclass

from divergent.datasets.candidates import Candidate
from divergent.datasets.models import format_model_spec
from divergent.datasets.tasks import Task

__all__ = ["JobPayload", "TaskJob", "unit_key"]


@dataclass(frozen=True)
class TaskJob:
    task: Task
    #: (model, temperature) → the candidates to run
    candidates: dict[tuple[str, float], list[Candidate]]


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


def unit_key(model: str, temperature: float | None, task_id: str) -> str:
    """The stored unit of one (model, task): ``MODEL@TEMPERATURE/TASK`` (a task id may hold ``/``)."""
    return f"{format_model_spec(model, temperature)}/{task_id}"
