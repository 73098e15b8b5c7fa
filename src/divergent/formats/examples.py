"""An input format learnt from examples: their shape (lines, the counts that tie them together, test
cases: :func:`divergent.formats.text_structure.parse` on each example), and each token's type and
range from every value it takes across the examples.

What the examples show is a guess, and the format says so: a bound seen only in examples is soft
(``~``), so engines go past it now and then (a sample's largest value is rarely the problem's). Two
things are kept as seen, because crossing them only makes inputs the problem excludes: a token
that is 0 or 1 in every one of three or more places stays 0 or 1 (cells of a grid, flags), and a
string of digits written with a leading zero, or several of one width made of 0s and 1s, stays a
word of those characters (a seat row ``101``, a bit mask ``0110``).
"""

from __future__ import annotations

import string
from collections import defaultdict
from collections.abc import Callable, Iterator, Sequence

from divergent.formats.instances import read
from divergent.formats.model import ANY, Expr, InputFormat, Kind, Line, Node, Repeat, Token, TokenType
from divergent.formats.text_structure import Block, Count, Rep, parse
from divergent.formats.text_structure import Line as TreeLine
from divergent.formats.values import token_kind

__all__ = ["format_from_examples", "observations", "typed"]

#: names given to counts, in order of appearance (a test count is ``t``)
_COUNT_NAMES = ("n", "m", "k", "q", "p", "r", "s", "c", "d")
#: a token 0/1 in at least this many places stays 0/1
_BINARY_EVIDENCE = 3


def format_from_examples(texts: Sequence[str]) -> InputFormat | None:
    """The format most examples fit (the shape of one of them, typed by all), or None without
    examples or when none has a shape (every line different)."""
    texts = [text for text in texts if text.strip()]
    if not texts:
        return None
    candidates: list[InputFormat] = []
    seen: set[str] = set()
    for text in texts[:8]:
        for candidate in _skeletons(parse(text)):
            if candidate.text() not in seen:
                seen.add(candidate.text())
                candidates.append(candidate)
    expressed = _expression_candidate(texts)
    if expressed is not None and expressed.text() not in seen:
        candidates.append(expressed)
    best: tuple[int, int, int] | None = None
    chosen: InputFormat | None = None
    chosen_fits: list[Block] = []
    for order, candidate in enumerate(candidates):
        trees = [tree for text in texts if (tree := read(candidate, text)) is not None]
        score = (len(trees), len(candidate.count_variables()), -order)
        if trees and (best is None or score > best):
            best, chosen, chosen_fits = score, candidate, trees
    if chosen is None:
        return None
    fitted = typed(chosen, observations(chosen_fits))
    notes = [f"learnt from {len(chosen_fits)} of {len(texts)} example(s)"]
    return InputFormat(fitted.body, origin="examples", notes=tuple(notes))


# -- counts that are expressions ---------------------------------------------------------------

#: the expressions a list's length is tried as, of a number read before it: a*v + b
_SCALES = (1, 2, 3, 4)
_OFFSETS = (0, -1, 1, -2, 2, 3, -3)


