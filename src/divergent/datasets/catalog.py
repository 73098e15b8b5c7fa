"""The benchmarks known by name, and :func:`load_tasks`, which reads a benchmark by name or path.

``humaneval``, ``mbpp`` (sanitized), ``mbpp-full``, or a file: task JSONL
(:mod:`divergent.datasets.tasks`), a HumanEval or MBPP JSON-lines file (recognised by its fields),
or an MBPP ``.json`` array.
"""

from __future__ import annotations

from pathlib import Path

from divergent.datasets.humaneval import load_humaneval
from divergent.datasets.jsonl import first_record
from divergent.datasets.mbpp import load_mbpp
from divergent.datasets.tasks import TaskSet, load_tasks_jsonl
from divergent.errors import InvalidArgument, LoadError

__all__ = ["load_tasks"]


def load_tasks(name_or_path: str) -> TaskSet:
    """``humaneval``, ``mbpp`` (sanitized), ``mbpp-full``, or a path: a task JSONL file (or a
    HumanEval/MBPP file, recognised by its fields), or an MBPP ``.json`` array."""
    key = name_or_path.strip().lower()
    if key == "humaneval":
        return load_humaneval()
    if key in ("mbpp", "mbpp-sanitized"):
        return load_mbpp()
    if key == "mbpp-full":
        return load_mbpp(sanitized=False)
    file = Path(name_or_path).expanduser()
    lower = file.name.lower()
    if lower.endswith((".json", ".json.gz")):
        return load_mbpp(file)
    if not lower.endswith((".jsonl", ".jsonl.gz")):
        raise InvalidArgument(
            f"unknown benchmark {name_or_path!r}: expected humaneval, mbpp, mbpp-full, or a path to a "
            ".jsonl file of tasks (see `divergent.datasets.tasks` for the format)"
        )
    if not file.is_file():
        raise LoadError(f"{file}: no such file")
    first = first_record(file) or {}
    if "canonical_solution" in first:
        return load_humaneval(file)
    if "test_list" in first:
        return load_mbpp(file)
    return load_tasks_jsonl(file)

