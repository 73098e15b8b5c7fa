"""Turn annotation source into typing objects without evaluating it.

Implementation code is untrusted, and an annotation is code: ``def f(x: __import__('os').system('rm
-rf ~'))`` would run the command under ``eval`` or ``typing.get_type_hints``. So annotations are
resolved here from their AST against a fixed table of known names (builtins, ``typing``,
``collections.abc``, a few stdlib value types). Nothing from the implementation is ever called.

Whatever the table does not know (a user class, ``np.ndarray``, a call) resolves to ``typing.Any``
and is reported in :attr:`ResolvedAnnotation.unresolved`, so the caller can warn that inputs for
that parameter will be generic.

Typing aliases are normalised to their runtime origins (``List[int]`` → ``list[int]``,
``Optional[int]`` and ``int | None`` → ``Union[int, None]``), so two spellings of one type resolve
to equal objects.
"""

from __future__ import annotations

import ast
import collections
import collections.abc
import decimal
import fractions
import types
import typing
from dataclasses import dataclass
from typing import Any

__all__ = ["ResolvedAnnotation", "analyze_annotation", "resolve_annotation"]

_NONE_TYPE = type(None)

_BUILTIN_TYPES: dict[str, Any] = {
    "int": int,
    "float": float,
    "complex": complex,
    "str": str,
    "bytes": bytes,
    "bytearray": bytearray,
    "bool": bool,
    "list": list,
    "dict": dict,
    "set": set,
    "frozenset": frozenset,
    "tuple": tuple,
    "object": object,
    "type": type,
    "range": range,
    "memoryview": memoryview,
    "slice": slice,
    "None": _NONE_TYPE,
    "NoneType": _NONE_TYPE,
}

_ABC_NAMES = (
    "AsyncGenerator", "AsyncIterable", "AsyncIterator", "Awaitable", "Callable", "Collection",
    "Container", "Coroutine", "Generator", "Hashable", "ItemsView", "Iterable", "Iterator",
    "KeysView", "Mapping", "MappingView", "MutableMapping", "MutableSequence", "MutableSet",
    "Reversible", "Sequence", "Sized", "ValuesView",
)  # fmt: skip

#: ``collections.abc`` by attribute; note ``abc.Set`` is the abstract set, unlike ``typing.Set``
_ABC_TYPES: dict[str, Any] = {name: getattr(collections.abc, name) for name in _ABC_NAMES}
_ABC_TYPES["Set"] = collections.abc.Set

_COLLECTIONS_TYPES: dict[str, Any] = {
    "deque": collections.deque,
    "defaultdict": collections.defaultdict,
    "OrderedDict": collections.OrderedDict,
    "Counter": collections.Counter,
    "ChainMap": collections.ChainMap,
}

#: typing names, with the deprecated aliases mapped to what they alias (so spellings compare equal)
_TYPING_TYPES: dict[str, Any] = {
    **{name: getattr(collections.abc, name) for name in _ABC_NAMES},
    "List": list,
    "Dict": dict,
    "Set": set,
    "FrozenSet": frozenset,
    "Tuple": tuple,
    "Type": type,
    "Text": str,
    "Deque": collections.deque,
    "DefaultDict": collections.defaultdict,
    "OrderedDict": collections.OrderedDict,
    "Counter": collections.Counter,
    "ChainMap": collections.ChainMap,
    "AbstractSet": collections.abc.Set,
    "Any": typing.Any,
    "AnyStr": typing.AnyStr,
    "Optional": typing.Optional,
    "Union": typing.Union,
    "Literal": typing.Literal,
    "Annotated": typing.Annotated,
    "NoReturn": typing.NoReturn,
    "Never": typing.Never,
    "Hashable": collections.abc.Hashable,
    "SupportsInt": typing.SupportsInt,
    "SupportsFloat": typing.SupportsFloat,
    "SupportsIndex": typing.SupportsIndex,
    "SupportsAbs": typing.SupportsAbs,
    "SupportsComplex": typing.SupportsComplex,
    "SupportsRound": typing.SupportsRound,
}

_VALUE_TYPES: dict[str, Any] = {"Decimal": decimal.Decimal, "Fraction": fractions.Fraction}

