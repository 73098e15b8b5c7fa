"""Constant folding on the syntax tree: the values code builds its patterns and formats from.

Real code rarely writes a regular expression as one literal: it glues pieces (``r'(?P<num>\\d+)' +
UNIT``), formats them (``'(?P<op>%s)' % '|'.join(map(re.escape, OPERATORS.keys()))``), compiles them
into module constants, or loops over a list of formats. :class:`Folder` computes such values from the
tree alone, with a fixed set of operations on plain values (strings, numbers, containers, compiled
patterns as records); it never runs the code under test and never calls anything the code defines.

A name may have several values (assigned in two branches, a loop variable over a list): folding
returns every value an expression may take (:meth:`Folder.values`), capped, and an empty list when
it does not know.
"""

from __future__ import annotations

import ast
import codecs
import itertools
import re
import string
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from divergent.annotations import dotted_name

__all__ = ["CompiledPattern", "Folder", "Unknown"]

#: values one expression may take at most (a cartesian product of alternatives is cut here)
MAX_ALTERNATIVES = 64
#: the longest string, and the most items, a folded value may have
MAX_TEXT = 20_000
MAX_ITEMS = 2_000

#: ``re`` flags by the names code spells them with
_FLAGS = {
    name: int(getattr(re, name))
    for name in (
        "I", "IGNORECASE", "M", "MULTILINE", "S", "DOTALL", "X", "VERBOSE", "U", "UNICODE", "A", "ASCII", "L",
        "LOCALE",
    )
    if hasattr(re, name)
}  # fmt: skip
#: the text constants of the ``string`` module
_STRING_CONSTANTS = {
    name: getattr(string, name)
    for name in (
        "ascii_letters", "ascii_lowercase", "ascii_uppercase", "digits", "hexdigits", "octdigits",
        "punctuation", "printable", "whitespace",
    )
}  # fmt: skip
#: methods of str and bytes folding may call: pure, bounded by the size of their inputs
_TEXT_METHODS = frozenset({
    "lower", "upper", "strip", "lstrip", "rstrip", "replace", "split", "rsplit", "splitlines", "title",
    "casefold", "capitalize", "swapcase", "removeprefix", "removesuffix", "encode", "decode", "join",
    "format", "startswith", "endswith", "zfill", "partition", "rpartition",
})  # fmt: skip
#: the byte-order marks of the ``codecs`` module
_CODECS_CONSTANTS = {name: getattr(codecs, name) for name in dir(codecs) if name.startswith("BOM")}
_ITERABLE_BUILDERS = {"list": list, "tuple": tuple, "set": set, "frozenset": frozenset, "sorted": sorted}
#: functions of one value that ``map`` and a call may apply
_FUNCTIONS_OF_ONE: dict[str, Callable[[Any], Any]] = {
    "re.escape": re.escape,
    "str": str,
    "str.lower": str.lower,
    "str.upper": str.upper,
    "str.strip": str.strip,
    "len": len,
}


class Unknown(Exception):
    """An expression whose value folding does not know."""


@dataclass(frozen=True)
class CompiledPattern:
    """What ``re.compile(pattern, flags)`` gives, as a record (nothing is compiled here)."""

    pattern: str | bytes
    flags: int = 0


def _bounded(value: Any) -> Any:
    if isinstance(value, str | bytes) and len(value) > MAX_TEXT:
        raise Unknown("text too long")
    if isinstance(value, list | tuple | set | frozenset | dict) and len(value) > MAX_ITEMS:
        raise Unknown("too many items")
    return value


def _items(value: Any) -> list[Any]:
    """The items iterating over a folded value gives."""
    if isinstance(value, dict):
        return list(value)
    if isinstance(value, list | tuple | str | bytes):
        return list(value)
    if isinstance(value, set | frozenset):
        return sorted(value, key=repr)  # the order of a set of strings depends on hashing
    raise Unknown("not iterable")


