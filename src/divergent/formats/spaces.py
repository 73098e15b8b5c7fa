"""Every input of a small input space, listed: what the exhaustive verdict stands on ("equivalent on
all N valid inputs").

A space is listed only where its edges are known for sure: a format whose every token has stated
(hard) bounds and a finite domain (integers in a stated range, bounds that name earlier tokens as
in ``b:int[a+1,10]``, choices, words of a stated length over a stated alphabet, lists whose count
is read before), the lists a statement calls permutations (every permutation of 1..n), and the
0/1 cells of a fixed layout in which every example has the same number k of ones (a one-hot grid:
every way to place k ones). A soft bound (seen only in examples), an open range, a float or a
space past ``limit`` lists nothing: no verdict can then rest on having seen it all.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterator, Sequence

from divergent.formats.model import InputFormat, Kind, Line, Node, Token

__all__ = ["LIMIT", "hot_cells", "hot_count", "listed"]

#: the most inputs a space may have to be listed (each runs on every program)
LIMIT = 20_000


class _TooLarge(Exception):
    pass


def _domain(token: Token, env: dict[str, int], permutation: bool, count: int | None) -> list[str] | None:
    """The values one token (a list item: ``count`` set) may take, or None when not finite and stated."""
    kind = token.type
    if kind.choices:
        return list(kind.choices)
    low, high = kind.hard_bounds(env)
    if kind.kind is Kind.INT:
        if low is None or high is None:
            return None
        if high - low + 1 > LIMIT:
            raise _TooLarge
        return [str(v) for v in range(low, high + 1)]
    if kind.kind is Kind.WORD and kind.alphabet and low is not None and high is not None:
        alphabet = sorted(set(kind.alphabet))
        if sum(len(alphabet) ** n for n in range(low, high + 1)) > LIMIT:
            raise _TooLarge
        return ["".join(chars) for n in range(low, high + 1) for chars in itertools.product(alphabet, repeat=n)]
    return None


def _lines(body: tuple[Node, ...], env: dict[str, int], permutations: frozenset[str]) -> Iterator[tuple[list[str], dict[str, int]]]:
    """Every way to write ``body`` (its lines, and the names it set), depth first."""
    if not body:
        yield [], env
        return
    node, rest = body[0], body[1:]
    if isinstance(node, Line):
        for line, after in _line(node.tokens, env, permutations):
            for more, final in _lines(rest, after, permutations):
                yield [line, *more], final
        return
    times = node.count.value(env)
    if times is None or node.count.is_any or times < 0:
        raise _TooLarge  # (a repeat to the end of the input has no listed end)
    unrolled: tuple[Node, ...] = tuple(node.body) * times
    yield from _lines(unrolled + rest, env, permutations)


def _line(tokens: tuple[Token, ...], env: dict[str, int], permutations: frozenset[str]) -> Iterator[tuple[str, dict[str, int]]]:
    if not tokens:
        yield "", env
        return
    token, rest = tokens[0], tokens[1:]
    if token.count is not None:
        count = token.count.value(env)
        if count is None or token.count.is_any or count < 0:
            raise _TooLarge
        if token.name in permutations:
            if math.factorial(count) > LIMIT:
                raise _TooLarge
            choices: Iterator[tuple[str, ...]] = itertools.permutations([str(v) for v in range(1, count + 1)])
        else:
            domain = _domain(token, env, False, count)
            if domain is None:
                raise _TooLarge
            if len(domain) ** count > LIMIT:
                raise _TooLarge
            choices = itertools.product(domain, repeat=count)
        for values in choices:
            for tail, after in _line(rest, env, permutations):
                yield " ".join(values) + (" " + tail if tail else ""), after
        return
    domain = _domain(token, env, False, None)
    if domain is None:
        raise _TooLarge
    for value in domain:
        after = dict(env)
        if token.name and token.type.kind is Kind.INT and not token.type.choices:
            after[token.name] = int(value)
        for tail, final in _line(rest, after, permutations):
            yield value + (" " + tail if tail else ""), final


def listed(fmt: InputFormat, *, permutations: Sequence[str] = (), limit: int = LIMIT) -> list[str] | None:
    """Every input ``fmt`` describes (its lists named in ``permutations`` only as permutations of
    1..n), when it is finite, stated and at most ``limit``; else None."""
    texts: list[str] = []
    try:
        for lines, _ in _lines(fmt.body, {}, frozenset(permutations)):
            texts.append("\n".join(lines) + "\n")
            if len(texts) > limit:
                return None
    except (_TooLarge, RecursionError):
        return None
    return texts or None


def _hot(examples: Sequence[str]) -> tuple[tuple[tuple[int, ...], ...], int] | None:
    """The one layout of 0/1 cells every example has and the number of ones each has (None: not so)."""
    layouts = set()
    ones = set()
    for text in examples:
        rows = [line.split() for line in text.strip("\n").split("\n")]
        if not rows or not all(rows) or not all(set(token) <= {"0", "1"} for row in rows for token in row):
            return None
        layouts.add(tuple(tuple(len(token) for token in row) for row in rows))
        ones.add(sum(token.count("1") for row in rows for token in row))
    if len(layouts) != 1 or len(ones) != 1:
        return None
    layout = layouts.pop()
    return (layout, ones.pop()) if sum(sum(row) for row in layout) >= 4 else None


def hot_count(examples: Sequence[str]) -> int | None:
    """How many ones every example has among its 0/1 cells, when they all have one layout of them."""
    hot = _hot(examples)
    return hot[1] if hot is not None else None


def hot_cells(examples: Sequence[str], *, limit: int = LIMIT) -> tuple[str, list[str]] | None:
    """Every input of the examples' one fixed layout of 0/1 cells (tokens, or the characters of
    words of 0s and 1s) with as many ones as each example has, when they all have the same layout
    and the same number k of ones (a one-hot grid: k = 1): what the space is and its inputs."""
    hot = _hot(examples)
    if hot is None:
        return None
    layout, k = hot
    cells = sum(sum(row) for row in layout)
    if math.comb(cells, k) > limit:
        return None
    texts = []
    for chosen in itertools.combinations(range(cells), k):
        bits = ["0"] * cells
        for position in chosen:
            bits[position] = "1"
        stream = iter(bits)
        texts.append("".join(" ".join("".join(next(stream) for _ in range(width)) for width in row) + "\n"
                             for row in layout))
    shape = "x".join(str(len(row)) for row in layout[:1]) if len({len(r) for r in layout}) == 1 else "fixed"
    what = (f"all {len(texts):,} layouts of {cells} 0/1 cells ({len(layout)} lines{', ' + shape + ' per line' if shape != 'fixed' else ''}) "
            f"with {k} one(s), as in every example")
    return what, texts
