"""Which inputs a difference may be claimed on, when no validator says which inputs are valid.

* :class:`StatementCheck`: the statement's format and constraints as a validator (its stated
  bounds, relations such as ``1 <= x <= N``, and what its sentences say of lists: "a permutation of
  (1, ..., N)", "distinct"). An input it rejects is never run.
* :class:`ExampleShape`: with the examples alone nobody says what is valid, so a claim stays
  within what every example shows: the examples' layout (lines, tokens, counts), each integer's
  sign (``x >= 1`` when every example has it so) and the type's natural range (32 bits when every
  example fits them, else 64), the character classes of each word (lower-case letters only), lists
  that are permutations of 1..n in every example, non-empty lists. An input outside that shape may
  run, and a difference on it is reported apart with what it breaks ("x = -1: every example has
  x >= 1"), never claimed.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Sequence
from dataclasses import dataclass

from divergent.formats.instances import named_values, slot_names, slots
from divergent.formats.model import InputFormat, Kind, Node
from divergent.formats.spaces import hot_count
from divergent.formats.statement_text import constraint_text, normalise
from divergent.formats.text_structure import Count, Rep

__all__ = ["ExampleShape", "ListRule", "StatementCheck", "statement_rules"]

_INT32 = 2 ** 31
_INT64 = 2 ** 63
_PERMUTATION = re.compile(r"\b([A-Za-z])(?:_\w+)?\s+is\s+a\s+permutation\s+of\b", re.IGNORECASE)
_DISTINCT = re.compile(r"^([^\n]*?)\b(?:are|is)\s+(?:all\s+|pairwise\s+|mutually\s+)*(?:distinct|different)\b",
                       re.IGNORECASE | re.MULTILINE)
_NAME = re.compile(r"(?<![\w|])([A-Za-z])(?:_[\w,]+)?(?![\w(])")
_NOT_ALL_EQUAL = re.compile(r"\bnot\s+all\s+(?:of\s+)?([^\n]*?)\s+are\s+(?:the\s+same|equal)", re.IGNORECASE)
#: a constraint line saying its variables are not 0
_NONZERO = re.compile(r"^[^\n]*(?:none\s+of\s+them\s+(?:is|are)|(?:is|are)\s+not|!=)\s*0\b[^\n]*"
                      r"|^[^\n]*\bnon-?zero\b[^\n]*", re.IGNORECASE | re.MULTILINE)
#: ``X_1 < X_2 < ... < X_M`` (or ``<=``): a list, or a scalar over records, in order
_ORDERED = re.compile(r"\b([A-Za-z])_1\s*(?:<=|<)\s*(?:\1_2\s*(?:<=|<)\s*)?\.\.\.\s*(?:<=|<)\s*\1_\w+")
_NOT_NAMES = {"a", "A", "I"}


@dataclass(frozen=True)
class ListRule:
    """What the statement says of a list (``names``: one) or of several scalars together."""

    kind: str  # "permutation" (of 1..its length), "distinct", "increasing", "non-decreasing", "nonzero", "not all equal"
    names: tuple[str, ...]

    def problem(self, named: dict[str, list[list[str]]]) -> str | None:
        if self.kind in ("increasing", "non-decreasing"):
            occurrences = named.get(self.names[0], [])
            # a list's items, or a record's scalar over the records (X_1 < X_2 < ... < X_M)
            groups = occurrences if any(len(values) > 1 for values in occurrences) else [[v[0] for v in occurrences if v]]
            for values in groups:
                numbers = [_int_or_none(v)[0] for v in values]
                if any(b < a or (b == a and self.kind == "increasing") for a, b in itertools.pairwise(numbers)):
                    return f"{self.names[0]} is not {self.kind} (the statement says it is)"
            return None
        if self.kind == "nonzero":
            zero = next((name for name in self.names for values in named.get(name, []) if "0" in values), None)
            return f"{zero} is 0 (the statement says none is)" if zero else None
        if self.kind == "not all equal":
            values = [values[0] for name in self.names for values in named.get(name, [])[:1] if values]
            return (f"{', '.join(self.names)} are all {values[0]} (the statement says not all are the same)"
                    if len(values) == len(self.names) and len(set(values)) == 1 else None)
        if len(self.names) == 1:
            groups = named.get(self.names[0], [])
        else:
            scalars = [named.get(name, []) for name in self.names]
            if not all(scalars):
                return None
            groups = [[occurrences[0][0] for occurrences in scalars]]
        for values in groups:
            if self.kind == "permutation":
                if sorted(values, key=_int_or_none) != [str(i) for i in range(1, len(values) + 1)]:
                    return f"{self.names[0]} is not a permutation of 1..{len(values)} (the statement says it is)"
            elif len(set(values)) != len(values):
                return f"{', '.join(self.names)}: values repeat (the statement says they are distinct)"
        return None


def _int_or_none(text: str) -> tuple[int, str]:
    return (int(text), "") if re.fullmatch(r"-?\d+", text) else (0, text)


def statement_rules(statement: str, fmt: InputFormat) -> list[ListRule]:
    """The permutations and distinct values the statement's constraints name (of the format's names)."""
    text = normalise(constraint_text(statement))
    names = {token.name for token in fmt.tokens() if token.name}
    lists = {token.name for token in fmt.tokens() if token.name and token.count is not None}
    rules: list[ListRule] = []
    for match in _PERMUTATION.finditer(text):
        if match.group(1) in lists:
            rules.append(ListRule("permutation", (match.group(1),)))
    for match in _ORDERED.finditer(text):
        if match.group(1) in names:
            strict = "<=" not in match.group(0)
            rules.append(ListRule("increasing" if strict else "non-decreasing", (match.group(1),)))
    for match in _NOT_ALL_EQUAL.finditer(text):
        found = [m.group(1) for m in _NAME.finditer(match.group(1)) if m.group(1) in names]
        if len(found) > 1:
            rules.append(ListRule("not all equal", tuple(dict.fromkeys(found))))
    for match in _NONZERO.finditer(text):
        found = [m.group(1) for m in _NAME.finditer(match.group(0)) if m.group(1) in names]
        if found:
            rules.append(ListRule("nonzero", tuple(dict.fromkeys(found))))
    for match in _DISTINCT.finditer(text):
        found = [m.group(1) for m in _NAME.finditer(match.group(1)) if m.group(1) not in _NOT_NAMES or m.group(0) != m.group(1)]
        found = list(dict.fromkeys(name for name in found if name in names))
        if len(found) == 1 and found[0] in lists:
            rules.append(ListRule("distinct", (found[0],)))
        elif len(found) > 1 and not set(found) & lists:
            rules.append(ListRule("distinct", tuple(found)))
    return rules


class StatementCheck:
    """The statement's format (stated bounds only) and its rules on lists, judging a whole input."""

    def __init__(self, fmt: InputFormat, rules: Sequence[ListRule] = ()) -> None:
        self.format = fmt
        self.rules = tuple(rules)

    def problem(self, text: str) -> str | None:
        read_ = named_values(self.format, text, strict=True)
        if isinstance(read_, str):
            return read_
        for rule in self.rules:
            found = rule.problem(read_[1])
            if found:
                return found
        return None

    def describe(self) -> str:
        rules = "".join(f"; {rule.kind}: {', '.join(rule.names)}" for rule in self.rules)
        return " | ".join(self.format.text().strip().splitlines()) + rules


