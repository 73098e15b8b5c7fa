"""One left-to-right lexer for C, C++ and Java sources (read, never run), shared by the reader of
their input formats (:mod:`divergent.formats.reading_c`) and the harvest of their literals
(:mod:`divergent.engines.constants`).

Left to right is what makes it right where pattern substitutions go wrong: a ``//`` inside a
string (``"see http://x"``) is part of the string, a ``"`` inside a comment is part of the comment,
a C++ raw string (``R"(...)"``, ``R"x(...)x"``) runs to its own delimiter whatever it holds, a
Java text block (``\"\"\"...\"\"\"``) to its closing quotes, and a digit separator (``1'000'000``)
belongs to its number instead of opening a character literal. Comments and preprocessor lines
(with their ``\\`` continuations) are dropped; what remains are :class:`Lexeme` s.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

__all__ = ["Lexeme", "lex", "literal_value"]

_LEXEME = re.compile(
    r"""
    (?P<space>\s+)
  | (?P<comment>//[^\n]*|/\*.*?(?:\*/|\Z))
  | (?P<raw>(?:u8|[uUL])?R"(?P<delimiter>[^()\\\s"]{0,16})\((?P<raw_body>.*?)\)(?P=delimiter)")
  | (?P<block>\"\"\"[ \t]*\n(?P<block_body>.*?)\"\"\")
  | (?P<string>(?:u8|[uUL])?"(?P<string_body>(?:\\.|[^"\\\n])*)")
  | (?P<char>(?:u8|[uUL])?'(?P<char_body>(?:\\.|[^'\\\n])*)')
  | (?P<number>\.?\d(?:[eEpP][+-]|'(?=[0-9A-Za-z])|[\w.])*)
  | (?P<ident>[A-Za-z_$][\w$]*)
  | (?P<op>>>=|<<=|>>|<<|\+\+|--|->|::|[<>=!]=|&&|\|\||\S)
    """,
    re.DOTALL | re.MULTILINE | re.VERBOSE,
)
#: a preprocessor line (C, C++), continued by a backslash at its end
_DIRECTIVE = re.compile(r"[ \t]*#(?:\\\r?\n|[^\n])*")
_ESCAPE = re.compile(r"\\(x[0-9a-fA-F]{1,2}|u[0-9a-fA-F]{4}|[0-7]{1,3}|.)", re.DOTALL)
#: the escapes of C, C++ and Java literals that stand for one character (others stand for themselves)
_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "a": "\a", "b": "\b", "f": "\f", "v": "\v"}


@dataclass(frozen=True)
class Lexeme:
    """One token of a source: ``kind`` is ``string``, ``char``, ``number``, ``ident`` or ``op``;
    ``text`` as written; for a string or a character literal, ``value`` is what it stands for."""

    kind: str
    text: str
    value: str | None = None


def lex(source: str, language: str = "cpp") -> Iterator[Lexeme]:
    """The lexemes of a C, C++ or Java ``source``, left to right, without comments and (C, C++)
    preprocessor lines. A character the lexer cannot place is an ``op`` of its own: it never fails."""
    directives = language in ("c", "cpp")
    position, end = 0, len(source)
    line_start = True
    while position < end:
        if directives and line_start:
            directive = _DIRECTIVE.match(source, position)
            if directive is not None:
                position = directive.end()
                continue
        match = _LEXEME.match(source, position)
        if match is None:  # (every character matches ``op``; kept for safety)
            position += 1
            continue
        kind = match.lastgroup
        text = match.group()
        position = match.end()
        if kind in ("space", "comment"):
            # (a directive may follow a line's blanks and comments, nothing else)
            line_start = line_start or (kind == "space" and "\n" in text)
            continue
        line_start = False
        if kind == "raw":
            yield Lexeme("string", text, match.group("raw_body"))
        elif kind == "block":
            yield Lexeme("string", text, literal_value(match.group("block_body")))
        elif kind in ("string", "char"):
            yield Lexeme(kind, text, literal_value(match.group(f"{kind}_body")))
        elif kind in ("number", "ident", "op"):
            yield Lexeme(kind, text)


def literal_value(body: str) -> str:
    """What the body of a string or character literal stands for, its escapes read."""
    return _ESCAPE.sub(_unescape, body)


def _unescape(escape: re.Match[str]) -> str:
    code = escape.group(1)
    if code[0] in "xu" and len(code) > 1:
        return chr(int(code[1:], 16))
    if code[0] in "01234567":
        return chr(int(code, 8) & 0xFF)
    return _ESCAPES.get(code, code)
