"""EquiBench's pairs as records: the six categories, the published row format, and the exemplars.

Layout (as the authors' download step writes the Hugging Face dataset ``anjiangwei/EquiBench-Datasets``)::

    DIR/<CATEGORY>/pairs.json          a JSON array of rows
    DIR/<CATEGORY>/pairs.jsonl[.gz]    or one row per line

``<CATEGORY>`` is the category's name or the dataset's config name: ``DCE``, ``CUDA`` or ``TVM``,
``x86-64`` or ``STOKE``, ``OJ_A``, ``OJ_V``, ``OJ_VA``. Every row has ``pair_id``,
``program_1_code``, ``program_2_code`` and ``truth_label`` (equivalent or not); x86-64 rows add
``problem_def_in`` and ``problem_live_out`` (registers, e.g. ``%rdi``), OJ rows add
``problem_html_content`` (the problem statement). A row that cannot be used is reported as a
:class:`~divergent.datasets.jsonl.LineProblem` and the load goes on.

The authors' few-shot exemplars (``fewshot_exemplars.jsonl``: ``exemplar_id`` instead of
``pair_id``, and program fields that may say "Same as Program 1 from Example 1.") load with
:func:`load_exemplars`, the references resolved.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import Any

from divergent.datasets.jsonl import BadRecord, LineProblem, json_records
from divergent.errors import InvalidArgument, LoadError

__all__ = [
    "CATEGORY_ALIASES",
    "Category",
    "EquiBenchData",
    "Pair",
    "load_equibench",
    "load_exemplars",
    "parse_categories",
    "parse_registers",
]


class Category(StrEnum):
    DCE = "DCE"
    CUDA = "CUDA"
    X86_64 = "x86-64"
    OJ_A = "OJ_A"
    OJ_V = "OJ_V"
    OJ_VA = "OJ_VA"

    @property
    def config_name(self) -> str:
        """The category's config name in the Hugging Face dataset."""
        return {Category.CUDA: "TVM", Category.X86_64: "STOKE"}.get(self, self.value)

    @property
    def language(self) -> str:
        return {Category.DCE: "C", Category.CUDA: "CUDA", Category.X86_64: "x86-64 assembly"}.get(self, "Python")

    @property
    def online_judge(self) -> bool:
        return self in (Category.OJ_A, Category.OJ_V, Category.OJ_VA)


#: every name a category goes by (its own, the dataset's config name), lower-cased
CATEGORY_ALIASES: dict[str, Category] = {
    **{c.value.lower(): c for c in Category},
    **{c.config_name.lower(): c for c in Category},
    "x86": Category.X86_64,
    "x86_64": Category.X86_64,
}

_DATA_FILES = ("pairs.json", "pairs.jsonl", "pairs.jsonl.gz", "pairs.json.gz")


def parse_categories(text: str | Sequence[str] | None) -> tuple[Category, ...]:
    """``"OJ_A,OJ_V"`` (names or config names, any case) as categories; None or "all": all six."""
    if text is None:
        return tuple(Category)
    names = [part.strip() for part in (text.split(",") if isinstance(text, str) else text) if part.strip()]
    if not names or [n.lower() for n in names] == ["all"]:
        return tuple(Category)
    chosen: list[Category] = []
    for name in names:
        category = CATEGORY_ALIASES.get(name.lower())
        if category is None:
            known = ", ".join(c.value for c in Category)
            raise InvalidArgument(f"unknown EquiBench category {name!r}; choose from {known} (or TVM, STOKE)")
        if category not in chosen:
            chosen.append(category)
    return tuple(chosen)


_REGISTER = re.compile(r"%?\b([a-z][a-z0-9]{1,5})\b")


def parse_registers(value: Any) -> tuple[str, ...]:
    """Registers from ``"%rdi %rsi"``, ``"{ %rdi }"`` (STOKE's syntax) or a list, as ``("%rdi", "%rsi")``."""
    if value is None:
        return ()
    if isinstance(value, list | tuple):
        text = " ".join(str(v) for v in value)
    elif isinstance(value, str):
        text = value
    else:
        raise BadRecord(f"registers must be a string or a list, got {type(value).__name__}")
    found: list[str] = []
    for name in _REGISTER.findall(text.lower()):
        register = f"%{name}"
        if register not in found:
            found.append(register)
    return tuple(found)


