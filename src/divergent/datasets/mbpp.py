"""MBPP (Austin et al., 2021) as tasks: sanitized (``sanitized-mbpp.json``, a JSON array) or the
original (``mbpp.jsonl``). The entry point is the function the test asserts call; the declaration
is cut from the ground truth; the tests' imports and setup code run before the entry point.
"""

from __future__ import annotations

import ast
import builtins
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from divergent.datasets.jsonl import (
    DATA_DIR_ENV,
    BadRecord,
    LineProblem,
    default_data_dir,
    id_field,
    json_records,
    text_field,
)
from divergent.datasets.tasks import Task, TaskSet, parse_or_none, signature_source_of
from divergent.errors import LoadError

__all__ = ["MBPP_FULL_FILE", "MBPP_SANITIZED_FILE", "load_mbpp"]

#: where the tasks are in the benchmark data directory
MBPP_SANITIZED_FILE = Path("MBPP") / "data" / "sanitized-mbpp.json"
MBPP_FULL_FILE = Path("MBPP") / "data" / "mbpp.jsonl"


_BUILTIN_NAMES = frozenset(dir(builtins))


def _function_the_tests_call(test_lines: Sequence[str], code: str) -> str | None:
    """The function the assert lines exercise: the most called name the code defines, else the
    most called name that is not a builtin (ties go to the first one called)."""
    calls: Counter[str] = Counter()
    for line in test_lines:
        tree = parse_or_none(line.strip())
        if tree is None:
            continue
        nodes = sorted(
            (n for n in ast.walk(tree) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)),
            key=lambda n: (n.lineno, n.col_offset),
        )
        calls.update(n.func.id for n in nodes if isinstance(n.func, ast.Name))
    tree = parse_or_none(code)
    defined = {
        s.name for s in (tree.body if tree else ()) if isinstance(s, ast.FunctionDef | ast.AsyncFunctionDef)
    }
    for name, _count in calls.most_common():
        if name in defined:
            return name
    for name, _count in calls.most_common():
        if name not in _BUILTIN_NAMES:
            return name
    return None



def _default_mbpp_file(sanitized: bool) -> Path:
    wanted = MBPP_SANITIZED_FILE if sanitized else MBPP_FULL_FILE
    data_dir = default_data_dir()
    if data_dir is not None and (data_dir / wanted).is_file():
        return data_dir / wanted
    raise LoadError(
        f"MBPP data not found: pass the path of {wanted.name} (from the MBPP repository), or set "
        f"{DATA_DIR_ENV} to a directory holding {wanted}"
    )


def _mbpp_task(record: dict[str, Any]) -> Task:
    task_id = id_field(record)
    # sanitized MBPP says "prompt" and "test_imports"; the original says "text" and "test_setup_code"
    description = text_field(record, "prompt", required=False) or text_field(record, "text", required=False)
    code = text_field(record, "code")
    tests = record.get("test_list")
    if not isinstance(tests, list) or not all(isinstance(line, str) for line in tests):
        raise BadRecord(f"{task_id}: field 'test_list' must be a list of strings")
    setup_parts = []
    imports = record.get("test_imports") or []
    if not isinstance(imports, list) or not all(isinstance(line, str) for line in imports):
        raise BadRecord(f"{task_id}: field 'test_imports' must be a list of strings")
    setup_parts.extend(imports)
    setup = text_field(record, "test_setup_code", required=False)
    if setup.strip():
        setup_parts.append(setup)
    entry_point = _function_the_tests_call(tests, code)
    if entry_point is None:
        raise BadRecord(f"{task_id}: cannot tell which function the tests call")
    return Task(
        task_id=task_id,
        description=description,
        entry_point=entry_point,
        signature_source=signature_source_of(code, entry_point),
        ground_truth=code,
        seeds_text="\n".join(tests),
        setup_code="\n".join(setup_parts),
        dataset="MBPP",
        raising_is_specified=False,
    )


def load_mbpp(path: Path | str | None = None, *, sanitized: bool = True) -> TaskSet:
    """The MBPP tasks, from ``sanitized-mbpp.json`` (default) or the original ``mbpp.jsonl``.

    ``sanitized`` only picks the default file; a given path is read by its format (a ``.json``
    array or JSON lines). The entry point is the function the test asserts call.
    """
    file = Path(path) if path is not None else _default_mbpp_file(sanitized)
    tasks = TaskSet()
    for number, record in json_records(file, tasks.problems, what="MBPP tasks"):
        try:
            tasks.append(_mbpp_task(record))
        except BadRecord as error:
            tasks.problems.append(LineProblem(file, number, str(error)))
    return tasks

