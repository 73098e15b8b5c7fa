"""Inputs shaped by an input format, as the trees the engines of texts work on
(:mod:`divergent.formats.text_structure`): a text read against a format (:func:`read`), a new input
drawn from one (:func:`generate`), and what in a text breaks a format (:func:`violation`).

In the tree, a token that a format uses as a count (``n`` before ``n`` numbers, ``t`` before ``t``
test cases, ``m`` before rows of ``m`` cells, ``n`` before a word of ``n`` letters) is a ``Count``
of what it counts, so an engine that resizes a list, a repeat or a word keeps it true; every part
of a line carries the :class:`~divergent.formats.values.SlotSpec` of its slot (``Line.specs``), so
engines draw values within its bounds, alphabet and choices.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator

from divergent.formats.model import Expr, InputFormat, Kind, Line, Node, Repeat, Token, TokenType
from divergent.formats.text_structure import Block, Count, Rep
from divergent.formats.text_structure import Line as TreeLine
from divergent.formats.values import SlotSpec, draw_items, draw_token, draw_value, draw_word, fits, token_kind

__all__ = ["Misfit", "generate", "named_values", "read", "slot_names", "slot_spec", "unlinked_counts", "violation"]


class Misfit(Exception):
    """A text that does not have the format's shape (or, checked strictly, breaks a stated bound)."""


def slot_spec(token_type: TokenType, env: dict[str, int], key: str) -> SlotSpec:
    low, high = token_type.bounds(env)
    return SlotSpec(kind=token_type.kind, low=low, high=high, hard_low=not token_type.soft_low and low is not None,
                    hard_high=not token_type.soft_high and high is not None, alphabet=token_type.alphabet,
                    choices=token_type.choices, decimals=token_type.decimals, key=key)


# -- sources of tokens: a text's rows, or a random draw -------------------------------------------


class _Rows:
    """Tokens read from a text, line by line (``lines=False``: as one stream of tokens)."""

    def __init__(self, text: str, *, strict: bool, lines: bool = True) -> None:
        rows = [line.split() for line in text.splitlines()]
        while rows and not rows[-1]:
            rows.pop()
        if not lines:
            rows = [[token for row in rows for token in row]] if rows else []
        self.rows = rows
        self.strict = strict
        self.lines = lines
        self.at = 0
        self.row: list[str] = []
        self.i = 0

    def start_line(self) -> None:
        if not self.lines:
            if self.at == 0:
                self.row = self.rows[0] if self.rows else []
                self.at = 1
            return
        if self.at >= len(self.rows):
            raise Misfit(f"line {self.at + 1}: missing")
        self.row = self.rows[self.at]
        self.at += 1
        self.i = 0

    def end_line(self) -> None:
        if self.lines and self.i < len(self.row):
            raise Misfit(f"line {self.at}: {len(self.row) - self.i} token(s) more than the format says")

    def _next(self, spec: SlotSpec) -> str:
        if self.i >= len(self.row):
            raise Misfit(f"line {self.at}: fewer tokens than the format says")
        token = self.row[self.i]
        self.i += 1
        if spec.kind is Kind.INT and not spec.choices and token_kind(token) is not Kind.INT:
            raise Misfit(f"line {self.at}: {token[:20]!r} is not an integer")
        if spec.kind is Kind.FLOAT and token_kind(token) is Kind.WORD:
            raise Misfit(f"line {self.at}: {token[:20]!r} is not a number")
        if self.strict:
            problem = fits(spec, token)
            if problem:
                raise Misfit(f"line {self.at}: {problem}")
        return token

    def token(self, spec: SlotSpec) -> str:
        return self._next(spec)

    def count(self, spec: SlotSpec, name: str) -> int:
        token = self._next(spec)
        value = int(token)
        if value < 0:
            raise Misfit(f"line {self.at}: the count {name} = {value} is negative")
        return value

    def items(self, spec: SlotSpec, count: int) -> list[str]:
        return [self._next(spec) for _ in range(count)]

    def rest(self, spec: SlotSpec) -> list[str]:
        return [self._next(spec) for _ in range(len(self.row) - self.i)]

    def word(self, spec: SlotSpec, length: int) -> str:
        token = self._next(spec)
        if len(token) != length:
            raise Misfit(f"line {self.at}: {token[:20]!r} has {len(token)} characters, not {length}")
        return token

    def more(self) -> bool:
        """Lines are left (for a repeat up to the end of the input)."""
        return self.at < len(self.rows) if self.lines else self.i < len(self.row)

    def repeats(self) -> int | None:
        return None

    def finish(self) -> None:
        if self.lines and self.at < len(self.rows):
            raise Misfit(f"line {self.at + 1}: more lines than the format says")
        if not self.lines and self.i < len(self.row):
            raise Misfit(f"{len(self.row) - self.i} token(s) more than the format says")