class Folder:
    """Folds expressions in one scope.

    ``lookup(name)`` gives the expressions a name was assigned (each folded in the scope ``scope_of``
    the name says), or raises :class:`Unknown`; ``call(name, args)`` folds a call to a function of
    the module (the values its ``return`` statements may take), or raises :class:`Unknown`.
    """

    def __init__(
        self,
        lookup: Callable[[str], list[Any]],
        call: Callable[[str], list[Any]] | None = None,
    ) -> None:
        self._lookup = lookup
        self._call = call
        #: names bound inside a comprehension being folded
        self._bound: dict[str, Any] = {}

    def values(self, node: ast.AST | None) -> list[Any]:
        """Every value ``node`` may take (at most :data:`MAX_ALTERNATIVES`); [] when unknown."""
        if node is None:
            return []
        try:
            return self._fold(node)[:MAX_ALTERNATIVES]
        except (Unknown, RecursionError):
            return []
        except (TypeError, ValueError, KeyError, IndexError, AttributeError, OverflowError, re.error):
            return []

    def value(self, node: ast.AST | None) -> Any:
        """The one value of ``node``; raises Unknown when it has none or several."""
        found = self.values(node)
        if len(found) != 1:
            raise Unknown("no single value")
        return found[0]

    # -- the fold ----------------------------------------------------------------------------

    def _fold(self, node: ast.AST) -> list[Any]:
        method = getattr(self, "_fold_" + type(node).__name__, None)
        if method is None:
            raise Unknown(type(node).__name__)
        return [_bounded(v) for v in method(node)]

    def _product(self, nodes: Iterable[ast.AST]) -> Iterable[tuple[Any, ...]]:
        lists = [self._fold(node) for node in nodes]
        return itertools.islice(itertools.product(*lists), MAX_ALTERNATIVES)

    def _fold_Constant(self, node: ast.Constant) -> list[Any]:
        return [node.value]

    def _fold_Name(self, node: ast.Name) -> list[Any]:
        if node.id in self._bound:
            return [self._bound[node.id]]
        return list(self._lookup(node.id))

    def _fold_Attribute(self, node: ast.Attribute) -> list[Any]:
        if isinstance(node.value, ast.Name):
            if node.value.id == "re" and node.attr in _FLAGS:
                return [_FLAGS[node.attr]]
            if node.value.id == "string" and node.attr in _STRING_CONSTANTS:
                return [_STRING_CONSTANTS[node.attr]]
            if node.value.id == "codecs" and node.attr in _CODECS_CONSTANTS:
                return [_CODECS_CONSTANTS[node.attr]]
            if node.value.id == "re" and node.attr.startswith("RegexFlag"):
                raise Unknown("flag class")
        if isinstance(node.value, ast.Attribute) and node.value.attr == "RegexFlag" and node.attr in _FLAGS:
            return [_FLAGS[node.attr]]
        raise Unknown("attribute")

    def _fold_JoinedStr(self, node: ast.JoinedStr) -> list[Any]:
        results = []
        for parts in self._product(node.values):
            results.append("".join(str(part) for part in parts))
        return results

    def _fold_FormattedValue(self, node: ast.FormattedValue) -> list[Any]:
        specs = self._fold(node.format_spec) if node.format_spec is not None else [""]
        results = []
        for value, spec in itertools.product(self._fold(node.value), specs):
            if not isinstance(value, str | int | float | bool | type(None)):
                raise Unknown("formatting a container")
            if node.conversion == ord("r"):
                value = repr(value)
            elif node.conversion == ord("a"):
                value = ascii(value)
            elif node.conversion == ord("s"):
                value = str(value)
            results.append(format(value, spec))
        return results

    def _fold_Tuple(self, node: ast.Tuple) -> list[Any]:
        return [tuple(items) for items in self._product(node.elts)]

    def _fold_List(self, node: ast.List) -> list[Any]:
        return [list(items) for items in self._product(node.elts)]

    def _fold_Set(self, node: ast.Set) -> list[Any]:
        return [set(items) for items in self._product(node.elts)]

    def _fold_Dict(self, node: ast.Dict) -> list[Any]:
        if any(key is None for key in node.keys):
            raise Unknown("** in a dict")
        keys = [self._first(key) for key in node.keys]  # type: ignore[arg-type]
        values = []
        for value in node.values:
            try:
                values.append(self._first(value))
            except Unknown:
                values.append(None)  # the keys matter more than what they map to
        return [dict(zip(keys, values, strict=True))]

    def _first(self, node: ast.AST) -> Any:
        found = self._fold(node)
        if not found:
            raise Unknown("no value")
        return found[0]

    def _fold_UnaryOp(self, node: ast.UnaryOp) -> list[Any]:
        results = []
        for value in self._fold(node.operand):
            if isinstance(node.op, ast.USub) and isinstance(value, int | float):
                results.append(-value)
            elif isinstance(node.op, ast.UAdd) and isinstance(value, int | float):
                results.append(value)
            elif isinstance(node.op, ast.Invert) and isinstance(value, int):
                results.append(~value)
            else:
                raise Unknown("unary operator")
        return results

    def _fold_BinOp(self, node: ast.BinOp) -> list[Any]:
        results = []
        for left, right in self._product((node.left, node.right)):
            results.append(self._binary(node.op, left, right))
        return results

    @staticmethod
    def _binary(op: ast.operator, left: Any, right: Any) -> Any:
        if isinstance(op, ast.Add):
            if type(left) is type(right) and isinstance(left, str | bytes | list | tuple | int | float):
                return left + right
            if isinstance(left, int | float) and isinstance(right, int | float):
                return left + right
        elif isinstance(op, ast.Mod) and isinstance(left, str | bytes):
            if isinstance(right, list | set):
                raise Unknown("% with a list")
            return left % right
        elif isinstance(op, ast.Mult):
            if isinstance(left, int) and not isinstance(right, int):
                left, right = right, left
            if isinstance(left, str | bytes | list | tuple) and isinstance(right, int) and 0 <= right <= 100:
                return left * right
            if isinstance(left, int | float) and isinstance(right, int | float):
                return left * right
        elif isinstance(op, ast.BitOr) and isinstance(left, int) and isinstance(right, int):
            return left | right
        elif isinstance(op, ast.Sub) and isinstance(left, int | float) and isinstance(right, int | float):
            return left - right
        raise Unknown("operator")

    def _fold_Subscript(self, node: ast.Subscript) -> list[Any]:
        results = []
        if isinstance(node.slice, ast.Slice):
            bounds = [node.slice.lower, node.slice.upper, node.slice.step]
            for container in self._fold(node.value):
                parts = [self._first(b) if b is not None else None for b in bounds]
                results.append(container[slice(*parts)])
            return results
        for container, index in self._product((node.value, node.slice)):
            results.append(container[index])
        return results

    def _fold_IfExp(self, node: ast.IfExp) -> list[Any]:
        found = []
        for branch in (node.body, node.orelse):
            try:
                found.extend(self._fold(branch))
            except Unknown:
                continue
        if not found:
            raise Unknown("neither branch")
        return found

    def _fold_BoolOp(self, node: ast.BoolOp) -> list[Any]:
        # `PATTERN or DEFAULT`: either may be the value
        return self._fold_IfExp(ast.IfExp(test=ast.Constant(True), body=node.values[0], orelse=node.values[-1]))

    def _comprehension(self, node: ast.ListComp | ast.GeneratorExp | ast.SetComp) -> list[Any]:
        if len(node.generators) != 1 or node.generators[0].ifs or not isinstance(node.generators[0].target, ast.Name):
            raise Unknown("comprehension")
        generator = node.generators[0]
        name = generator.target.id  # type: ignore[union-attr]
        results = []
        for iterable in self._fold(generator.iter):
            items = []
            for item in _items(iterable):
                saved = self._bound.get(name, _MISSING)
                self._bound[name] = item
                try:
                    items.append(self._first(node.elt))
                finally:
                    if saved is _MISSING:
                        del self._bound[name]
                    else:
                        self._bound[name] = saved
            results.append(set(items) if isinstance(node, ast.SetComp) else items)
        return results

    _fold_ListComp = _comprehension
    _fold_GeneratorExp = _comprehension
    _fold_SetComp = _comprehension

    def _fold_Call(self, node: ast.Call) -> list[Any]:
        if any(isinstance(a, ast.Starred) for a in node.args) or any(k.arg is None for k in node.keywords):
            raise Unknown("* or ** in a call")
        callee = node.func
        name = dotted_name(callee)
        if name in ("re.compile", "regex.compile"):
            return self._compile(node)
        if name in _FUNCTIONS_OF_ONE and len(node.args) == 1:
            return [_FUNCTIONS_OF_ONE[name](value) for value in self._fold(node.args[0])]
        if name == "map" and len(node.args) == 2:
            function = _FUNCTIONS_OF_ONE.get(dotted_name(node.args[0]) or "")
            if function is None:
                raise Unknown("map of an unknown function")
            return [[function(item) for item in _items(value)] for value in self._fold(node.args[1])]
        if name in _ITERABLE_BUILDERS and len(node.args) <= 1 and not node.keywords:
            if not node.args:
                return [_ITERABLE_BUILDERS[name]()]
            return [_ITERABLE_BUILDERS[name](_items(value)) for value in self._fold(node.args[0])]
        if name == "dict" and not node.args:
            return [{k.arg: self._first(k.value) for k in node.keywords}]
        if isinstance(callee, ast.Attribute):
            return self._method(callee, node)
        if isinstance(callee, ast.Name) and self._call is not None:
            return list(self._call(callee.id))
        raise Unknown("call")

    def _compile(self, node: ast.Call) -> list[Any]:
        flags_nodes = node.args[1:2] or [k.value for k in node.keywords if k.arg == "flags"]
        flag_values = self._fold(flags_nodes[0]) if flags_nodes else [0]
        results = []
        for pattern, flags in itertools.product(self._fold(node.args[0]), flag_values):
            if isinstance(pattern, CompiledPattern):
                results.append(pattern)
            elif isinstance(pattern, str | bytes) and isinstance(flags, int):
                results.append(CompiledPattern(pattern, flags))
        return results

    def _method(self, callee: ast.Attribute, node: ast.Call) -> list[Any]:
        method = callee.attr
        results = []
        for receiver in self._fold(callee.value):
            if isinstance(receiver, dict) and method in ("keys", "values", "items") and not node.args:
                results.append(list(getattr(receiver, method)()))
            elif isinstance(receiver, str | bytes) and method in _TEXT_METHODS:
                args = [self._first(a) for a in node.args]
                kwargs = {k.arg: self._first(k.value) for k in node.keywords if k.arg}
                if method == "join":
                    args = [_items(args[0])] if args else args
                elif method == "format" and (
                    any(isinstance(a, list | dict | set) for a in args) or _REACHING_FIELD.search(str(receiver))
                ):
                    raise Unknown("format with a container or a field reaching into a value")
                results.append(getattr(receiver, method)(*args, **kwargs))
            else:
                raise Unknown("method")
        return results


_MISSING = object()
#: a replacement field that reads an attribute or an item of its argument (``{0.__class__}``)
_REACHING_FIELD = re.compile(r"\{[^{}]*[.\[]")
