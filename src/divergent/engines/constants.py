"""Literal constants harvested from the implementations' source (read with ``ast``, never run).

Implementations that differ on a rare value usually name it: ``if n == 1337``, ``s.startswith("v2")``.
Generators mix these constants (and their neighbours) into what they draw.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable
from dataclasses import dataclass

_MAX_PER_KIND = 200


@dataclass(frozen=True)
class Constants:
    ints: tuple[int, ...] = ()
    floats: tuple[float, ...] = ()
    strings: tuple[str, ...] = ()
    bytes_: tuple[bytes, ...] = ()

    @classmethod
    def harvest(cls, sources: Iterable[str]) -> Constants:
        ints: dict[int, None] = {}
        floats: dict[float, None] = {}
        strings: dict[str, None] = {}
        blobs: dict[bytes, None] = {}
        for source in sources:
            try:
                tree = ast.parse(source)
            except SyntaxError:
                continue
            docstrings = {
                id(node.body[0].value)
                for node in ast.walk(tree)
                if isinstance(node, ast.Module | ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)
                and node.body
                and isinstance(node.body[0], ast.Expr)
                and isinstance(node.body[0].value, ast.Constant)
            }
            for node in ast.walk(tree):
                if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
                    operand = node.operand
                    if isinstance(operand, ast.Constant) and type(operand.value) in (int, float):
                        value = -operand.value
                        (ints if isinstance(value, int) else floats)[value] = None
                if not isinstance(node, ast.Constant) or id(node) in docstrings:
                    continue
                value = node.value
                if isinstance(value, bool) or value is None:
                    continue
                if isinstance(value, int):
                    ints[value] = None
                elif isinstance(value, float):
                    floats[value] = None
                elif isinstance(value, str) and len(value) <= 100:
                    strings[value] = None
                elif isinstance(value, bytes) and len(value) <= 100:
                    blobs[value] = None
        return cls(
            ints=tuple(ints)[:_MAX_PER_KIND],
            floats=tuple(floats)[:_MAX_PER_KIND],
            strings=tuple(strings)[:_MAX_PER_KIND],
            bytes_=tuple(blobs)[:_MAX_PER_KIND],
        )

    def with_values(self, values: Iterable[object]) -> Constants:
        """These constants plus ``values`` (e.g. computed by the implementations when they loaded)."""
        ints = dict.fromkeys(self.ints)
        floats = dict.fromkeys(self.floats)
        strings = dict.fromkeys(self.strings)
        blobs = dict.fromkeys(self.bytes_)
        for value in values:
            if type(value) is int:
                ints[value] = None
            elif type(value) is float:
                floats[value] = None
            elif type(value) is str and len(value) <= 100:
                strings[value] = None
            elif type(value) is bytes and len(value) <= 100:
                blobs[value] = None
        return Constants(
            ints=tuple(ints)[: 2 * _MAX_PER_KIND],
            floats=tuple(floats)[: 2 * _MAX_PER_KIND],
            strings=tuple(strings)[: 2 * _MAX_PER_KIND],
            bytes_=tuple(blobs)[: 2 * _MAX_PER_KIND],
        )

    def int_neighbourhood(self) -> tuple[int, ...]:
        """Each harvested int and its neighbours ±1: boundaries sit next to the constants."""
        seen: dict[int, None] = {}
        for v in self.ints:
            for d in (0, -1, 1):
                seen[v + d] = None
        return tuple(seen)


#: the escapes of C, C++ and Java string and character literals that stand for one character
_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "0": "\0", "a": "\a", "b": "\b", "f": "\f", "v": "\v"}


def program_literals(source: str, language: str) -> tuple[str, ...]:
    """The string and character literals of a whole program's source, in order of appearance
    (read, never run): what a program compares its input against (``c == 'y'``, ``"aeiou"``,
    ``s == "YES"``). Python is read with ``ast``; C, C++ and Java by a small lexer that skips
    comments and tells a character literal from a C++14 digit separator (``1'000``)."""
    if language == "python":
        try:
            return Constants.harvest([source]).strings
        except (ValueError, RecursionError):  # a null byte, a pathological nesting
            return ()
    if language not in ("c", "cpp", "java"):
        return ()
    literals: dict[str, None] = {}
    i, end = 0, len(source)
    while i < end and len(literals) < _MAX_PER_KIND:
        char = source[i]
        if source.startswith(("//", "#include"), i):  # (an included header's name is no literal)
            i = source.find("\n", i)
            i = end if i < 0 else i
        elif source.startswith("/*", i):
            i = source.find("*/", i + 2)
            i = end if i < 0 else i + 2
        elif char in "\"'" and not (char == "'" and i and (source[i - 1].isalnum() or source[i - 1] == "_")):
            text, i = _quoted(source, i + 1, char)
            if text is not None:
                literals[text] = None
        else:
            i += 1
    return tuple(literals)


def _quoted(source: str, i: int, quote: str) -> tuple[str | None, int]:
    """The literal starting at ``i`` (after its opening ``quote``) with its escapes decoded, and
    where it ends; None for one cut off by the end of a line."""
    out: list[str] = []
    end = len(source)
    while i < end:
        char = source[i]
        if char == quote:
            return "".join(out), i + 1
        if char == "\n":
            return None, i
        if char == "\\" and i + 1 < end:
            code = source[i + 1]
            if code == "x":
                digits = len(source[i + 2:i + 4]) - len(source[i + 2:i + 4].lstrip("0123456789abcdefABCDEF"))
                out.append(chr(int(source[i + 2:i + 2 + digits], 16)) if digits else "x")
                i += 2 + digits
                continue
            out.append(_ESCAPES.get(code, code))
            i += 2
            continue
        out.append(char)
        i += 1
    return None, i
