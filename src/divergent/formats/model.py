"""What one input of a whole program is made of: :class:`InputFormat`.

An input is lines of tokens. A :class:`Line` holds :class:`Token` s: one token, or a list of them
(``count``: how many, often a variable read before: ``n`` then ``n`` numbers). A :class:`Repeat`
repeats lines (the records after a count, the test cases after ``t``). A token has a
:class:`TokenType`: an integer, a float or a word, with a range (of the value; of a word's length)
whose ends are numbers or variables of the input (``1 <= a_i <= n``), a word's alphabet, or a few
choices (``L`` or ``R``). A bound is *stated* (the user's format, a statement's constraints) or
*soft* (``~``: only seen in the examples or guessed from the programs): engines stay within stated
bounds and explore past soft ones.

The text form (``--input-format FILE``, and how a report shows an inferred format) is in
:mod:`divergent.formats.syntax`; one line of it per line of the input::

    t:int[1,10^4]
    repeat t:
        n:int[1,2*10^5] k:int[0,n]
        a:int[-10^9,10^9]*n
        s:word[n]{01}
"""

from __future__ import annotations

import enum
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

__all__ = ["ANY", "Expr", "InputFormat", "Kind", "Line", "Node", "Repeat", "Token", "TokenType", "number_text"]


class Kind(enum.StrEnum):
    INT = "int"
    FLOAT = "float"
    WORD = "word"


def number_text(value: int) -> str:
    """A number as a statement writes it: ``200000`` as ``2*10^5``, ``10**9`` as ``10^9``."""
    sign = "-" if value < 0 else ""
    magnitude = abs(value)
    if magnitude >= 10_000:
        digits = str(magnitude)
        head = digits.rstrip("0")
        zeros = len(digits) - len(head)
        if zeros >= 4 and len(head) == 1:
            return f"{sign}{'' if head == '1' else head + '*'}10^{zeros}"
        if magnitude - 10 ** (len(digits) - 1) in (7, 9) and len(digits) >= 9:  # 10^9+7, 10^9+9
            return f"{sign}10^{len(digits) - 1}+{magnitude - 10 ** (len(digits) - 1)}"
    return f"{sign}{magnitude}"


@dataclass(frozen=True)
class Expr:
    """A number of the format: a constant, or a variable of the input scaled and shifted
    (``n``, ``n-1``, ``2*n``). The variable ``*`` (:data:`ANY`) stands for "as many as there are"."""

    constant: int = 0
    variable: str | None = None
    scale: int = 1

    def value(self, env: Mapping[str, int]) -> int | None:
        """The number, with the variables' values in ``env`` (None: a variable not known)."""
        if self.variable is None:
            return self.constant
        bound = env.get(self.variable)
        return None if bound is None else self.scale * bound + self.constant

    @property
    def is_any(self) -> bool:
        return self.variable == "*"

    def __str__(self) -> str:
        if self.variable is None:
            return number_text(self.constant)
        if self.is_any:
            return "*"
        text = self.variable if self.scale == 1 else f"{self.scale}*{self.variable}"
        if self.constant > 0:
            text += f"+{number_text(self.constant)}"
        elif self.constant < 0:
            text += f"-{number_text(-self.constant)}"
        return text


#: "as many as there are": a list to the end of its line, lines to the end of the input
ANY = Expr(variable="*")


@dataclass(frozen=True)
class TokenType:
    """What one token is: an integer or a float within a range, or a word (its length within the
    range) of an alphabet, or one of a few choices."""

    kind: Kind
    low: Expr | None = None
    high: Expr | None = None
    #: the bounds were seen (in examples) or guessed, not stated: engines may explore past them
    soft_low: bool = False
    soft_high: bool = False
    #: a word's characters ("": any printable character but a space)
    alphabet: str = ""
    #: the token is one of these (YES/NO, L/R)
    choices: tuple[str, ...] = ()
    #: a float's digits after the point
    decimals: int | None = None

    def bounds(self, env: Mapping[str, int]) -> tuple[int | None, int | None]:
        """The range with the variables' values (a word's: of its length); None: open."""
        low = self.low.value(env) if self.low is not None else None
        high = self.high.value(env) if self.high is not None else None
        return low, high

    def hard_bounds(self, env: Mapping[str, int]) -> tuple[int | None, int | None]:
        """The stated bounds only (soft ones are open)."""
        low, high = self.bounds(env)
        return (None if self.soft_low else low), (None if self.soft_high else high)

    @property
    def variables(self) -> set[str]:
        return {e.variable for e in (self.low, self.high) if e is not None and e.variable not in (None, "*")}

    def fixed_length(self) -> Expr | None:
        """A word's length when it is one number or variable (``word[n]``), else None."""
        if self.kind is Kind.WORD and self.low is not None and self.low == self.high and not self.soft_low:
            return self.low
        return None

    def text(self) -> str:
        if self.choices:
            return "(" + "|".join(self.choices) + ")"
        text = self.kind.value
        if self.low is not None or self.high is not None:
            if self.low is not None and self.low == self.high and self.soft_low == self.soft_high:
                text += f"[{'~' if self.soft_low else ''}{self.low}]"
            else:
                low = "" if self.low is None else ("~" if self.soft_low else "") + str(self.low)
                high = "" if self.high is None else ("~" if self.soft_high else "") + str(self.high)
                text += f"[{low},{high}]"
        if self.kind is Kind.WORD and self.alphabet:
            text += "{" + alphabet_text(self.alphabet) + "}"
        if self.kind is Kind.FLOAT and self.decimals is not None:
            text += f".{self.decimals}"
        return text


