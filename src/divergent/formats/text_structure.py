"""The structure of a text input, inferred from one example: lines, tokens, and the counts that tie
them together.

Competitive-programming inputs are mostly lines of tokens in which some numbers say how many
things follow: ``3`` then a line of three numbers; ``n m`` then ``n`` lines of ``m`` numbers; ``t``
test cases, each with its own ``n``; ``5`` then a word of five letters. :func:`parse` reads such an
input into a small tree in which these numbers are not tokens but *counts* (:class:`Count`) of a
repeated part (:class:`Rep`): a count is written from its part's size when the tree is rendered
(:func:`render`), so an engine that adds, removes or resizes parts keeps the input consistent, and
one that changes the count resizes its part. Everything that is not recognised stays as literal
tokens, which are still mutated one by one.

The tree::

    Block = list[Line | Rep]       lines in order (a Rep of lines renders all its elements)
    Line.parts: str | Count | Rep   tokens on one line (an inline Rep renders its items)
    Rep(inline=True): items are token strings (joined by spaces, or characters joined by "")
    Rep(inline=False): items are Blocks (one record or one test case each)
    Count(targets): renders len(targets[0].items); several targets share one size (a grid's width)

Inference is a heuristic on one example; a wrong guess only costs inputs the validator rejects or
the programs read alike.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field, replace

_INTEGER = re.compile(r"^[+-]?\d+$")
_FLOAT = re.compile(r"^[+-]?(?:\d+\.\d*|\.\d+|\d+(?:\.\d*)?[eE][+-]?\d+)$")
#: counts above this are not taken for counts (an input of a million lines is not an example)
_MAX_COUNT = 1_000_000
#: rows of an input that the parser looks at (bigger inputs are kept as plain lines)
_MAX_ROWS = 200_000


def is_integer(token: str) -> bool:
    return bool(_INTEGER.match(token))


def is_float(token: str) -> bool:
    return bool(_FLOAT.match(token))


@dataclass(eq=False)
class Rep:
    """Repeated parts whose number is written elsewhere, by a :class:`Count`."""

    inline: bool
    #: inline: token strings (or characters); else Blocks (lists of Line and Rep)
    items: list = field(default_factory=list)
    #: how inline items are joined: " " (tokens) or "" (the characters of a word)
    joiner: str = " "
    #: its size is not to change (an input format says how many: five rows of five cells)
    fixed: bool = False

    @property
    def characters(self) -> bool:
        return self.inline and self.joiner == ""


@dataclass(eq=False)
class Count:
    """A number that is the size of its targets (every target has the same size)."""

    targets: list[Rep]
    #: what the number is beyond its targets' size (``n`` then ``n - 1`` edges: 1)
    offset: int = 0

    @property
    def value(self) -> int:
        return (len(self.targets[0].items) if self.targets else 0) + self.offset


@dataclass(eq=False)
class Line:
    parts: list = field(default_factory=list)
    #: what each part may be, when an input format says (a ``divergent.formats`` TokenSpec per part:
    #: a token's type, a list's items' type, a count's range), else None
    specs: tuple | None = None


Block = list  # list[Line | Rep]


# -- rendering --------------------------------------------------------------------------------


def render(block: Block) -> str:
    """The text of a tree: one line per Line (a Rep of lines gives each element's lines)."""
    out: list[str] = []
    _render_block(block, out)
    return "\n".join(out) + "\n" if out else ""


def _render_block(block: Block, out: list[str]) -> None:
    for node in block:
        if isinstance(node, Line):
            out.append(render_line(node))
        else:
            for element in node.items:
                _render_block(element, out)


def render_line(line: Line) -> str:
    words = []
    for part in line.parts:
        if isinstance(part, str):
            words.append(part)
        elif isinstance(part, Count):
            words.append(str(part.value))
        else:
            text = part.joiner.join(part.items)
            if text or part.joiner == "":
                words.append(text)
    return " ".join(words)


# -- copying ------------------------------------------------------------------------------------


def clone(block: Block) -> Block:
    """A copy of the tree that can be changed without touching the original (strings are shared)."""
    reps: dict[int, Rep] = {}
    counts: list[tuple[Count, Count]] = []
    copied = _clone_block(block, reps, counts)
    for original, copy in counts:
        copy.targets = [reps.get(id(target), target) for target in original.targets]
    return copied


def _clone_block(block: Block, reps: dict[int, Rep], counts: list) -> Block:
    return [_clone_line(node, reps, counts) if isinstance(node, Line) else _clone_rep(node, reps, counts)
            for node in block]


def _clone_line(line: Line, reps: dict[int, Rep], counts: list) -> Line:
    parts = []
    for part in line.parts:
        if isinstance(part, Count):
            copy = Count(targets=list(part.targets), offset=part.offset)
            counts.append((part, copy))
            parts.append(copy)
        elif isinstance(part, Rep):
            parts.append(_clone_rep(part, reps, counts))
        else:
            parts.append(part)
    return Line(parts, line.specs)


def _clone_rep(rep: Rep, reps: dict[int, Rep], counts: list) -> Rep:
    items = list(rep.items) if rep.inline else [_clone_block(element, reps, counts) for element in rep.items]
    copy = replace(rep, items=items)
    reps[id(rep)] = copy
    return copy


def clone_element(element: Block) -> Block:
    """A copy of one element of a Rep of lines (its own counts point into the copy)."""
    return clone(element)


# -- walking ------------------------------------------------------------------------------------


def reps(block: Block) -> Iterator[Rep]:
    """Every Rep of the tree (outer ones first)."""
    for node in block:
        if isinstance(node, Line):
            for part in node.parts:
                if isinstance(part, Rep):
                    yield part
        else:
            yield node
            for element in node.items:
                yield from reps(element)


def counts(block: Block) -> Iterator[Count]:
    for node in block:
        if isinstance(node, Line):
            for part in node.parts:
                if isinstance(part, Count):
                    yield part
        else:
            for element in node.items:
                yield from counts(element)


def token_slots(block: Block) -> Iterator[tuple[list, int]]:
    """Every literal token as (the list holding it, its index): line tokens and inline Rep items
    (not the characters of a word, which are slots of their own kind)."""
    for node in block:
        if isinstance(node, Line):
            for index, part in enumerate(node.parts):
                if isinstance(part, str):
                    yield node.parts, index
                elif isinstance(part, Rep) and not part.characters:
                    for item_index in range(len(part.items)):
                        yield part.items, item_index
        else:
            for element in node.items:
                yield from token_slots(element)


def size(block: Block) -> int:
    """Tokens and elements in the tree (how big an input is, for growing and shrinking)."""
    total = 0
    for node in block:
        if isinstance(node, Line):
            for part in node.parts:
                total += len(part.items) if isinstance(part, Rep) else 1
        else:
            total += sum(size(element) for element in node.items) + 1
    return total


# -- parsing ------------------------------------------------------------------------------------


def parse(text: str) -> Block:
    """The structure of one input (see the module's docstring)."""
    rows = [line.split() for line in text.splitlines()]
    while rows and not rows[-1]:
        rows.pop()
    if len(rows) > _MAX_ROWS:
        return [Line(list(row)) for row in rows]
    cases = _test_cases(rows)
    if cases is not None:
        return cases
    block, _ = _parse_rows(rows, 0, len(rows))
    return block


def _int(token: str) -> int | None:
    if not _INTEGER.match(token):
        return None
    value = int(token)
    return value if 0 <= value <= _MAX_COUNT else None


def _test_cases(rows: list[list[str]]) -> Block | None:
    """``t`` then ``t`` test cases of the same shape (each made of one or more units)."""
    if len(rows) < 2 or len(rows[0]) != 1:
        return None
    cases = _int(rows[0][0])
    if cases is None or cases < 1 or cases > len(rows) - 1:
        return None
    units: list[tuple[Block, int]] = []  # each unit with the row it starts at
    position = 1
    while position < len(rows):
        unit, after = _parse_unit(rows, position, len(rows))
        units.append((unit, position))
        position = after
    if len(units) % cases:
        return None
    per_case = len(units) // cases
    if per_case == 1 and cases == 1 and len(rows) == 2:
        return None  # "1 / x": nothing says it is a test count
    shapes = [tuple(len(rows[start]) for _, start in units[c * per_case:(c + 1) * per_case]) for c in range(cases)]
    if len(set(shapes)) != 1:
        return None
    elements = [[node for unit, _ in units[c * per_case:(c + 1) * per_case] for node in unit] for c in range(cases)]
    rep = Rep(inline=False, items=elements)
    return [Line([Count([rep])]), rep]


def _parse_rows(rows: list[list[str]], start: int, end: int) -> tuple[Block, int]:
    block: Block = []
    position = start
    #: numbers of earlier header lines that no count took yet: (line, part, value), newest last
    pending: list[tuple[Line, int, int]] = []
    while position < end:
        late = _pending_unit(rows, position, end, pending) or _parallel_list(rows, position, block)
        if late is not None:
            unit, position = late
        else:
            unit, position = _parse_unit(rows, position, end)
            pending.extend(_unused_numbers(unit))
        block.extend(unit)
    return block, position


def _unused_numbers(unit: Block) -> list[tuple[Line, int, int]]:
    """The numbers (2 or more) of a unit's first line that count nothing yet."""
    if not unit or not isinstance(unit[0], Line):
        return []
    line = unit[0]
    return [(line, j, value) for j, part in enumerate(line.parts)
            if isinstance(part, str) and (value := _int(part)) is not None and value >= 2]


def _parallel_list(rows: list[list[str]], i: int, block: Block) -> tuple[Block, int] | None:
    """A second list as long as one before it, sized by the same count (``n``, ``a_1..a_n``,
    ``b_1..b_n``): the count's targets share one size."""
    row = rows[i]
    for node in reversed(block):
        if not isinstance(node, Line):
            continue
        for part in node.parts:
            if (isinstance(part, Count) and part.offset == 0 and part.targets and len(row) >= 3
                    and all(t.inline and not t.characters for t in part.targets) and part.value == len(row)):
                rep = Rep(inline=True, items=list(row))
                part.targets.append(rep)
                return [Line([rep])], i + 1
    return None


def _pending_unit(rows: list[list[str]], i: int, end: int,
                  pending: list[tuple[Line, int, int]]) -> tuple[Block, int] | None:
    """Lines counted by a number of an earlier header (``n q``, a list of ``n``, then ``q``
    queries): ``value`` records alike, or a list of ``value`` (3 or more) tokens."""
    for index in range(len(pending) - 1, -1, -1):
        line, j, value = pending[index]
        following = rows[i:i + value]
        rep: Rep | None = None
        after = i
        if len(following) == value and all(following) and len({len(r) for r in following}) == 1 and value >= 2:
            rep = Rep(inline=False, items=[[_plain_line(r, in_block=True)] for r in following])
            _consistent_inline_counts(rep)
            unit: Block = [rep]
            after = i + value
        elif value >= 3 and len(rows[i]) == value:
            rep = Rep(inline=True, items=list(rows[i]))
            unit = [Line([rep])]
            after = i + 1
        if rep is not None:
            line.parts[j] = Count([rep])
            del pending[index]
            return unit, after
    return None


def _parse_unit(rows: list[list[str]], i: int, end: int) -> tuple[Block, int]:
    """One header line and what its counts cover, or one plain line."""
    row = rows[i]
    numbers = [(j, value) for j, token in enumerate(row) if (value := _int(token)) is not None]
    # n lines alike follow (a list of records, a grid; maybe with its width in the header)
    for j, count in numbers:
        if count < 1 or i + count > end - 1:
            continue
        following = rows[i + 1 : i + 1 + count]
        if not all(following):
            continue
        widths = {len(r) for r in following}
        if len(widths) != 1 and not all(_self_counted(r) for r in following):
            continue
        if count == 1 and _token_count_matches(rows, i, end, numbers):
            break
        if count == 1 and len(following[0]) == len(row) >= 2:
            continue  # a 1 on a line like the next one is a cell of a table, not a count
        return _records(row, j, numbers, following), i + 1 + count
    if _self_counted(row):
        return [_plain_line(row)], i + 1
    # each count is the length of the next line, in order
    links, after = _next_line_links(rows, i, end, numbers)
    if links:
        parts: list = list(row)
        for j, rep in links:
            parts[j] = Count([rep])
        block: Block = [Line(parts)]
        for _, rep in links:
            block.append(Line([rep]))
        return block, after
    # n then the n - 1 lines alike that end the input (the edges of a tree)
    for j, count in numbers:
        following = rows[i + 1 : end]
        if count >= 3 and len(following) == count - 1 and all(following) and len({len(r) for r in following}) == 1:
            rep = Rep(inline=False, items=[[_plain_line(r, in_block=True)] for r in following])
            parts = list(row)
            parts[j] = Count([rep], offset=1)
            return [Line(parts), rep], end
    return [_plain_line(row)], i + 1


def _token_count_matches(rows: list[list[str]], i: int, end: int, numbers: list[tuple[int, int]]) -> bool:
    return bool(_next_line_links(rows, i, end, numbers)[0])


def _next_line_links(rows: list[list[str]], i: int, end: int,
                     numbers: list[tuple[int, int]]) -> tuple[list[tuple[int, Rep]], int]:
    links: list[tuple[int, Rep]] = []
    k = i + 1
    for j, count in numbers:
        if k >= end:
            break
        following = rows[k]
        if len(following) == count and (count >= 1 or not following):
            links.append((j, Rep(inline=True, items=list(following))))
            k += 1
        elif len(following) == 1 and len(following[0]) == count >= 2 and _int(following[0]) is None:
            links.append((j, Rep(inline=True, items=list(following[0]), joiner="")))
            k += 1
    return links, k


def _records(row: list[str], j: int, numbers: list[tuple[int, int]], following: list[list[str]]) -> Block:
    characters = (len(following[0]) == 1 and all(len(r) == 1 and _int(r[0]) is None for r in following)
                  and len({len(r[0]) for r in following}) == 1)
    width = len(following[0]) if len({len(r) for r in following}) == 1 else -1
    rep = Rep(inline=False)
    width_targets: list[Rep] = []
    width_column = None
    for k, value in numbers:
        if k == j:
            continue
        if (characters and value == len(following[0][0]) and value >= 2) or (not characters and value == width >= 2):
            width_column = k
            break
    for record in following:
        if width_column is not None and characters:
            chars = Rep(inline=True, items=list(record[0]), joiner="")
            width_targets.append(chars)
            rep.items.append([Line([chars])])
        elif width_column is not None:
            tokens = Rep(inline=True, items=list(record))
            width_targets.append(tokens)
            rep.items.append([Line([tokens])])
        else:
            rep.items.append([_plain_line(record, in_block=True)])
    if width_column is None:
        _consistent_inline_counts(rep)
    parts: list = list(row)
    parts[j] = Count([rep])
    if width_column is not None:
        parts[width_column] = Count(width_targets)
    return [Line(parts), rep]


def _self_counted(row: list[str]) -> bool:
    """``k a1 .. ak``: the first number counts the rest (k >= 2)."""
    first = _int(row[0]) if row else None
    return first is not None and first >= 2 and len(row) - 1 == first


def _plain_line(row: list[str], *, in_block: bool = False) -> Line:
    """A line; ``k a1 .. ak`` (its first number counts the rest, k >= 2) keeps that count."""
    if not in_block and _self_counted(row):
        rest = Rep(inline=True, items=list(row[1:]))
        return Line([Count([rest]), rest])
    return Line(list(row))


def _consistent_inline_counts(rep: Rep) -> None:
    """Records ``k a1 .. ak``: when every record's first number counts the rest (and one counts
    two or more), each keeps that count."""
    lines = [element[0] for element in rep.items]
    counted = []
    for line in lines:
        tokens = line.parts
        first = _int(tokens[0]) if tokens and isinstance(tokens[0], str) else None
        if first is None or len(tokens) - 1 != first or not all(isinstance(t, str) for t in tokens):
            return
        counted.append(first)
    if not counted or max(counted) < 2:
        return
    for line in lines:
        rest = Rep(inline=True, items=list(line.parts[1:]))
        line.parts = [Count([rest]), rest]
