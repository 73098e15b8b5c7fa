"""REFUTE's rows: reading them (JSON lines, JSON, Parquet as ``datasets`` exports them) and mapping
Codeforces language strings to builds.

A row (the Hugging Face dataset ``bethgelab/REFUTE``, split "train") has ``problem_id``,
``statement``, ``input``, ``output``, ``note``, ``example_input``, ``example_output``,
``time_limit`` (ms), ``memory_limit`` (MB), ``wrong_code``, ``wrong_code_lang`` (a Codeforces
language string), ``correct_cpp`` (nullable), ``correct_python`` (used when ``correct_cpp`` is
null), ``validator`` (a Python 3 script: the input on stdin, exit 0 when valid), and optionally
``problem_rating``, ``author_rating``, ``tags``, ``fail_tc``. The shared demo fixtures use
``fixture_id`` and ``correct_code`` + ``correct_code_lang`` instead; both shapes load.

A malformed row is a :class:`~divergent.datasets.jsonl.LineProblem` (the load goes on); a
well-formed row that cannot be benchmarked (a language no build exists for, no correct code, no
validator) loads with :meth:`RefuteTask.unusable` saying why, and a run reports and skips it.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from divergent.datasets.jsonl import BadRecord, LineProblem, json_records
from divergent.errors import InvalidArgument, LoadError, MissingExtra

__all__ = [
    "CPP_FLAGS",
    "Build",
    "RefuteData",
    "RefuteTask",
    "build_for",
    "load_refute",
    "task_from_record",
]

#: the authors' C++ build, less what is Windows-only (their 256 MB stack is the runner's stack limit)
CPP_FLAGS: tuple[str, ...] = ("-O2", "-std=c++23", "-DONLINE_JUDGE")
C_FLAGS: tuple[str, ...] = ("-O2", "-std=gnu11", "-DONLINE_JUDGE", "-lm")


@dataclass(frozen=True)
class Build:
    """How a source is built and run: the language of the runner and the compiler flags."""

    #: "python", "cpp", "c" or "java" (the whole-program kinds of the runner)
    language: str
    flags: tuple[str, ...] = ()

    @property
    def label(self) -> str:
        return {"python": "Python 3", "cpp": "C++ 23", "c": "C 11", "java": "Java"}[self.language]


PYTHON = Build("python")
CPP = Build("cpp", CPP_FLAGS)
C = Build("c", C_FLAGS)
JAVA = Build("java")

# Codeforces writes "C++17 (GCC 7-32)", "GNU C++20 (64)", "Clang++17 Diagnostics", "PyPy 3-64",
# "Python 3", "GNU C11", "Java 21"; models write "C++ 23", "cpp", "python3", "Python".
_CPP = re.compile(r"(c\+\+|g\+\+|clang\+\+|\bcpp\b|\bcxx\b|\bgnu\s*c\+\+)", re.IGNORECASE)
_PYTHON = re.compile(r"^\s*(python|pypy|py)\s*3?(\.\d+)?\b|^\s*py3\s*$", re.IGNORECASE)
_C = re.compile(r"^\s*(gnu\s+)?c\s*(11|99|17|89|\b)|^\s*c\s*$", re.IGNORECASE)
_JAVA = re.compile(r"^\s*java\b", re.IGNORECASE)


def build_for(language: str) -> Build | None:
    """The build of a Codeforces language string or a model's ``<lang>`` (None: no build for it).

    Every C++ dialect builds as C++23 (the authors did the same: C++ is backward compatible for
    these programs), every Python and PyPy runs on CPython 3."""
    text = language.strip()
    if not text:
        return None
    if _CPP.search(text):
        return CPP
    if _PYTHON.search(text):
        # "Python 2" is a different language: reject it rather than run it on Python 3
        return None if re.search(r"python\s*2|pypy\s*2", text, re.IGNORECASE) else PYTHON
    if _JAVA.search(text) and "script" not in text.lower():
        return JAVA
    if _C.search(text) and "#" not in text:
        return C
    return None


@dataclass(frozen=True)
class RefuteTask:
    """One row: a problem statement with its wrong submission, the correct code and the validator."""

    problem_id: str
    statement: str
    input_format: str
    output_format: str
    note: str
    example_input: str
    example_output: str
    #: milliseconds and megabytes, as Codeforces states them
    time_limit_ms: int
    memory_limit_mb: int
    wrong_code: str
    #: the Codeforces language string as given ("C++17 (GCC 7-32)")
    wrong_language: str
    correct_code: str | None
    correct_language: str | None
    validator: str | None
    rating: int | None = None
    tags: tuple[str, ...] = ()
    #: other fields of the row kept as they were (author_rating, fail_tc, ...)
    metadata: Mapping[str, Any] = field(default_factory=dict)

    @property
    def wrong_build(self) -> Build | None:
        return build_for(self.wrong_language)

    @property
    def correct_build(self) -> Build | None:
        return build_for(self.correct_language) if self.correct_language else None

    def unusable(self, *, require_validator: bool = True) -> str | None:
        """Why this row cannot be benchmarked, or None when it can."""
        if self.wrong_build is None:
            return f"no build for the wrong code's language {self.wrong_language!r}"
        if not self.correct_code:
            return "no correct code"
        if self.correct_build is None:
            return f"no build for the correct code's language {self.correct_language!r}"
        if require_validator and not self.validator:
            return "no validator (use --no-validator to take every printed input as valid)"
        return None


@dataclass
class RefuteData:
    """What a load found: the rows, and the records it could not use (the load went on)."""

    tasks: list[RefuteTask] = field(default_factory=list)
    problems: list[LineProblem] = field(default_factory=list)

    def select(self, problem_ids: Sequence[str] | None = None, limit: int | None = None) -> list[RefuteTask]:
        """The rows named (in the order named; an unknown id is an error naming it), else all,
        cut to the first ``limit``."""
        chosen = self.tasks
        if problem_ids:
            by_id = {task.problem_id: task for task in self.tasks}
            unknown = [name for name in problem_ids if name not in by_id]
            if unknown:
                raise InvalidArgument(
                    f"--problems: no problem {', '.join(repr(u) for u in unknown[:5])} in the data "
                    f"({len(self.tasks)} problems, e.g. {', '.join(t.problem_id for t in self.tasks[:3])})"
                )
            chosen = [by_id[name] for name in dict.fromkeys(problem_ids)]
        if limit is not None:
            if limit < 1:
                raise InvalidArgument(f"--limit {limit}: must be >= 1")
            chosen = chosen[:limit]
        return list(chosen)


def _text(record: Mapping[str, Any], *names: str, required: bool = True) -> str:
    for name in names:
        value = record.get(name)
        if value is None:
            continue
        if not isinstance(value, str):
            raise BadRecord(f"field {name!r} must be a string, got {type(value).__name__}")
        return value
    if required:
        raise BadRecord(f"missing field {names[0]!r}")
    return ""


def _optional_text(record: Mapping[str, Any], name: str) -> str | None:
    value = record.get(name)
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    if not isinstance(value, str):
        raise BadRecord(f"field {name!r} must be a string or null, got {type(value).__name__}")
    return value


def _positive_int(record: Mapping[str, Any], name: str) -> int:
    value = record.get(name)
    if value is None:
        raise BadRecord(f"missing field {name!r}")
    if isinstance(value, str) and value.strip().isdigit():
        value = int(value.strip())
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
        raise BadRecord(f"field {name!r} must be a positive integer, got {value!r}")
    return value


def _optional_int(record: Mapping[str, Any], name: str) -> int | None:
    value = record.get(name)
    if value is None:
        return None
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int):
        raise BadRecord(f"field {name!r} must be an integer or null, got {value!r}")
    return value


def _tags(record: Mapping[str, Any]) -> tuple[str, ...]:
    value = record.get("tags")
    if value is None:
        return ()
    if isinstance(value, str):  # "greedy, math" or a JSON list written as text
        try:
            decoded = json.loads(value)
        except ValueError:
            decoded = [part.strip() for part in value.split(",")]
        value = decoded
    if not isinstance(value, list | tuple) or not all(isinstance(tag, str) for tag in value):
        raise BadRecord(f"field 'tags' must be a list of strings, got {value!r}")
    return tuple(tag.strip() for tag in value if tag.strip())


_KNOWN_FIELDS = frozenset({
    "problem_id", "fixture_id", "statement", "input", "output", "note", "example_input", "example_output",
    "time_limit", "memory_limit", "wrong_code", "wrong_code_lang", "correct_cpp", "correct_python",
    "correct_code", "correct_code_lang", "validator", "problem_rating", "tags",
})


def task_from_record(record: Mapping[str, Any]) -> RefuteTask:
    """One row as a task; raises :class:`~divergent.datasets.jsonl.BadRecord` for a malformed one."""
    problem_id = record.get("problem_id", record.get("fixture_id"))
    if isinstance(problem_id, int) and not isinstance(problem_id, bool):
        problem_id = str(problem_id)
    if not isinstance(problem_id, str) or not problem_id.strip():
        raise BadRecord("missing field 'problem_id'")
    problem_id = problem_id.strip()
    if "/" in problem_id or any(ch.isspace() for ch in problem_id):
        raise BadRecord(f"problem_id {problem_id!r} must not contain '/' or spaces")
    correct_cpp = _optional_text(record, "correct_cpp")
    correct_python = _optional_text(record, "correct_python")
    if correct_cpp is not None:
        correct_code, correct_language = correct_cpp, "C++"
    elif correct_python is not None:
        correct_code, correct_language = correct_python, "Python 3"
    else:
        correct_code = _optional_text(record, "correct_code")
        correct_language = _optional_text(record, "correct_code_lang")
        if correct_code is not None and correct_language is None:
            raise BadRecord("field 'correct_code' needs 'correct_code_lang'")
    return RefuteTask(
        problem_id=problem_id,
        statement=_text(record, "statement"),
        input_format=_text(record, "input"),
        output_format=_text(record, "output"),
        note=_text(record, "note", required=False),
        example_input=_text(record, "example_input"),
        example_output=_text(record, "example_output"),
        time_limit_ms=_positive_int(record, "time_limit"),
        memory_limit_mb=_positive_int(record, "memory_limit"),
        wrong_code=_text(record, "wrong_code"),
        wrong_language=_text(record, "wrong_code_lang"),
        correct_code=correct_code,
        correct_language=correct_language,
        validator=_optional_text(record, "validator"),
        rating=_optional_int(record, "problem_rating"),
        tags=_tags(record),
        metadata={key: value for key, value in record.items() if key not in _KNOWN_FIELDS},
    )


def _records(path: Path, problems: list[LineProblem]) -> Iterator[tuple[int, Any]]:
    """(position, record) pairs of one file: Parquet, a JSON array, or JSON lines (gzip allowed)."""
    name = path.name.lower()
    if name.endswith(".parquet"):
        yield from enumerate(_parquet_rows(path), start=1)
        return
    yield from json_records(path, problems, what="rows", sniff=True)


def _parquet_rows(path: Path) -> list[dict[str, Any]]:
    try:
        import pyarrow.parquet as parquet
    except ImportError:
        raise MissingExtra(
            f"{path}: reading Parquet needs pyarrow: pip install 'divergent[bench]' (or export the data "
            "as JSON lines: datasets' Dataset.to_json)"
        ) from None
    try:
        return parquet.read_table(path).to_pylist()
    except (OSError, ValueError) as error:  # pyarrow's ArrowInvalid is a ValueError
        raise LoadError(f"{path}: not a readable Parquet file: {error}") from None


_DATA_SUFFIXES = (".jsonl", ".jsonl.gz", ".json", ".json.gz", ".parquet")


def _files(path: Path) -> list[Path]:
    if path.is_dir():
        found = sorted(p for p in path.rglob("*") if p.is_file() and p.name.lower().endswith(_DATA_SUFFIXES))
        if not found:
            raise LoadError(f"{path}: no REFUTE data in it (.jsonl, .json or .parquet files)")
        return found
    if not path.exists():
        raise LoadError(f"{path}: no such file")
    return [path]


def load_refute(path: Path | str) -> RefuteData:
    """Every row of a file (or of the data files in a directory, such as a ``datasets`` export).

    Raises LoadError when nothing can be read at all (a missing file, not JSON, no rows);
    MissingExtra for Parquet without pyarrow. Duplicate problem ids: the first row wins."""
    data = RefuteData()
    seen: set[str] = set()
    for file in _files(Path(path)):
        for number, record in _records(file, data.problems):
            if not isinstance(record, dict):
                data.problems.append(LineProblem(file, number, f"expected a JSON object, got {type(record).__name__}"))
                continue
            try:
                task = task_from_record(record)
            except BadRecord as error:
                data.problems.append(LineProblem(file, number, str(error)))
                continue
            if task.problem_id in seen:
                data.problems.append(LineProblem(file, number, f"duplicate problem_id {task.problem_id!r}; kept the first"))
                continue
            seen.add(task.problem_id)
            data.tasks.append(task)
    if not data.tasks:
        first = f" ({data.problems[0]})" if data.problems else ""
        raise LoadError(f"{path}: no usable REFUTE row{first}")
    return data