def _expression_candidate(texts: Sequence[str]) -> InputFormat | None:
    """A format where each line after the first lists integers as many as an expression of a
    number read before says (``n`` then ``2n-1`` integers; ``n m`` then ``n*m``... of one number:
    ``a*v + b``), fitted across every example: the examples have the same number of lines, the
    first holds the numbers, and each later line's length fits one expression in all of them (one
    example alone fits many: the smallest offset with scale 1 first). None when no line needs it."""
    rows = [[line.split() for line in text.strip("\n").split("\n")] for text in texts]
    if len({len(r) for r in rows}) != 1 or len(rows[0]) < 2:
        return None
    if not all(token_kind(token) is Kind.INT for r in rows for line in r for token in line):
        return None
    first = [[int(token) for token in r[0]] for r in rows]
    if len({len(values) for values in first}) != 1:
        return None
    names = [_COUNT_NAMES[i % len(_COUNT_NAMES)] for i in range(len(first[0]))]
    lines: list[Node] = [Line(tuple(Token(TokenType(Kind.INT), name=name) for name in names))]
    used = False
    for j in range(1, len(rows[0])):
        lengths = [len(r[j]) for r in rows]
        expr = next((Expr(b, names[p], a) for a in _SCALES for b in _OFFSETS for p in range(len(names))
                     if all(length == a * values[p] + b for length, values in zip(lengths, first, strict=True))
                     and any(values[p] > 1 for values in first)), None)
        if expr is not None and (len(set(lengths)) > 1 or expr.scale != 1 or expr.constant != 0 or len(texts) == 1):
            lines.append(Line((Token(TokenType(Kind.INT), count=expr),)))
            used = used or expr.scale != 1 or expr.constant != 0
        elif len(set(lengths)) == 1:
            lines.append(Line(tuple(Token(TokenType(Kind.INT)) for _ in range(lengths[0]))))
        else:
            lines.append(Line((Token(TokenType(Kind.INT), count=ANY),)))
    return InputFormat(tuple(lines), origin="examples") if used else None


# -- the shape of one example -----------------------------------------------------------------


class _Namer:
    def __init__(self) -> None:
        self.names: dict[int, str] = {}
        self.used: set[str] = set()

    def name(self, count: Count, *, test_count: bool = False) -> str:
        if id(count) not in self.names:
            choices = ("t", *_COUNT_NAMES) if test_count else _COUNT_NAMES
            name = next((c for c in choices if c not in self.used), None) or f"n{len(self.used)}"
            self.used.add(name)
            self.names[id(count)] = name
        return self.names[id(count)]


def _skeletons(tree: Block) -> Iterator[InputFormat]:
    """Formats of one example's tree: untyped tokens (words), counts as named integers; a repeat
    takes the shape of its first element, or of its largest."""
    for pick in ("first", "largest"):
        namer = _Namer()
        owners = _count_owners(tree)
        body = _body(tree, namer, owners, pick)
        yield InputFormat(body, origin="examples")


def _count_owners(block: Block) -> dict[int, Count]:
    """Each Rep's count (by the Rep's id)."""
    owners: dict[int, Count] = {}

    def walk(nodes: Block) -> None:
        for node in nodes:
            if isinstance(node, TreeLine):
                for part in node.parts:
                    if isinstance(part, Count):
                        for target in part.targets:
                            owners[id(target)] = part
            else:
                for element in node.items:
                    walk(element)

    walk(block)
    return owners


def _sized_by(count: Count | None, namer: _Namer) -> Expr:
    """What a repeated part's size is: its count's variable (less the count's offset), or any."""
    if count is None:
        return ANY
    return Expr(variable=namer.name(count), constant=-count.offset)


def _body(block: Block, namer: _Namer, owners: dict[int, Count], pick: str) -> tuple[Node, ...]:
    nodes: list[Node] = []
    for node in block:  # a count of repeats holding structure is a test count: t
        if isinstance(node, Rep) and (count := owners.get(id(node))) is not None and _holds_structure(node):
            namer.name(count, test_count=True)
    position = 0
    while position < len(block):
        node = block[position]
        position += 1
        if isinstance(node, TreeLine):
            run = _table(block, position - 1)
            if run > 1:  # rows alike with no count: a table of a fixed size
                nodes.append(_table_repeat(node, run))
                position += run - 1
                continue
            nodes.append(_line(node, namer, owners))
            continue
        expr = _sized_by(owners.get(id(node)), namer)
        if not node.items:
            continue  # nothing to learn the shape from
        element = node.items[0] if pick == "first" else max(node.items, key=_weight)
        nodes.append(Repeat(expr, _body(element, namer, owners, pick)))
    return tuple(nodes)