class _Draw:
    """Tokens drawn at random: one count (the focus) grows up to ``cap``, the others stay small."""

    def __init__(self, rng: random.Random, cap: int, focus: str | None, small: int,
                 steer: Callable[[SlotSpec, int], int] | None = None) -> None:
        self.rng = rng
        self.cap = max(1, cap)
        self.focus = focus
        self.small = small
        self.steer = steer
        self.lines = True
        self.strict = False

    def start_line(self) -> None:
        pass

    def end_line(self) -> None:
        pass

    def token(self, spec: SlotSpec) -> str:
        return draw_token(spec, self.rng)

    def count(self, spec: SlotSpec, name: str) -> int:
        cap = self.cap if name == self.focus or self.focus is None else self.small
        value = draw_value(spec, self.rng, cap=cap)
        if self.steer is not None:
            value = spec.clamp(self.steer(spec, value))
        return max(0, value)

    def items(self, spec: SlotSpec, count: int) -> list[str]:
        return draw_items(spec, count, self.rng)

    def rest(self, spec: SlotSpec) -> list[str]:
        return draw_items(spec, self.rng.choice((1, 2, 3, 5, 17, 33)), self.rng)

    def word(self, spec: SlotSpec, length: int) -> str:
        return draw_word(spec, self.rng, length=length)

    def more(self) -> bool:
        return False

    def repeats(self) -> int | None:
        return self.rng.choice((1, 2, 3, 5, 17))

    def finish(self) -> None:
        pass


Source = _Rows | _Draw


# -- the walk ----------------------------------------------------------------------------------


class _Builder:
    def __init__(self, fmt: InputFormat, source: Source) -> None:
        self.source = source
        self.counts = fmt.count_variables()
        #: the values read under each name: a scalar's once per line it is on, a list's as one entry
        self.named: dict[str, list[list[str]]] = {}

    def block(self, body: tuple[Node, ...], env: dict[str, int], links: dict[str, Count], path: str) -> Block:
        block: Block = []
        made: list[tuple[TreeLine, int, str]] = []  # counts made in this scope: (line, part, name)
        for index, node in enumerate(body):
            where = f"{path}{index}"
            if isinstance(node, Line):
                block.append(self.line(node, env, links, where, made))
            else:
                block.append(self.repeat(node, env, links, where))
        for line, part, name in made:
            count = line.parts[part]
            if isinstance(count, Count) and not count.targets:  # counts nothing here: a plain number
                line.parts[part] = str(env[name])
        return block

    def repeat(self, node: Repeat, env: dict[str, int], links: dict[str, Count], where: str) -> Rep:
        rep = Rep(inline=False)
        if node.count.is_any:
            drawn = self.source.repeats()
            if drawn is None:
                while self.source.more():
                    rep.items.append(self.block(node.body, dict(env), dict(links), where + "."))
                return rep
            times = drawn
        else:
            value = node.count.value(env)
            if value is None:
                raise Misfit(f"the repeat's count {node.count} is not known here")
            times = value
        if times < 0:
            raise Misfit(f"a repeat {times} times")
        for _ in range(times):
            rep.items.append(self.block(node.body, dict(env), dict(links), where + "."))
        rep.fixed = not _link(links, node.count, rep)  # a number of times no count says: it stays
        return rep

    def line(self, line: Line, env: dict[str, int], links: dict[str, Count], where: str,
             made: list[tuple[TreeLine, int, str]]) -> TreeLine:
        source = self.source
        source.start_line()
        parts: list = []
        specs: list[SlotSpec] = []
        tree_line = TreeLine(parts)
        for index, token in enumerate(line.tokens):
            spec = slot_spec(token.type, env, f"{where}.{index}")
            specs.append(spec)
            if token.count is not None:
                parts.append(self.listed(token, spec, env, links))
                continue
            length = token.type.fixed_length()
            if token.type.kind is Kind.WORD and length is not None and _linkable(length, links):
                size = length.value(env)
                assert size is not None
                rep = Rep(inline=True, items=list(source.word(spec, size)), joiner="")
                _link(links, length, rep)
                parts.append(rep)
                continue
            if token.name is not None and token.name in self.counts and token.type.kind is Kind.INT:
                value = source.count(spec, token.name)
                self.named.setdefault(token.name, []).append([str(value)])
                env[token.name] = value
                links[token.name] = Count(targets=[])
                made.append((tree_line, len(parts), token.name))
                parts.append(links[token.name])
                continue
            text = source.token(spec)
            if token.name is not None:
                self.named.setdefault(token.name, []).append([text])
            if token.name is not None and token_kind(text) is Kind.INT:
                env[token.name] = int(text)
            parts.append(text)
        source.end_line()
        tree_line.specs = tuple(specs)
        return tree_line

    def listed(self, token: Token, spec: SlotSpec, env: dict[str, int], links: dict[str, Count]) -> Rep:
        assert token.count is not None
        if token.count.is_any:
            items = self.source.rest(spec)
        else:
            count = token.count.value(env)
            if count is None:
                raise Misfit(f"the list's count {token.count} is not known here")
            if count < 0:
                raise Misfit(f"a list of {count} items")
            items = self.source.items(spec, count)
        if token.name:
            self.named.setdefault(token.name, []).append(list(items))
        rep = Rep(inline=True, items=items)
        rep.fixed = not token.count.is_any and not _link(links, token.count, rep)
        return rep