#: module spellings people use in annotations, mapped to the table of their names
_MODULE_TABLES: dict[str, dict[str, Any]] = {
    "typing": _TYPING_TYPES,
    "t": _TYPING_TYPES,
    "tp": _TYPING_TYPES,
    "typ": _TYPING_TYPES,
    "typing_extensions": _TYPING_TYPES,
    "te": _TYPING_TYPES,
    "collections.abc": _ABC_TYPES,
    "abc": _ABC_TYPES,
    "cabc": _ABC_TYPES,
    "collections": _COLLECTIONS_TYPES,
    "builtins": _BUILTIN_TYPES,
    "decimal": {"Decimal": decimal.Decimal},
    "fractions": {"Fraction": fractions.Fraction},
}

#: bare names: builtins first, then typing (so ``Set`` is ``typing.Set``), then the rest
_BARE_NAMES: dict[str, Any] = {
    **_VALUE_TYPES,
    **_COLLECTIONS_TYPES,
    **_ABC_TYPES,
    **_TYPING_TYPES,
    **_BUILTIN_TYPES,
}

#: how many type arguments the normalised generics take (builtins do not check it themselves)
_GENERIC_ARITY: dict[Any, int] = {
    list: 1,
    set: 1,
    frozenset: 1,
    type: 1,
    dict: 2,
    collections.deque: 1,
    collections.defaultdict: 2,
    collections.OrderedDict: 2,
    collections.Counter: 1,
    collections.ChainMap: 2,
}

#: annotations longer than this are not parsed (a string annotation is parsed as code)
_MAX_SOURCE_LENGTH = 10_000
#: nesting deeper than this is certainly not a real annotation; refuse instead of recursing
_MAX_DEPTH = 64


@dataclass(frozen=True)
class ResolvedAnnotation:
    """An annotation resolved from source: the typing object and what could not be resolved."""

    #: the typing object; parts that could not be resolved are ``typing.Any``
    value: Any
    #: the unknown names or expressions (as source text) that became ``typing.Any``
    unresolved: tuple[str, ...] = ()

    @property
    def complete(self) -> bool:
        """True when every part of the annotation was understood."""
        return not self.unresolved


class _Unresolvable(Exception):
    """A part of an annotation the resolver does not understand (becomes ``Any``)."""