def _plain_shape(node: object) -> tuple[int, Kind] | None:
    """A line of plain tokens of one kind: (its width, the kind); else None."""
    if not isinstance(node, TreeLine) or not node.parts or not all(isinstance(p, str) for p in node.parts):
        return None
    kinds = {token_kind(p) for p in node.parts}
    if len(kinds) != 1:
        return None
    kind = kinds.pop()
    if len(node.parts) == 1 and (kind is not Kind.WORD or len(node.parts[0]) < 2):
        return None  # a column of single numbers is no table
    return len(node.parts), kind


def _table(block: Block, start: int) -> int:
    """How many rows alike (same width, same kind, words of one length) start at ``start``."""
    shape = _plain_shape(block[start])
    if shape is None:
        return 0
    length = len(block[start].parts[0]) if shape == (1, Kind.WORD) else None
    end = start + 1
    while end < len(block) and _plain_shape(block[end]) == shape and (
            length is None or len(block[end].parts[0]) == length):
        end += 1
    return end - start


def _table_repeat(row: TreeLine, times: int) -> Repeat:
    width = len(row.parts)
    if width == 1:
        length = Expr(len(row.parts[0]))
        return Repeat(Expr(times), (Line((Token(TokenType(Kind.WORD, low=length, high=length)),)),))
    return Repeat(Expr(times), (Line((Token(TokenType(Kind.WORD), count=Expr(width)),)),))


def _holds_structure(rep: Rep) -> bool:
    """Whether a repeat's elements have counts or repeats of their own (test cases, not rows)."""
    return any(not isinstance(node, TreeLine) or any(isinstance(p, Count) for p in node.parts)
               for element in rep.items[:1] for node in element)


def _weight(element: Block) -> int:
    return sum(1 if isinstance(node, TreeLine) else 10 for node in element)


def _line(line: TreeLine, namer: _Namer, owners: dict[int, Count]) -> Line:
    tokens: list[Token] = []
    for part in line.parts:
        if isinstance(part, str):
            tokens.append(Token(TokenType(Kind.WORD)))
        elif isinstance(part, Count):
            tokens.append(Token(TokenType(Kind.INT), name=namer.name(part)))
        else:
            count = owners.get(id(part))
            expr = _sized_by(count, namer)
            if part.characters:
                fixed = TokenType(Kind.WORD, low=expr, high=expr) if count is not None else TokenType(Kind.WORD)
                tokens.append(Token(fixed))
            else:
                tokens.append(Token(TokenType(Kind.WORD), count=expr))
    return Line(tuple(tokens))


# -- types from what the tokens are ------------------------------------------------------------


def observations(trees: Sequence[Block]) -> dict[str, list[str]]:
    """Every token each slot holds in the trees (by the slot's key)."""
    seen: dict[str, list[str]] = defaultdict(list)

    def walk(nodes: Block) -> None:
        for node in nodes:
            if isinstance(node, TreeLine):
                if node.specs is None:
                    continue
                for part, spec in zip(node.parts, node.specs, strict=True):
                    if isinstance(part, str):
                        seen[spec.key].append(part)
                    elif isinstance(part, Count):
                        seen[spec.key].append(str(part.value))
                    elif part.characters:
                        seen[spec.key].append("".join(part.items))
                    else:
                        seen[spec.key].extend(part.items)
            else:
                for element in node.items:
                    walk(element)

    for tree in trees:
        walk(tree)
    return seen


def typed(fmt: InputFormat, seen: dict[str, list[str]]) -> InputFormat:
    """``fmt`` with each token's type learnt from the values its slot took (``seen``, by key)."""
    return retyped(fmt, seen, _type_of)