def _linkable(expr: Expr, links: dict[str, Count]) -> bool:
    return expr.variable in links and expr.scale == 1


def _link(links: dict[str, Count], expr: Expr, rep: Rep) -> bool:
    """Tie ``rep`` to the count it is sized by (``n``, ``n - 1``), when that is one count read here
    with the same offset as its other targets; whether it is tied."""
    if not _linkable(expr, links):
        return False
    count = links[expr.variable]  # type: ignore[index]
    offset = -expr.constant
    if count.targets and count.offset != offset:
        return False
    count.offset = offset
    count.targets.append(rep)
    return True


# -- the entry points ----------------------------------------------------------------------------


def read(fmt: InputFormat, text: str) -> Block | None:
    """The tree of ``text`` read by ``fmt`` (line by line, else as a stream of tokens, laid out
    again by the format), or None when it does not have the format's shape."""
    for lines in (True, False):
        try:
            return _read(fmt, text, strict=False, lines=lines)
        except Misfit:
            continue
    return None


def violation(fmt: InputFormat, text: str) -> str | None:
    """What in ``text`` breaks ``fmt`` (its shape, a stated bound, an alphabet, a choice), or None."""
    try:
        _read(fmt, text, strict=True, lines=True)
    except Misfit as error:
        return str(error)
    return None


def _read(fmt: InputFormat, text: str, *, strict: bool, lines: bool) -> Block:
    return _read_names(fmt, text, strict=strict, lines=lines)[0]


def _read_names(fmt: InputFormat, text: str, *, strict: bool, lines: bool) -> tuple[Block, dict[str, list[list[str]]]]:
    source = _Rows(text, strict=strict, lines=lines)
    builder = _Builder(fmt, source)
    block = builder.block(fmt.body, {}, {}, "")
    source.finish()
    return block, builder.named


def named_values(fmt: InputFormat, text: str, *, strict: bool) -> tuple[Block, dict[str, list[list[str]]]] | str:
    """The tree of ``text`` read line by line by ``fmt`` and the values read under each name
    (every occurrence of a scalar, each list whole), or what in it breaks the format (``strict``:
    its stated bounds too)."""
    try:
        return _read_names(fmt, text, strict=strict, lines=True)
    except Misfit as error:
        return str(error)


def generate(fmt: InputFormat, rng: random.Random, *, cap: int = 64,
             steer: Callable[[SlotSpec, int], int] | None = None) -> Block:
    """A new input drawn from ``fmt``: one of its counts (chosen at random) up to ``cap``, the
    others small; values at and near their bounds, small, anywhere, with ties. ``steer`` may move
    each count drawn (to where a validator is known to take it)."""
    counts = sorted(fmt.count_variables())
    focus = rng.choice(counts) if counts else None
    small = rng.choice((1, 2, 3, 4, 5))
    builder = _Builder(fmt, _Draw(rng, cap, focus, small, steer))
    for _ in range(20):
        try:
            return builder.block(fmt.body, {}, {}, "")
        except Misfit:
            continue  # a count drawn below a bound that needs it (a list of n - 1 with n = 0)
    raise Misfit("no input could be drawn within the format's bounds")


def slots(block: Block) -> Iterator[tuple[TreeLine, int]]:
    """Every (line, part index) of the tree that has a spec."""
    for node in block:
        if isinstance(node, TreeLine):
            if node.specs is not None:
                for index in range(len(node.parts)):
                    yield node, index
        else:
            for element in node.items:
                yield from slots(element)


def slot_names(body: tuple[Node, ...], path: str = "") -> dict[str, Token]:
    """The token of each slot key of a format (``line.token``, ``repeat.line.token``: the keys the
    trees' specs carry)."""
    found: dict[str, Token] = {}
    for index, node in enumerate(body):
        where = f"{path}{index}"
        if isinstance(node, Line):
            for position, token in enumerate(node.tokens):
                found[f"{where}.{position}"] = token
        else:
            found.update(slot_names(node.body, where + "."))
    return found


def unlinked_counts(fmt: InputFormat) -> set[str]:
    """The keys of the counts a tree cannot keep true by itself (a list of ``2*n-1`` or
    ``n*m``: changing the number alone breaks the input): the validator's verdict on such a
    number says nothing of its range."""
    counts = {variable for token in fmt.tokens() for expr in (token.count,)
              if expr is not None and expr.variable not in (None, "*") and expr.scale != 1
              for variable in (expr.variable,)}
    counts |= {node.count.variable for node in _repeats(fmt.body) if node.count.scale != 1 and node.count.variable}
    return {key for key, token in slot_names(fmt.body).items() if token.name in counts}


def _repeats(body: tuple[Node, ...]) -> Iterator[Repeat]:
    for node in body:
        if isinstance(node, Repeat):
            yield node
            yield from _repeats(node.body)


def draw_for(spec: SlotSpec, rng: random.Random) -> str:
    """A fresh token for a slot (mutation's "a value the format allows")."""
    return draw_token(spec, rng)
