"""Programming tasks: what to implement and what is known about correct behaviour, and the
generic task JSONL format any benchmark can be given in.

Tasks are data: ground truths are untrusted programs kept as text and only parsed with
:mod:`ast` (through :mod:`divergent.load`); the sandbox is the only place they ever run.

Task JSONL
----------
One JSON object per line (blank lines skipped, ``.jsonl.gz`` read with gzip)::

    {"task_id": "mybench/7",                          required: a string (an integer is accepted)
     "entry_point": "slugify",                        required: the function the programs define
     "description": "Turn a title into a URL slug.",  optional: the task in prose ("" by default)
     "signature": "(text: str) -> str",               optional: "(...) -> ...", or a def line, or a
                                                      whole stub module; read from ground_truth if absent
     "ground_truth": "def slugify(text): ...",        optional: a reference implementation's source
     "tests": ["assert slugify('A b') == 'a-b'"],     optional: assert lines (a list, or one string)
     "seeds": [["A b"], ["x y z"]],                   optional: argument lists, one per call (JSON
                                                      values: lists stay lists); {"args": [...],
                                                      "kwargs": {...}} is accepted too
     "setup_code": "import math",                     optional: run before the entry point is looked up
     "raising_is_specified": true}                    optional: false when the ground truth's exceptions
                                                      are accidents, not behaviour the task asks for
                                                      (``--validity auto`` then drops those inputs)

A line that is not such an object does not stop the load: it becomes a
:class:`~divergent.datasets.records.LineProblem` (path, line number, message) in the returned
:class:`TaskSet`'s ``problems``.
"""

from __future__ import annotations

import ast
import warnings
from collections.abc import Iterable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from divergent.datasets.records import (
    BadRecord,
    LineProblem,
    decode_object,
    entry_point_field,
    id_field,
    json_lines,
    text_field,
)
from divergent.errors import InvalidArgument
from divergent.load import Seeds, fit_seeds, load_source, seeds_from_asserts
from divergent.programs import PythonFunction, Signature
from divergent.records import Input

__all__ = [
    "Task",
    "TaskSet",
    "defines",
    "entry_docstring",
    "load_tasks_jsonl",
    "parse_or_none",
    "signature_source_of",
]


@dataclass(frozen=True)
class Task:
    """One programming task: what to implement, and what is known about correct behaviour."""

    task_id: str
    #: the task in prose (HumanEval: the entry point's docstring; MBPP: the prompt)
    description: str
    #: the function every implementation of the task defines
    entry_point: str
    #: Python source declaring the entry point, parseable with ast (HumanEval: the prompt, with its
    #: imports, helpers and docstring; MBPP: a stub cut from the ground truth); "" when unknown
    signature_source: str = ""
    #: source of a reference implementation, or None when the benchmark has none
    ground_truth: str | None = None
    #: the benchmark's test code (assert lines), the source of seed inputs
    seeds_text: str = ""
    #: code run in the module before the entry point is looked up (MBPP's test imports/setup)
    setup_code: str = ""
    #: seed calls given explicitly (task JSONL ``seeds``), in addition to those in ``seeds_text``
    explicit_seeds: tuple[Input, ...] = ()
    #: the benchmark's name, e.g. "HumanEval", "MBPP", or a task JSONL file's stem
    dataset: str = ""
    #: whether the ground truth raising on an input is behaviour the task asks for (a sample that
    #: returns there is wrong). False for MBPP: no ground truth there raises on purpose (none has a
    #: ``raise``), the one-line prompts say nothing about the inputs they crash on, and those are
    #: outside the task (a non-square "magic square", an exponent below zero for a recursive power)
    raising_is_specified: bool = True

    @property
    def qualified_id(self) -> str:
        """The id with its benchmark in front, unless already there: ``HumanEval/12``, ``MBPP/100``."""
        if not self.dataset or self.task_id.startswith(self.dataset + "/"):
            return self.task_id
        return f"{self.dataset}/{self.task_id}"

    def seed_inputs(self, signature: Signature | None = None) -> Seeds:
        """The literal calls in the tests (``candidate(...)`` or the entry point by name) and the
        explicit seeds, kept when they fit ``signature`` (all when None), without duplicates."""
        from_tests = seeds_from_asserts(self.seeds_text, self.entry_point) if self.seeds_text else []
        return fit_seeds([*from_tests, *self.explicit_seeds], signature)

    def reference(self) -> PythonFunction | None:
        """The ground truth as an implementation (parsed, not run); None when there is none.

        Raises LoadError when the ground truth does not parse or lacks the entry point.
        """
        if self.ground_truth is None:
            return None
        implementation = load_source(
            self.ground_truth, function=self.entry_point, label=f"{self.qualified_id}:reference"
        )
        return replace(implementation, setup_code=self.setup_code)

    def signature(self) -> Signature | None:
        """The entry point's signature read from ``signature_source``; None when there is none."""
        if not self.signature_source:
            return None
        declared = load_source(
            self.signature_source, function=self.entry_point, label=f"{self.qualified_id}:signature"
        )
        return declared.signature