def alphabet_text(alphabet: str) -> str:
    """An alphabet with its runs written as ranges: ``abc...z`` as ``a-z``."""
    chars = sorted(set(alphabet))
    out: list[str] = []
    i = 0
    while i < len(chars):
        j = i
        while j + 1 < len(chars) and ord(chars[j + 1]) == ord(chars[j]) + 1 and chars[j + 1].isalnum() == chars[i].isalnum():
            j += 1
        if j - i >= 2 and chars[i].isalnum():
            out.append(f"{chars[i]}-{chars[j]}")
        else:
            out.extend(_escaped(c) for c in chars[i:j + 1])
        i = j + 1
    return "".join(out)


def _escaped(char: str) -> str:
    return "\\" + char if char in "-{}[]()#*\\" else char


@dataclass(frozen=True)
class Token:
    """One token of a line, or (``count`` set) a list of ``count`` tokens of one type."""

    type: TokenType
    name: str | None = None
    count: Expr | None = None

    def text(self) -> str:
        text = (f"{self.name}:" if self.name else "") + self.type.text()
        if self.count is not None:
            text += f"*{self.count}"
        return text


@dataclass(frozen=True)
class Line:
    tokens: tuple[Token, ...]

    def text(self) -> str:
        return " ".join(token.text() for token in self.tokens) if self.tokens else "empty"


@dataclass(frozen=True)
class Repeat:
    """``count`` copies of ``body`` (records, test cases); :data:`ANY`: up to the end of the input."""

    count: Expr
    body: tuple[Line | Repeat, ...]


Node = Line | Repeat


@dataclass(frozen=True)
class InputFormat:
    """A whole input: its lines and repeats, and where the format came from."""

    body: tuple[Node, ...]
    #: "user" (--input-format), or what it was inferred from: "examples", "statement", "programs"
    #: joined with "+"
    origin: str = "user"
    #: what the inference saw and decided, for the report
    notes: tuple[str, ...] = field(default=(), compare=False)

    @property
    def stated(self) -> bool:
        """Whether the format was given (every bound in it is the user's word)."""
        return self.origin == "user"

    def text(self) -> str:
        """The format in the language of ``--input-format`` (:mod:`divergent.formats.syntax`)."""
        lines: list[str] = []
        _text(self.body, 0, lines)
        return "\n".join(lines) + "\n"

    def tokens(self) -> Iterator[Token]:
        yield from _tokens(self.body)

    def count_variables(self) -> set[str]:
        """The variables that say how many things follow (lists, repeats, words' lengths)."""
        names: set[str] = set()
        for node in _nodes(self.body):
            if isinstance(node, Repeat) and node.count.variable not in (None, "*"):
                names.add(node.count.variable)  # type: ignore[arg-type]
            elif isinstance(node, Line):
                for token in node.tokens:
                    if token.count is not None and token.count.variable not in (None, "*"):
                        names.add(token.count.variable)  # type: ignore[arg-type]
                    length = token.type.fixed_length()
                    if length is not None and length.variable is not None:
                        names.add(length.variable)
        return names

    def size(self) -> int:
        """Tokens and repeats in the format (a measure of how much it says)."""
        return sum(1 for _ in _nodes(self.body)) + sum(1 for _ in self.tokens())

    def to_json(self) -> dict[str, Any]:
        return {"origin": self.origin, "format": self.text(), "notes": list(self.notes)}


def _text(body: tuple[Node, ...], depth: int, lines: list[str]) -> None:
    for node in body:
        if isinstance(node, Line):
            lines.append("    " * depth + node.text())
        else:
            lines.append("    " * depth + f"repeat {node.count}:")
            _text(node.body, depth + 1, lines)


def _nodes(body: tuple[Node, ...]) -> Iterator[Node]:
    for node in body:
        yield node
        if isinstance(node, Repeat):
            yield from _nodes(node.body)


def _tokens(body: tuple[Node, ...]) -> Iterator[Token]:
    for node in _nodes(body):
        if isinstance(node, Line):
            yield from node.tokens