# -- the examples' shape -----------------------------------------------------------------------


@dataclass
class _Slot:
    name: str
    kind: Kind
    low: float | None = None
    magnitude: float = 0
    classes: frozenset[str] = frozenset()
    permutation: bool = True
    #: some example's list is a shuffled one of three or more (a permutation not by chance)
    long_list: bool = False
    nonempty: bool = True
    is_list: bool = False


def _classes(word: str) -> frozenset[str]:
    return frozenset("lower-case letters" if c.islower() else "upper-case letters" if c.isupper()
                     else "digits" if c.isdigit() else "other characters" for c in word)


def _slot_names(body: tuple[Node, ...]) -> dict[str, str]:
    """Each slot's name for people: its token's, else where it is."""
    out = {}
    for key, token in slot_names(body).items():
        line = int(key.split(".")[-2]) + 1
        position = int(key.split(".")[-1])
        out[key] = token.name or (f"the list on line {line}" if token.count is not None
                                  else f"token {position + 1} of line {line}")
    return out


def _parts(block: list) -> list[tuple[str, str, list[str], bool]]:
    """(key, kind of part, its values, is a list) of every slot of a tree."""
    out = []
    for line, index in slots(block):
        part = line.parts[index]
        key = line.specs[index].key
        if isinstance(part, Count):
            out.append((key, "count", [str(part.value)], False))
        elif isinstance(part, Rep):
            if part.characters:
                out.append((key, "word", ["".join(part.items)], False))
            else:
                out.append((key, "list", [str(item) for item in part.items], True))
        else:
            out.append((key, "token", [str(part)], False))
    return out


