"""Benchmarks of programming tasks and samples of programs for them, read as data.

Everything here reads data only: benchmark ground truths and LLM samples are untrusted code, parsed
with :mod:`ast` (through :mod:`divergent.load`) and never imported or executed in this process.

* :mod:`~divergent.datasets.jsonl`: JSON-lines (and gzip) reading, field checks, ``LineProblem``;
* :mod:`~divergent.datasets.tasks`: ``Task``, ``TaskSet``, the generic task JSONL format;
* :mod:`~divergent.datasets.humaneval`, :mod:`~divergent.datasets.mbpp`: the two benchmarks' readers;
* :mod:`~divergent.datasets.catalog`: :func:`load_tasks` (a benchmark by name or path);
* :mod:`~divergent.datasets.candidates`: recorded samples (JSONL, directories), ``CandidateSource``;
* :mod:`~divergent.datasets.models`: ``MODEL@TEMPERATURE`` specs;
* :mod:`~divergent.datasets.jobs`: a task's samples by model as a long run ships them (``TaskJob``,
  ``JobPayload``) and the key of a (model, task) unit;
* :mod:`~divergent.datasets.sampling`: live sampling from a model (imported on its own: needs the
  LLM client).

Where a change goes: a new benchmark's reader is a module here and a line in :mod:`.catalog`; a new
form of recorded samples in :mod:`.candidates`.
"""

from __future__ import annotations

from divergent.datasets.candidates import (
    Candidate,
    CandidateSet,
    CandidateSource,
    RecordedCandidates,
    load_candidates,
    load_candidates_dir,
    load_candidates_jsonl,
)
from divergent.datasets.catalog import load_tasks
from divergent.datasets.humaneval import load_humaneval
from divergent.datasets.jsonl import LineProblem, default_data_dir
from divergent.datasets.mbpp import load_mbpp
from divergent.datasets.models import format_model_spec, parse_model_spec, parse_model_specs
from divergent.datasets.tasks import Task, TaskSet, load_tasks_jsonl

__all__ = [
    "Candidate",
    "CandidateSet",
    "CandidateSource",
    "LineProblem",
    "RecordedCandidates",
    "Task",
    "TaskSet",
    "default_data_dir",
    "format_model_spec",
    "load_candidates",
    "load_candidates_dir",
    "load_candidates_jsonl",
    "load_humaneval",
    "load_mbpp",
    "load_tasks",
    "load_tasks_jsonl",
    "parse_model_spec",
    "parse_model_specs",
]