class TaskSet(list[Task]):
    """Tasks in benchmark order, plus the records that could not be read."""

    def __init__(self, tasks: Iterable[Task] = (), *, problems: Iterable[LineProblem] = ()) -> None:
        super().__init__(tasks)
        self.problems: list[LineProblem] = list(problems)

    def by_id(self) -> dict[str, Task]:
        return {task.task_id: task for task in self}

    def select(self, task_ids: Iterable[str]) -> TaskSet:
        """The tasks named, in benchmark order; unknown ids raise InvalidArgument."""
        wanted = set(task_ids)
        unknown = wanted - {task.task_id for task in self}
        if unknown:
            shown = ", ".join(sorted(unknown)[:5]) + (", ..." if len(unknown) > 5 else "")
            raise InvalidArgument(f"unknown task id{'s' if len(unknown) > 1 else ''}: {shown}")
        return TaskSet((task for task in self if task.task_id in wanted), problems=self.problems)


# --------------------------------------------------------------------------------------------
# Source helpers (ast only)


def parse_or_none(source: str) -> ast.Module | None:
    """The module's syntax tree, or None when the text is not Python this interpreter parses."""
    try:
        with warnings.catch_warnings():
            # benchmark code is full of "\w" in plain strings: not the user's concern
            warnings.simplefilter("ignore", SyntaxWarning)
            warnings.simplefilter("ignore", DeprecationWarning)
            return ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None


def _top_level_function(tree: ast.Module, name: str) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
    found = None
    for statement in tree.body:
        if isinstance(statement, ast.FunctionDef | ast.AsyncFunctionDef) and statement.name == name:
            found = statement  # a later definition wins, as when the module runs
    return found


def entry_docstring(source: str, entry_point: str) -> str | None:
    """The docstring of the top-level function ``entry_point`` (None without one)."""
    tree = parse_or_none(source)
    node = _top_level_function(tree, entry_point) if tree is not None else None
    return ast.get_docstring(node) if node is not None else None


def signature_source_of(source: str, entry_point: str) -> str:
    """The module's imports and the entry point's ``def`` with its body cut to the docstring or ``...``.

    Enough to read the signature (annotations may name imported types) without the program.
    """
    tree = parse_or_none(source)
    node = _top_level_function(tree, entry_point) if tree is not None else None
    if tree is None or node is None:
        return ""
    imports = [s for s in tree.body if isinstance(s, ast.Import | ast.ImportFrom)]
    docstring = ast.get_docstring(node, clean=False)
    node.body = [ast.Expr(ast.Constant(docstring if docstring is not None else ...))]
    node.decorator_list = []
    return ast.unparse(ast.Module(body=[*imports, node], type_ignores=[])) + "\n"


def defines(source: str, entry_point: str) -> bool:
    """Whether the source parses and defines ``entry_point`` at top level."""
    tree = parse_or_none(source)
    return tree is not None and _top_level_function(tree, entry_point) is not None


# --------------------------------------------------------------------------------------------
# Generic task JSONL