class _Resolver:
    def __init__(self) -> None:
        self.unresolved: list[str] = []

    def unknown(self, description: str) -> Any:
        if description not in self.unresolved:
            self.unresolved.append(description)
        return typing.Any

    def resolve(self, node: ast.expr, depth: int = 0) -> Any:
        if depth > _MAX_DEPTH:
            return self.unknown("annotation nested too deeply")
        match node:
            case ast.Constant(value=None):
                return _NONE_TYPE
            case ast.Constant(value=str() as text):
                return self.resolve_string(text, depth)
            case ast.Name(id=name):
                if name in _BARE_NAMES:
                    return _BARE_NAMES[name]
                return self.unknown(name)
            case ast.Attribute():
                return self.resolve_dotted(node)
            case ast.BinOp(op=ast.BitOr(), left=left, right=right):
                # PEP 604: built as typing.Union so it equals Optional[...] / Union[...] spellings
                return typing.Union[self.resolve(left, depth + 1), self.resolve(right, depth + 1)]  # noqa: UP007
            case ast.Subscript(value=base, slice=index):
                return self.resolve_subscript(node, base, index, depth)
        return self.unknown(_describe(node))

    def resolve_string(self, text: str, depth: int) -> Any:
        # a string annotation is a forward reference: parse it, never evaluate it
        if len(text) > _MAX_SOURCE_LENGTH:
            return self.unknown("annotation string too long")
        try:
            tree = ast.parse(text.strip(), mode="eval")
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            return self.unknown(repr(text))
        return self.resolve(tree.body, depth + 1)

    def resolve_dotted(self, node: ast.Attribute) -> Any:
        dotted = dotted_name(node)
        if dotted is None:
            return self.unknown(_describe(node))
        module, _, name = dotted.rpartition(".")
        table = _MODULE_TABLES.get(module)
        if table is not None and name in table:
            return table[name]
        return self.unknown(dotted)

    def resolve_subscript(self, node: ast.Subscript, base_node: ast.expr, index: ast.expr, depth: int) -> Any:
        before = len(self.unresolved)
        base = self.resolve(base_node, depth + 1)
        if len(self.unresolved) > before:
            # a user generic such as MyBox[int] or np.ndarray[...]: the whole thing is unknown
            return typing.Any
        items = list(index.elts) if isinstance(index, ast.Tuple) else [index]
        try:
            if base is typing.Literal:
                arguments: tuple[Any, ...] = tuple(_literal_value(item) for item in items)
            elif base is typing.Annotated:
                # the metadata is arbitrary code: keep only the type
                return self.resolve(items[0], depth + 1)
            elif base in (tuple, collections.abc.Callable):
                arguments = tuple(self.resolve_argument(item, depth) for item in items)
                if base is tuple and isinstance(index, ast.Tuple) and not index.elts:
                    return tuple[()]
            else:
                arguments = tuple(self.resolve(item, depth + 1) for item in items)
                if _GENERIC_ARITY.get(base, len(arguments)) != len(arguments):
                    return self.unknown(_describe(node))
            return base[arguments if len(arguments) != 1 else arguments[0]]
        except _Unresolvable:
            return self.unknown(_describe(node))
        except (TypeError, ValueError, AttributeError):
            # e.g. Dict[int] or int[str]: well-formed syntax, meaningless type
            return self.unknown(_describe(node))

    def resolve_argument(self, node: ast.expr, depth: int) -> Any:
        """An argument of ``tuple[...]`` or ``Callable[...]``: may also be ``...`` or ``[a, b]``."""
        if isinstance(node, ast.Constant) and node.value is Ellipsis:
            return ...
        if isinstance(node, ast.List):
            return [self.resolve(item, depth + 1) for item in node.elts]
        return self.resolve(node, depth + 1)


def _literal_value(node: ast.expr) -> Any:
    """A ``Literal[...]`` argument: a constant, a negative number, or a nested ``Literal``."""
    match node:
        case ast.Constant(value=value) if isinstance(value, int | str | bytes | bool) or value is None:
            return value
        case ast.UnaryOp(op=ast.USub(), operand=ast.Constant(value=int() as number)) if not isinstance(
            number, bool
        ):
            return -number
    raise _Unresolvable


def dotted_name(node: ast.expr) -> str | None:
    """``a.b.c`` for a chain of attribute accesses on a name, else None."""
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    parts.append(node.id)
    return ".".join(reversed(parts))


def _describe(node: ast.AST) -> str:
    try:
        text = ast.unparse(node)
    except (ValueError, RecursionError):
        text = type(node).__name__
    return text if len(text) <= 80 else text[:77] + "..."


def analyze_annotation(node_or_source: ast.expr | str) -> ResolvedAnnotation:
    """Resolve an annotation (AST node or source text) and report the parts that became ``Any``."""
    resolver = _Resolver()
    try:
        if isinstance(node_or_source, str):
            value = resolver.resolve_string(node_or_source, 0)
        else:
            value = resolver.resolve(node_or_source)
    except RecursionError:
        value = resolver.unknown("annotation nested too deeply")
    return ResolvedAnnotation(value=value, unresolved=tuple(resolver.unresolved))


def resolve_annotation(node_or_source: ast.expr | str) -> Any:
    """The typing object for an annotation, without evaluating it; unknown parts become ``Any``."""
    return analyze_annotation(node_or_source).value


#: annotation origins the generators treat alike (shared by the mutation and Hypothesis engines)
SEQUENCE_ORIGINS = frozenset(
    {
        list,
        collections.abc.Sequence,
        collections.abc.MutableSequence,
        collections.abc.Iterable,
        collections.abc.Collection,
        collections.abc.Reversible,
    }
)
SET_ORIGINS = frozenset({set, collections.abc.Set, collections.abc.MutableSet})
MAPPING_ORIGINS = frozenset({dict, collections.abc.Mapping, collections.abc.MutableMapping})
UNION_ORIGINS = (typing.Union, types.UnionType)