@dataclass(frozen=True)
class Pair:
    """One EquiBench item: two programs and whether they are equivalent."""

    category: Category
    pair_id: str
    program_1: str
    program_2: str
    equivalent: bool
    #: x86-64: the registers that hold the input, and those compared
    def_in: tuple[str, ...] = ()
    live_out: tuple[str, ...] = ()
    #: OJ: the problem statement (HTML, or plain text in the exemplars)
    problem_html: str = ""

    @property
    def key(self) -> str:
        """A stable, unique key: ``OJ_A/17``."""
        return f"{self.category.value}/{self.pair_id}"


def _truth(value: Any) -> bool:
    if isinstance(value, bool):
        return value
    if isinstance(value, int) and value in (0, 1):
        return bool(value)
    if isinstance(value, str):
        lowered = value.strip().lower()
        if lowered in ("true", "yes", "1", "equal", "equivalent"):
            return True
        if lowered in ("false", "no", "0", "unequal", "inequivalent", "not equivalent"):
            return False
    raise BadRecord(f"field 'truth_label' must be true or false, got {value!r}")


def _code(record: dict[str, Any], name: str) -> str:
    value = record.get(name)
    if not isinstance(value, str) or not value.strip():
        raise BadRecord(f"field {name!r} must be a non-empty string")
    return value


def pair_from_record(record: dict[str, Any], category: Category | None = None, *, id_field: str = "pair_id") -> Pair:
    """A :class:`Pair` from one row; ``category`` wins over the row's own ``category`` field."""
    if category is None:
        named = record.get("category")
        category = CATEGORY_ALIASES.get(str(named).lower()) if named is not None else None
        if category is None:
            raise BadRecord(f"unknown or missing field 'category': {named!r}")
    identifier = record.get(id_field)
    if isinstance(identifier, bool) or not isinstance(identifier, int | str) or str(identifier).strip() == "":
        raise BadRecord(f"field {id_field!r} must be a string or an integer")
    def_in = parse_registers(record.get("problem_def_in"))
    live_out = parse_registers(record.get("problem_live_out"))
    if category is Category.X86_64 and not live_out:
        raise BadRecord("x86-64 rows need 'problem_live_out' (the registers compared)")
    html = record.get("problem_html_content", "")
    if html is None:
        html = ""
    if not isinstance(html, str):
        raise BadRecord("field 'problem_html_content' must be a string")
    return Pair(
        category=category,
        pair_id=str(identifier).strip(),
        program_1=_code(record, "program_1_code"),
        program_2=_code(record, "program_2_code"),
        equivalent=_truth(record.get("truth_label")),
        def_in=def_in,
        live_out=live_out,
        problem_html=html,
    )


@dataclass
class EquiBenchData:
    """The pairs read, in category order then file order, and the rows that could not be used."""

    pairs: list[Pair] = field(default_factory=list)
    problems: list[LineProblem] = field(default_factory=list)
    #: the file each category was read from
    files: dict[Category, Path] = field(default_factory=dict)

    def by_category(self) -> dict[Category, list[Pair]]:
        grouped: dict[Category, list[Pair]] = {}
        for pair in self.pairs:
            grouped.setdefault(pair.category, []).append(pair)
        return grouped


def _category_file(directory: Path, category: Category) -> Path | None:
    names = {category.value, category.config_name}
    for child in sorted(directory.iterdir()) if directory.is_dir() else ():
        if child.is_dir() and (child.name in names or CATEGORY_ALIASES.get(child.name.lower()) is category):
            for name in _DATA_FILES:
                if (child / name).is_file():
                    return child / name
    return None


