"""Reading benchmark and sample files as records: JSON lines (gzip when the name ends in .gz),
one JSON object per record, each field checked on the way in.

A record that cannot be used does not stop a load: it becomes a :class:`LineProblem` (path, line
number, message) that the loader returns beside what it read. Readers raise :class:`BadRecord`
for such a record; the loader turns it into the problem.

Built-in benchmarks live in a directory laid out like the DiffTrust artifact
(:func:`default_data_dir`): ``$DIVERGENT_BENCH_DATA``, else ``data/difftrust`` in divergent's data
home (``$DIVERGENT_HOME``, else ``$XDG_DATA_HOME/divergent``, else ``~/.local/share/divergent``,
where the store lives too).
"""

from __future__ import annotations

import gzip
import json
import math
import os
import zlib
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from divergent import paths
from divergent.errors import LoadError

__all__ = [
    "DATA_DIR_ENV",
    "BadRecord",
    "LineProblem",
    "decode_object",
    "default_data_dir",
    "entry_point_field",
    "first_record",
    "id_field",
    "index_field",
    "json_lines",
    "number_field",
    "open_binary",
    "text_field",
]

#: environment variable naming a directory laid out like the DiffTrust artifact
DATA_DIR_ENV = "DIVERGENT_BENCH_DATA"


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


class BadRecord(Exception):
    """A record is unusable; the message becomes a LineProblem."""


def default_data_dir() -> Path | None:
    """The directory holding the DiffTrust-style benchmark data: ``$DIVERGENT_BENCH_DATA``, else
    ``data/difftrust`` in divergent's data home when it is there; None when neither is."""
    configured = os.environ.get(DATA_DIR_ENV)
    if configured:
        return Path(configured).expanduser()
    installed = paths.data_dir() / "data" / "difftrust"
    return installed if installed.is_dir() else None


def _is_gzip(path: Path) -> bool:
    return path.suffix.lower() == ".gz"


@contextmanager
def open_binary(path: Path) -> Iterator[IO[bytes]]:
    with ExitStack() as stack:
        try:
            file: IO[bytes] = stack.enter_context(path.open("rb"))
        except OSError as error:
            raise LoadError(f"{path}: cannot read: {error.strerror or error}") from None
        # decompression errors surface on read, where the caller reports them with a line number
        yield stack.enter_context(gzip.GzipFile(fileobj=file, mode="rb")) if _is_gzip(path) else file


def json_lines(path: Path, problems: list[LineProblem]) -> Iterator[tuple[int, bytes]]:
    """Non-blank raw lines with their 1-based numbers, streamed (gzip when the name ends in .gz).

    A file that breaks off (truncated gzip) ends the stream with a problem when some lines were
    read already, and raises LoadError when none were.
    """
    number = 0
    with open_binary(path) as stream:
        try:
            for number, raw in enumerate(stream, start=1):
                if raw.strip():
                    yield number, raw
        except (OSError, EOFError, zlib.error) as error:
            if number == 0:
                raise LoadError(f"{path}: cannot read: {error}") from None
            problems.append(LineProblem(path, number + 1, f"cannot read further: {error}"))


def json_records(
    path: Path, problems: list[LineProblem], *, what: str, sniff: bool = False
) -> Iterator[tuple[int, dict[str, Any]]]:
    """(number, object) of one file: a JSON array (numbered by position) or JSON lines (by line),
    gzip allowed; what is not an object is a problem. The file is an array when its name ends in
    ``.json``/``.json.gz`` or, with ``sniff``, when its text starts with ``[`` (``datasets`` exports
    JSON lines under ``.json`` too). ``what`` names the rows in errors ("MBPP tasks")."""
    if sniff:
        with open_binary(path) as stream:
            array = stream.read(64).lstrip().startswith(b"[")
    else:
        array = path.name.lower().endswith((".json", ".json.gz"))
    if array:
        try:
            with open_binary(path) as stream:
                rows = json.load(stream)
        except (ValueError, OSError, EOFError, zlib.error) as error:
            raise LoadError(f"{path}: not a JSON array of {what}: {error}") from None
        if not isinstance(rows, list):
            raise LoadError(f"{path}: expected a JSON array of {what}, got {type(rows).__name__}")
        for position, row in enumerate(rows, start=1):
            if isinstance(row, dict):
                yield position, row
            else:
                problems.append(LineProblem(path, position, f"expected a JSON object, got {type(row).__name__}"))
        return
    for number, raw in json_lines(path, problems):
        try:
            yield number, decode_object(raw)
        except BadRecord as error:
            problems.append(LineProblem(path, number, str(error)))


def decode_object(raw: bytes) -> dict[str, Any]:
    """One record: a JSON object (BadRecord for anything else)."""
    try:
        value = json.loads(raw)
    except RecursionError:
        raise BadRecord("not JSON: nested too deeply") from None
    except ValueError as error:
        raise BadRecord(f"not JSON: {error}") from None
    if not isinstance(value, dict):
        raise BadRecord(f"expected a JSON object, got {type(value).__name__}")
    return value


def text_field(record: dict[str, Any], name: str, *, required: bool = True, default: str = "") -> str:
    value = record.get(name)
    if value is None:
        if required:
            raise BadRecord(f"missing field {name!r}")
        return default
    if not isinstance(value, str):
        raise BadRecord(f"field {name!r} must be a string, got {type(value).__name__}")
    return value


def id_field(record: dict[str, Any], name: str = "task_id") -> str:
    value = record.get(name)
    # MBPP numbers its tasks; candidate files write the same ids as strings
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    if isinstance(value, str) and value.strip():
        return value.strip()
    if value is None:
        raise BadRecord(f"missing field {name!r}")
    raise BadRecord(f"field {name!r} must be a non-empty string or an integer, got {value!r}")


def entry_point_field(record: dict[str, Any], name: str = "entry_point", *, required: bool = True) -> str:
    value = text_field(record, name, required=required).strip()
    if value and not value.isidentifier():
        raise BadRecord(f"field {name!r} must be a function name, got {value!r}")
    return value


def number_field(record: dict[str, Any], name: str) -> float:
    value = record.get(name)
    if value is None:
        raise BadRecord(f"missing field {name!r}")
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise BadRecord(f"field {name!r} must be a finite number, got {value!r}")
    return float(value)


def index_field(record: dict[str, Any]) -> int | None:
    value = record.get("index")
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise BadRecord(f"field 'index' must be an integer >= 0, got {value!r}")
    return value



def first_record(file: Path) -> dict[str, Any] | None:
    """The first record of a JSON-lines file (None when it is not a JSON object)."""
    ignored: list[LineProblem] = []
    for _number, raw in json_lines(file, ignored):
        try:
            return decode_object(raw)
        except BadRecord:
            return None
    return None