def _signature_source_from_field(text: str, entry_point: str) -> str:
    stripped = text.strip()
    if stripped.startswith("("):
        source = f"def {entry_point}{stripped}:\n    ...\n"
    elif parse_or_none(stripped) is not None:
        source = stripped + "\n"
    else:
        # a bare def line, with or without its colon
        source = f"{stripped.rstrip(':').rstrip()}:\n    ...\n"
    if parse_or_none(source) is None:
        raise BadRecord(f"field 'signature' does not parse as Python: {text!r}")
    if not defines(source, entry_point):
        raise BadRecord(f"field 'signature' does not declare {entry_point}()")
    return source


def _explicit_seed(value: Any) -> Input:
    if isinstance(value, list):
        return Input(args=tuple(value), how_generated="seeds")
    if isinstance(value, dict) and set(value) <= {"args", "kwargs"}:
        args, kwargs = value.get("args", []), value.get("kwargs", {})
        if isinstance(args, list) and isinstance(kwargs, dict):
            return Input(args=tuple(args), kwargs=kwargs, how_generated="seeds")
    raise BadRecord(
        f"each seed must be a list of arguments or {{'args': [...], 'kwargs': {{...}}}}, got {value!r}"
    )


def _generic_task(record: dict[str, Any], dataset: str) -> Task:
    task_id = id_field(record)
    entry_point = entry_point_field(record)
    if not entry_point:
        raise BadRecord("field 'entry_point' is empty")
    ground_truth = record.get("ground_truth")
    if ground_truth is not None:
        ground_truth = text_field(record, "ground_truth")
        if parse_or_none(ground_truth) is None:
            raise BadRecord("field 'ground_truth' does not parse as Python")
        if not defines(ground_truth, entry_point):
            raise BadRecord(f"field 'ground_truth' does not define {entry_point}()")
    signature_text = text_field(record, "signature", required=False)
    if signature_text.strip():
        signature_source = _signature_source_from_field(signature_text, entry_point)
    else:
        signature_source = signature_source_of(ground_truth, entry_point) if ground_truth else ""
    tests = record.get("tests")
    if tests is None:
        seeds_text = ""
    elif isinstance(tests, str):
        seeds_text = tests
    elif isinstance(tests, list) and all(isinstance(line, str) for line in tests):
        seeds_text = "\n".join(tests)
    else:
        raise BadRecord("field 'tests' must be a string or a list of strings")
    seeds = record.get("seeds")
    if seeds is not None and not isinstance(seeds, list):
        raise BadRecord("field 'seeds' must be a list of argument lists")
    raising_is_specified = record.get("raising_is_specified", True)
    if not isinstance(raising_is_specified, bool):
        raise BadRecord(f"field 'raising_is_specified' must be true or false, got {raising_is_specified!r}")
    return Task(
        task_id=task_id,
        description=text_field(record, "description", required=False),
        entry_point=entry_point,
        signature_source=signature_source,
        ground_truth=ground_truth,
        seeds_text=seeds_text,
        setup_code=text_field(record, "setup_code", required=False),
        explicit_seeds=tuple(_explicit_seed(seed) for seed in seeds or ()),
        dataset=dataset,
        raising_is_specified=raising_is_specified,
    )


def _dataset_name(path: Path) -> str:
    name = path.name
    for suffix in (".gz", ".jsonl"):
        name = name.removesuffix(suffix)
    return name


def load_tasks_jsonl(path: Path | str) -> TaskSet:
    """Tasks in the task JSONL format of this module's docstring; bad lines become problems."""
    file = Path(path)
    tasks = TaskSet()
    seen: dict[str, int] = {}
    dataset = _dataset_name(file)
    for number, raw in json_lines(file, tasks.problems):
        try:
            task = _generic_task(decode_object(raw), dataset)
        except BadRecord as error:
            tasks.problems.append(LineProblem(file, number, str(error)))
            continue
        if task.task_id in seen:
            message = f"duplicate task_id {task.task_id!r} (line {seen[task.task_id]} is kept)"
            tasks.problems.append(LineProblem(file, number, message))
            continue
        seen[task.task_id] = number
        tasks.append(task)
    return tasks

