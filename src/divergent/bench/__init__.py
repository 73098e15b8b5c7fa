"""Benchmarks of programming tasks and samples of programs for them (see :mod:`divergent.bench.datasets`).

Everything here reads data only: benchmark ground truths and LLM samples are untrusted code, parsed
with :mod:`ast` (through :mod:`divergent.load`) and never imported or executed in this process.
"""

from __future__ import annotations

from divergent.bench.datasets import (
    Candidate,
    CandidateSet,
    CandidateSource,
    LineProblem,
    RecordedCandidates,
    Task,
    TaskSet,
    default_data_dir,
    format_model_spec,
    load_candidates_dir,
    load_candidates_jsonl,
    load_humaneval,
    load_mbpp,
    load_tasks,
    load_tasks_jsonl,
    parse_model_spec,
)

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
    "load_candidates_dir",
    "load_candidates_jsonl",
    "load_humaneval",
    "load_mbpp",
    "load_tasks",
    "load_tasks_jsonl",
    "parse_model_spec",
]
