"""An input format read from a statement's format block, as AtCoder (and many other judges) write
it after "The input is given from Standard Input in the following format:"::

    N M T
    A_1 A_2 ... A_{N-1}
    X_1 Y_1
    X_2 Y_2
    \\vdots
    X_M Y_M

One line of the block per line of the input: names on a line are tokens (``N M T``); ``A_1 A_2 ...
A_{N-1}`` is a list whose count is its last index (``N-1``, ``4N-1``, ``2N``); lines indexed 1, 2,
..., M around a vertical ellipsis are M records; ``S_1`` ... ``S_N`` one per line likewise. The
types and bounds come from the constraints (:func:`divergent.formats.statements.bounded`), a
variable the constraints call a string is a word.
"""

from __future__ import annotations

import re

from divergent.formats.model import Expr, InputFormat, Kind, Line, Node, Repeat, Token, TokenType
from divergent.formats.statement_text import constraint_text, constraints, input_section
from divergent.formats.statements import bounded, word_type

__all__ = ["block_format", "block_lines", "index_expr"]

_INTRO = re.compile(r"(?:in\s+the\s+following\s+format|in\s+this\s+format|as\s+follows)\s*:?", re.IGNORECASE)
#: a name as a block writes it: ``N``, ``A_1``, ``A_N-1``, ``A_4N-1``, ``c_i,j`` (subscripts
#: flattened by :func:`~divergent.formats.statement_text.normalise`)
_NAME = re.compile(r"[A-Za-z][A-Za-z0-9]*(?:_[A-Za-z0-9+\-*]+)?")
_ELLIPSIS = "..."
_INDEX = re.compile(r"(\d*)\*?([A-Za-z]\w*)?(?:([+-])(\d+))?")


def index_expr(text: str) -> Expr | None:
    """``N-1`` as ``Expr(-1, "N")``, ``4N-1`` as ``Expr(-1, "N", 4)``, ``3`` as ``Expr(3)``."""
    match = _INDEX.fullmatch(text.replace(" ", ""))
    if match is None or not text:
        return None
    scale_text, variable, sign, offset = match.groups()
    if variable is None:
        return Expr(int(scale_text)) if scale_text and not sign else None
    constant = int(offset) * (-1 if sign == "-" else 1) if offset else 0
    return Expr(constant, variable, int(scale_text) if scale_text else 1)


def block_lines(statement: str) -> list[list[str]] | None:
    """The lines of the statement's format block, each as its names and ellipses (None: no block)."""
    section = input_section(statement)
    intro = _INTRO.search(section)
    if intro is None:
        return None
    lines: list[list[str]] = []
    for raw in section[intro.end():].splitlines():
        text = raw.strip().strip("`").strip()
        if not text:
            if lines:
                break
            continue
        parts = text.replace(",", " ").split()
        if not all(part == _ELLIPSIS or part == ":" or _NAME.fullmatch(part) for part in parts):
            if lines:
                break
            continue
        if sum(1 for part in parts if part not in (_ELLIPSIS, ":")) == 0 and len(parts) > 1:
            break
        if len(parts) == 1 and re.fullmatch(r"[a-z]{3,}", parts[0]):  # a word of prose, not a name
            break
        lines.append(["..." if part == ":" else part for part in parts])
    return lines or None


def _split(part: str) -> tuple[str, str | None]:
    base, _, index = part.partition("_")
    return base, (index or None)


def _line(parts: list[str]) -> tuple[list[Token], str | None] | None:
    """A block line's tokens, and the index its names share when every name is indexed alike (a
    record of a list of records: ``X_1 Y_1``)."""
    tokens: list[Token] = []
    shared: set[str | None] = set()
    bases = [_split(part)[0] for part in parts if part != _ELLIPSIS]
    repeated = {base for base in bases if bases.count(base) > 1}
    i = 0
    while i < len(parts):
        part = parts[i]
        if part == _ELLIPSIS:
            return None  # an ellipsis not between two names of one list
        base, index = _split(part)
        # ``A_1 A_2 ... A_N``: the list runs to the name after the ellipsis
        j = i
        while j + 1 < len(parts) and (parts[j + 1] == _ELLIPSIS or _split(parts[j + 1])[0] == base):
            j += 1
        if j > i:
            last = _split(parts[j])[1]
            count = index_expr(last) if last is not None else None
            first = index_expr(index) if index is not None else None
            if count is None or first is None or first.variable is not None or first.constant not in (0, 1):
                return None
            if first.constant == 0:
                count = Expr(count.constant + 1, count.variable, count.scale)
            tokens.append(Token(TokenType(Kind.INT), name=base, count=count))
            shared.add(None)
            i = j + 1
            continue
        # ``L_1 R_1 L_2 R_2``: four names (``L1`` ... ``R2``); ``X_i Y_i`` of a record keep their base
        numbered = index is not None and index.isdigit() and base in repeated
        tokens.append(Token(TokenType(Kind.INT), name=base + index if numbered and index is not None else base))
        shared.add(index)
        i += 1
    common = shared.pop() if len(shared) == 1 else None
    return tokens, common


def block_format(statement: str) -> InputFormat | None:
    """The format of the statement's format block, its types from the constraints' words (a name
    the constraints call a string is a word); None without a block it can read."""
    lines = block_lines(statement)
    if lines is None:
        return None
    words = _string_names(constraint_text(statement))
    body: list[Node] = []
    defined: set[str] = set()
    i = 0
    while i < len(lines):
        parts = lines[i]
        if parts == [_ELLIPSIS]:
            return None  # a vertical ellipsis with no indexed line before it
        read = _line(parts)
        if read is None:
            return None
        tokens, index = read
        tokens = [_typed(token, words) for token in tokens]
        # ``X_1 Y_1`` (``X_2 Y_2``) ``...`` ``X_M Y_M``: M records
        if index in ("1", "0"):
            j = i + 1
            while j < len(lines) and lines[j] != [_ELLIPSIS]:
                following = _line(lines[j])
                if following is None or following[1] is None or not following[1].isdigit():
                    break
                j += 1
            if j < len(lines) and lines[j] == [_ELLIPSIS] and j + 1 < len(lines):
                last = _line(lines[j + 1])
                count = index_expr(last[1]) if last is not None and last[1] is not None else None
                if count is None or (count.variable is not None and count.variable not in defined):
                    return None
                if index == "0":
                    count = Expr(count.constant + 1, count.variable, count.scale)
                body.append(Repeat(count, (Line(tuple(tokens)),)))
                i = j + 2
                continue
        for token in tokens:
            if token.count is not None and token.count.variable is not None and token.count.variable not in defined:
                return None
            if token.count is None and token.name:
                defined.add(token.name)
        body.append(Line(tuple(tokens)))
        i += 1
    if not body:
        return None
    return bounded(InputFormat(tuple(body), origin="statement"), constraints(statement))


def _typed(token: Token, words: dict[str, TokenType]) -> Token:
    if token.name in words:
        return Token(words[token.name], name=token.name, count=token.count)
    return token


_STRING_NAME = re.compile(r"\b([A-Za-z])(?:_\w+)?\s+(?:is|are|consists?\s+of)\s+(?:an?\s+)?(?:non-?empty\s+)?"
                          r"(?:strings?|words?|sequences?\s+of\s+(?:characters|letters))\b[^\n]*", re.IGNORECASE)


def _string_names(text: str) -> dict[str, TokenType]:
    """The names the constraints call strings, with the alphabet and length they give them."""
    found: dict[str, TokenType] = {}
    for match in _STRING_NAME.finditer(text):
        found.setdefault(match.group(1), word_type(match.group(0), set()))
    return found
