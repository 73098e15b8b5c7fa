"""Sampled programs for tasks, read as data: recorded samples (JSON lines or directories) and the
:class:`CandidateSource` protocol live sampling (:mod:`divergent.datasets.sampling`) follows too.

Samples are untrusted programs: kept as text, only parsed with :mod:`ast` here; they run in the
sandbox only.

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

Model configurations are written ``MODEL@TEMPERATURE`` (:mod:`divergent.datasets.models`).
"""

from __future__ import annotations

import importlib.util
import json
import re
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Protocol, runtime_checkable

from divergent.datasets.jsonl import (
    BadRecord,
    LineProblem,
    decode_object,
    entry_point_field,
    id_field,
    index_field,
    json_lines,
    number_field,
    text_field,
)
from divergent.datasets.models import format_model_spec, parse_model_spec
from divergent.datasets.tasks import Task
from divergent.errors import InvalidArgument, LoadError
from divergent.load import load_source
from divergent.programs import PythonFunction

__all__ = [
    "CANDIDATES_KIND",
    "Candidate",
    "CandidateSet",
    "CandidateSource",
    "RecordedCandidates",
    "load_candidates",
    "load_candidates_dir",
    "load_candidates_jsonl",
]

#: the kind of line that holds plain samples in candidate JSONL
CANDIDATES_KIND = "candidates"


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

    def implementation(self, task: Task | None = None) -> PythonFunction:
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
    for number, raw in json_lines(file, result.problems):
        if needles is not None and not any(needle in raw for needle in needles):
            continue
        try:
            record = decode_object(raw)
            kind = text_field(record, "kind", required=False, default=CANDIDATES_KIND)
            if kind not in wanted_kinds:
                result.skipped_kinds[kind] += 1
                continue
            model = text_field(record, "model").strip()
            if not model:
                raise BadRecord("field 'model' is empty")
            temperature = number_field(record, "temperature")
            if wanted_models is not None and (model, temperature) not in wanted_models:
                continue
            task_id = id_field(record)
            if tasks is not None and task_id not in tasks:
                result.unknown_task_ids[task_id] += 1
                continue
            code = text_field(record, "code")
            index = index_field(record)
            entry_point = entry_point_field(record, required=False)
        except BadRecord as error:
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


def load_candidates(
    samples: Path | str,
    tasks: Sequence[Task],
    *,
    models: Sequence[tuple[str, float]] | None = None,
    per_task: int | None = None,
) -> CandidateSet:
    """The recorded samples of ``tasks``, wherever they are: candidate JSONL (gzip too), one model's
    candidate directory, or a directory of such directories; ``per_task`` keeps the lowest indices.

    ``models`` keeps those (model, temperature) pairs; one with no sample at all is an input error
    (a typo would otherwise be an empty run). The incoherence study and the self-consistency
    harness read their samples here."""
    path = Path(samples)
    if path.is_dir():
        found = _load_directories(path, tasks, per_task)
        if models is not None:
            wanted = {(model, float(temperature)) for model, temperature in models}
            found.sources = {key: source for key, source in found.sources.items() if key in wanted}
    elif path.is_file():
        wanted_ids = {task.qualified_id for task in tasks} | {task.task_id for task in tasks}
        found = load_candidates_jsonl(path, models=models, tasks=wanted_ids, per_task=per_task)
    else:
        raise LoadError(f"--samples {path}: no such file or directory")
    missing = [format_model_spec(model, temperature) for model, temperature in models or ()
               if (model, float(temperature)) not in found.sources]
    if missing:
        present = ", ".join(format_model_spec(*key) for key in found.sources) or "none of those asked for"
        raise InvalidArgument(f"--models: no samples of {', '.join(missing)} in {path} (present: {present})")
    return found


def _load_directories(samples: Path, tasks: Sequence[Task], per_task: int | None) -> CandidateSet:
    """A model's directory (``MODEL@T/<task>/*.py``) or a directory of such model directories."""
    direct = load_candidates_dir(samples, tasks, per_task=per_task)
    if direct.sources:
        return direct
    merged = CandidateSet()
    for child in sorted(samples.iterdir()):
        if child.is_dir() and not child.name.startswith("."):
            part = load_candidates_dir(child, tasks, per_task=per_task)
            merged.sources.update(part.sources)
            merged.problems.extend(part.problems)
            merged.unknown_task_ids.update(part.unknown_task_ids)
    return merged
