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


def program_literals(source: str, language: str) -> tuple[str, ...]:
    """The string and character literals of a whole program's source, in order of appearance
    (read, never run): what a program compares its input against (``c == 'y'``, ``"aeiou"``,
    ``s == "YES"``). Python is read with ``ast``; C, C++ and Java by the lexer their input formats
    are read with (:func:`divergent.formats.lexing.lex`: comments, raw strings and digit separators
    as their compilers see them)."""
    if language == "python":
        try:
            return Constants.harvest([source]).strings
        except (ValueError, RecursionError):  # a null byte, a pathological nesting
            return ()
    if language not in ("c", "cpp", "java"):
        return ()
    from divergent.formats.lexing import lex

    literals: dict[str, None] = {}
    for lexeme in lex(source, language):
        if lexeme.value is not None:
            literals[lexeme.value] = None
            if len(literals) >= _MAX_PER_KIND:
                break
    return tuple(literals)