def _top_values(parts: list[tuple[str, str, list[str], bool]]) -> dict[str, list[int]]:
    """The integers of the slots read once at the top of an input (not in a repeat), by key; a
    list's items together."""
    found: dict[str, list[int]] = {}
    for key, part, values, _ in parts:
        if key.count(".") != 1 or part == "word" or key in found:
            continue
        numbers = [int(v) for v in values if re.fullmatch(r"-?\d+", v)]
        if numbers and len(numbers) == len(values):
            found[key] = numbers
    return found


def _relations(examples: list[list[tuple[str, str, list[str], bool]]]) -> tuple[tuple[str, str], ...]:
    """The pairs (a, b) of integers read once at the top with a <= b in every example; with two
    examples or more, also a list's items all at most a number read once (``1 <= A_i <= N``: a
    list below its count in one small example says nothing)."""
    tables = [_top_values(parts) for parts in examples]
    common = [key for key in tables[0] if all(key in table for table in tables)] if tables else []
    single = [key for key in common if all(len(table[key]) == 1 for table in tables)]
    lists = [key for key in common if key not in single] if len(tables) >= 2 else []
    return tuple((a, b) for a in single + lists for b in single
                 if a != b and all(max(table[a]) <= table[b][0] for table in tables))


def _distinct(examples: list[list[tuple[str, str, list[str], bool]]]) -> tuple[str, ...]:
    """The integers read once at the top (three or more) that differ from each other in every one
    of two examples or more (``X, Y and Z are distinct``)."""
    tables = [_top_values(parts) for parts in examples]
    if len(tables) < 2:
        return ()
    keys = [key for key in tables[0] if all(key in table and len(table[key]) == 1 for table in tables)]
    if len(keys) >= 3 and all(len({table[key][0] for key in keys}) == len(keys) for table in tables):
        return tuple(keys)
    return ()


def _number(text: str) -> float | None:
    try:
        return float(text)
    except ValueError:
        return None