def load_category_file(file: Path, category: Category, data: EquiBenchData) -> None:
    """Add the rows of one category's file to ``data`` (duplicate pair ids are problems)."""
    seen: dict[str, int] = {}
    for position, row in json_records(file, data.problems, what="EquiBench rows"):
        try:
            pair = pair_from_record(row, category)
        except BadRecord as error:
            data.problems.append(LineProblem(file, position, str(error)))
            continue
        if pair.pair_id in seen:
            data.problems.append(
                LineProblem(file, position, f"duplicate pair_id {pair.pair_id!r} (row {seen[pair.pair_id]} is kept)")
            )
            continue
        seen[pair.pair_id] = position
        data.pairs.append(pair)
    data.files[category] = file


def load_equibench(directory: Path | str, categories: Iterable[Category] | str | None = None) -> EquiBenchData:
    """The pairs of ``categories`` (all six by default) under ``directory``.

    Raises LoadError when the directory does not exist or holds none of the categories asked for;
    a category that is missing while others are present is a problem of the result, not an error.
    """
    root = Path(directory)
    if not root.is_dir():
        raise LoadError(f"{root}: no such directory (expected DIR/<CATEGORY>/pairs.json or pairs.jsonl[.gz])")
    chosen = parse_categories(categories) if categories is None or isinstance(categories, str) else tuple(categories)
    data = EquiBenchData()
    for category in chosen:
        file = _category_file(root, category)
        if file is None:
            folders = " or ".join(dict.fromkeys(f"{name}/" for name in (category.value, category.config_name)))
            data.problems.append(LineProblem(root, 0, f"category {category.value}: no {folders} folder with "
                                                      "pairs.json or pairs.jsonl[.gz]"))
            continue
        load_category_file(file, category, data)
    if not data.files:
        names = ", ".join(c.value for c in chosen)
        raise LoadError(f"{root}: none of the categories {names} found (expected DIR/<CATEGORY>/pairs.json or "
                        "pairs.jsonl[.gz]; CUDA may be named TVM and x86-64 STOKE)")
    return data


_SAME_AS = re.compile(r"^\s*Same as Program ([12]) (?:from|of|in) Example (\d+)\.?\s*$", re.IGNORECASE)


def load_exemplars(path: Path | str) -> list[Pair]:
    """The authors' few-shot exemplars as pairs (``pair_id`` = ``exemplar_id``), "Same as Program N
    from Example M." resolved to that program of the same category's example M.

    Raises LoadError for an unreadable file, a bad row or a reference to a missing example."""
    file = Path(path)
    problems: list[LineProblem] = []
    rows = list(json_records(file, problems, what="EquiBench rows"))
    if problems:
        raise LoadError(str(problems[0]))
    pairs: list[Pair] = []
    numbered: dict[tuple[Category, int], dict[str, Any]] = {}
    for position, row in rows:
        try:
            category = CATEGORY_ALIASES.get(str(row.get("category", "")).lower())
            if category is None:
                raise BadRecord(f"unknown category {row.get('category')!r}")
            number_match = re.search(r"(\d+)\s*$", str(row.get("exemplar_id", "")))
            if number_match is None:
                raise BadRecord(f"exemplar_id {row.get('exemplar_id')!r} does not end in a number")
            numbered[(category, int(number_match.group(1)))] = row
        except BadRecord as error:
            raise LoadError(f"{file}:{position}: {error}") from None
    for (category, _number), row in numbered.items():
        resolved = dict(row)
        for field_name in ("program_1_code", "program_2_code"):
            reference = _SAME_AS.match(str(row.get(field_name, "")))
            if reference is None:
                continue
            source = numbered.get((category, int(reference.group(2))))
            target = f"program_{reference.group(1)}_code"
            if source is None or _SAME_AS.match(str(source.get(target, ""))):
                raise LoadError(f"{file}: {row.get('exemplar_id')}: {row[field_name].strip()!r} names no program")
            resolved[field_name] = source[target]
        try:
            pairs.append(pair_from_record(resolved, category, id_field="exemplar_id"))
        except BadRecord as error:
            raise LoadError(f"{file}: {row.get('exemplar_id')}: {error}") from None
    return pairs