def retyped(fmt: InputFormat, seen: dict[str, list[str]], new_type: Callable[[Token, list[str]], TokenType]) -> InputFormat:
    """``fmt`` with each token's type ``new_type(token, the values its slot took)`` (``seen``, by
    the slot's key: the line's path and the token's position)."""

    def body_of(body: tuple[Node, ...], path: str) -> tuple[Node, ...]:
        nodes: list[Node] = []
        for index, node in enumerate(body):
            where = f"{path}{index}"
            if isinstance(node, Repeat):
                nodes.append(Repeat(node.count, body_of(node.body, where + ".")))
                continue
            tokens = [Token(new_type(token, seen.get(f"{where}.{position}", [])), name=token.name, count=token.count)
                      for position, token in enumerate(node.tokens)]
            nodes.append(Line(tuple(tokens)))
        return tuple(nodes)

    return InputFormat(body_of(fmt.body, ""), origin=fmt.origin, notes=fmt.notes)


def _type_of(token: Token, values: list[str]) -> TokenType:
    current = token.type
    if not values:
        return current
    if current.kind is Kind.INT and token.name is not None and token.count is None:
        numbers = [int(v) for v in values]
        return TokenType(Kind.INT, low=Expr(1 if min(numbers) >= 1 else 0), high=Expr(max(numbers)),
                         soft_low=True, soft_high=True)
    fixed = current.fixed_length()
    if fixed is not None and fixed.variable is not None:  # a word whose length is a count: its characters
        return TokenType(Kind.WORD, low=fixed, high=fixed, alphabet=_alphabet(values))
    if fixed is not None:  # the rows of a table of characters
        kind = value_type(values)
        return TokenType(Kind.WORD, low=fixed, high=fixed, alphabet=kind.alphabet or _alphabet(values))
    return value_type(values)


def value_type(values: Sequence[str]) -> TokenType:
    """The type of a slot that took these values."""
    kinds = {token_kind(v) for v in values}
    if kinds == {Kind.INT}:
        widths = {len(v) for v in values}
        bits = all(set(v) <= {"0", "1"} for v in values)
        leading_zero = any(len(v) > 1 and v[0] == "0" for v in values)
        if leading_zero or (bits and len(widths) == 1 and min(widths) >= 2 and len(set(values)) >= 2):
            alphabet = "01" if bits else string.digits
            if len(widths) == 1:
                return TokenType(Kind.WORD, low=Expr(min(widths)), high=Expr(min(widths)), alphabet=alphabet)
            return TokenType(Kind.WORD, low=Expr(min(widths)), high=Expr(max(widths)), soft_low=True,
                             soft_high=True, alphabet=alphabet)
        numbers = [int(v) for v in values]
        if len(numbers) >= _BINARY_EVIDENCE and set(numbers) <= {0, 1}:
            return TokenType(Kind.INT, low=Expr(0), high=Expr(1))
        low = 1 if min(numbers) >= 1 else 0 if min(numbers) >= 0 else min(numbers)
        return TokenType(Kind.INT, low=Expr(low), high=Expr(max(max(numbers), low)), soft_low=True, soft_high=True)
    if kinds <= {Kind.INT, Kind.FLOAT}:
        decimals = max((len(v.split(".", 1)[1]) for v in values if "." in v and "e" not in v.lower()), default=None)
        numbers = [float(v) for v in values]
        low = 0 if min(numbers) >= 0 else int(min(numbers)) - 1
        return TokenType(Kind.FLOAT, low=Expr(low), high=Expr(int(max(numbers)) + 1), soft_low=True, soft_high=True,
                         decimals=decimals)
    lengths = [len(v) for v in values]
    return TokenType(Kind.WORD, low=Expr(min(lengths)), high=Expr(max(lengths)), soft_low=True, soft_high=True,
                     alphabet=_alphabet(values))


def _alphabet(values: Sequence[str]) -> str:
    """The classes of characters the values use (lowercase letters, capitals, digits) and any
    other character as it is."""
    chars = set("".join(values))
    alphabet: set[str] = set()
    for char in chars:
        if char in string.ascii_lowercase:
            alphabet.update(string.ascii_lowercase)
        elif char in string.ascii_uppercase:
            alphabet.update(string.ascii_uppercase)
        elif char in string.digits and not chars <= {"0", "1"}:
            alphabet.update(string.digits)
        else:
            alphabet.add(char)
    return "".join(sorted(alphabet))