@dataclass
class ExampleShape:
    """What every example shows (see the module's docstring), and what an input breaks of it."""

    format: InputFormat
    slots: dict[str, _Slot]
    #: the tokens per line of each example (what an input without a format must match)
    layouts: set[tuple[int, ...]]
    #: (a, b): every example has a <= b (keys of integers read once, at the top)
    relations: tuple[tuple[str, str], ...] = ()
    #: every example is a fixed layout of 0/1 cells with this many ones (a one-hot grid: 1)
    ones: int | None = None
    #: numbers read once that differ from each other in every example
    distinct: tuple[str, ...] = ()

    @classmethod
    def learn(cls, fmt: InputFormat | None, examples: Sequence[str]) -> ExampleShape | None:
        """The shape of ``examples`` read by ``fmt`` (None: no example to learn from)."""
        examples = [text for text in examples if text.strip()]
        if not examples:
            return None
        layouts = {tuple(len(line.split()) for line in text.strip("\n").split("\n")) for text in examples}
        reads = [named_values(fmt, text, strict=False) for text in examples] if fmt is not None else []
        if fmt is None or any(isinstance(found, str) for found in reads):
            # no format every example fits line by line: their layouts
            return cls(InputFormat(()), {}, layouts, ones=hot_count(examples))
        trees = [found[0] for found in reads if not isinstance(found, str)]
        names = _slot_names(fmt.body)
        found: dict[str, _Slot] = {}
        for tree in trees:
            for key, part, values, is_list in _parts(tree):  # type: ignore[arg-type]
                name = names.get(key, key)
                slot = found.get(key)
                kind = (Kind.WORD if part == "word" or any(_number(v) is None for v in values)
                        else Kind.FLOAT if any("." in v or "e" in v.lower() for v in values) else Kind.INT)
                if slot is None:
                    slot = found[key] = _Slot(name, kind, is_list=is_list)
                if kind is not Kind.INT and slot.kind is not Kind.WORD:
                    slot.kind = kind
                if kind is Kind.WORD:
                    slot.classes = slot.classes.union(*(_classes(v) for v in values))
                    continue
                numbers = [n for v in values if (n := _number(v)) is not None]
                if numbers:
                    slot.low = min(numbers) if slot.low is None else min(slot.low, *numbers)
                    slot.magnitude = max(slot.magnitude, *(abs(n) for n in numbers))
                if is_list:
                    slot.nonempty = slot.nonempty and bool(values)
                    slot.permutation = slot.permutation and sorted(values, key=_int_or_none) == [
                        str(i) for i in range(1, len(values) + 1)]
                    # (1 2 3 is a permutation by chance: a shuffled one of three or more is not)
                    slot.long_list = slot.long_list or (len(values) >= 3 and values != sorted(values, key=_int_or_none))
        parts = [_parts(tree) for tree in trees]
        return cls(fmt, found, layouts, _relations(parts), ones=hot_count(examples), distinct=_distinct(parts))

    def problem(self, text: str) -> str | None:
        """What ``text`` breaks of the examples' shape ("x = -1: every example has x >= 1"), or None."""
        if self.ones is not None:
            ones = sum(token.count("1") for token in text.split())
            if ones != self.ones or any(set(token) - {"0", "1"} for token in text.split()):
                return f"{ones} one(s) among its 0/1 cells: every example has {self.ones}"
        if not self.slots:
            layout = tuple(len(line.split()) for line in text.strip("\n").split("\n"))
            return None if layout in self.layouts else "its lines hold other numbers of tokens than any example's"
        found = named_values(self.format, text, strict=False)
        if isinstance(found, str):
            return f"{found} (every example has the layout {' | '.join(self.format.text().strip().splitlines())})"
        tree = found[0]
        parts = _parts(tree)
        for key, part, values, is_list in parts:
            slot = self.slots.get(key)
            if slot is None:
                continue
            problem = self._slot_problem(slot, part, values, is_list)
            if problem:
                return problem
        values = _top_values(parts)
        if self.distinct and all(key in values for key in self.distinct) and \
                len({values[key][0] for key in self.distinct}) < len(self.distinct):
            names = ", ".join(self.slots[key].name for key in self.distinct if key in self.slots)
            return f"{names} repeat a value: they differ in every example"
        for left, right in self.relations:
            if left in values and right in values and max(values[left]) > min(values[right]):
                a, b = self.slots[left].name, self.slots[right].name
                return (f"{a} = {max(values[left])} > {b} = {min(values[right])}: every example has {a} <= {b}"
                        + (" (each of them)" if len(values[left]) > 1 else ""))
        return None

    @staticmethod
    def _slot_problem(slot: _Slot, part: str, values: list[str], is_list: bool) -> str | None:
        name = slot.name
        if slot.kind is Kind.WORD:
            for value in values:
                stray = _classes(value) - slot.classes
                if stray:
                    return (f"{name} = {value[:20]!r}: no example's {name} has {', '.join(sorted(stray))} "
                            f"(only {', '.join(sorted(slot.classes))})")
            return None
        if is_list and slot.nonempty and not values:
            return f"{name} is empty: no example's is"
        for value in values:
            number = _number(value)
            if number is None:
                return f"{name} = {value[:20]!r}: every example's {name} is a number"
            for floor in (1, 0):
                if slot.low is not None and slot.low >= floor > number:
                    return f"{name} = {value[:20]}: every example has {name} >= {floor}"
            limit = _INT32 if slot.magnitude < _INT32 else _INT64
            if slot.kind is Kind.INT and not -limit <= number < limit:
                bits = 32 if limit == _INT32 else 64
                return f"{name} = {value[:24]}: outside the {bits}-bit integers every example's {name} fits in"
        if is_list and slot.permutation and slot.long_list and sorted(values, key=_int_or_none) != [
                str(i) for i in range(1, len(values) + 1)]:
            return f"{name} is not a permutation of 1..{len(values)}: every example's is"
        return None

    def describe(self) -> str:
        shown = []
        for slot in self.slots.values():
            if slot.kind is Kind.WORD:
                shown.append(f"{slot.name}: {', '.join(sorted(slot.classes))}")
            elif slot.low is not None:
                bits = 32 if slot.magnitude < _INT32 else 64
                sign = ">= 1" if slot.low >= 1 else ">= 0" if slot.low >= 0 else "any sign"
                shown.append(f"{slot.name} {sign}, {bits}-bit" + (", a permutation" if slot.permutation and slot.long_list else ""))
        return "; ".join(dict.fromkeys(shown)) or "the examples' lines"
