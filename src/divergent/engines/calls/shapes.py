"""Type shapes: what an annotation (or a runtime value) says a value looks like, and the values
the generators reach for first.

A :class:`Shape` is an annotation reduced to a family (int, str, list, dict, union, ...) and its
arguments; the mutation engine follows it to change a value without changing its type, and builds
the simplest value of one (:func:`minimal_value`). The boundary and special-value tables are shared
with the Hypothesis engine.
"""

from __future__ import annotations

import functools
import math
import typing
from dataclasses import dataclass
from typing import Any

from divergent.annotations import MAPPING_ORIGINS, SEQUENCE_ORIGINS, SET_ORIGINS, UNION_ORIGINS

__all__ = [
    "ANY_SHAPE",
    "FLOAT_SPECIALS",
    "INT_BOUNDARIES",
    "NEAR_POWERS",
    "NONE_TYPE",
    "RUN_LENGTHS",
    "TRICKY_CHARACTERS",
    "CannotGenerate",
    "Shape",
    "describe_annotation",
    "fits",
    "minimal_value",
    "runtime_shape",
    "shape_of",
]


#: ints where fixed-width arithmetic, parsing and off-by-one bugs live
INT_BOUNDARIES: tuple[int, ...] = (
    0, 1, -1, 2, -2, 7, 8, 10, 16, 100, 127, 128, -128, -129, 255, 256, 1000, 1024,
    65535, 65536, 2**31 - 1, 2**31, -(2**31), -(2**31) - 1, 2**32 - 1, 2**32,
    2**53, 2**53 + 1, 2**63 - 1, 2**63, -(2**63), -(2**63) - 1, 2**64 - 1, 2**64,
    2**1024, -(2**1024),  # beyond the float range: int(math.sqrt(n)) and float(n) overflow here
)  # fmt: skip


def _near_powers() -> tuple[int, ...]:
    """Values next to powers of two (to 2**128) and of ten (to 10**30), and their negatives: where
    fixed widths wrap, digit counts change and thresholds sit."""
    values: dict[int, None] = {}
    for base in ([2**k for k in range(1, 129)] + [10**k for k in range(1, 31)]):
        for value in (base - 1, base, base + 1):
            values[value] = None
            values[-value] = None
    return tuple(values)


#: ints next to powers of two and ten, positive and negative (drawn by size: small ones first)
NEAR_POWERS: tuple[int, ...] = tuple(sorted(_near_powers(), key=lambda value: (abs(value), value < 0)))
#: run lengths for strings and lists made of one repeated element (buffers, limits, quadratic code)
RUN_LENGTHS: tuple[int, ...] = (10, 15, 16, 17, 20, 31, 32, 33, 50, 63, 64, 65, 99, 100)
#: floats that break comparisons, rounding and formatting
FLOAT_SPECIALS: tuple[float, ...] = (
    0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 0.1, 1e-9, 1e16, 2.0**53, 1.5, 2.5,
    math.nan, math.inf, -math.inf,
    5e-324, 2.2250738585072014e-308, 1.7976931348623157e308, -1.7976931348623157e308,
)  # fmt: skip
#: characters whose case mapping, width, digit value or normalisation surprise string code
TRICKY_CHARACTERS = (
    "ß", "İ", "ı", "ﬁ", "Σ", "ς", "ǅ", "K", "é", "\u0301", "\u00a0", "\u200b", "\u2028",
    "٣", "²", "½", "\x00", "😀", "\t", "\n", "\r", " ", "0", "9",
)  # fmt: skip
#: the type of None (an annotation written ``None`` means it)
NONE_TYPE = type(None)


@dataclass(frozen=True)
class Shape:
    """An annotation reduced to what generating and mutating a value of it needs."""

    #: one of any, none, bool, int, float, complex, str, bytes, bytearray, list, set, frozenset,
    #: tuple (fixed length), tuple-var, dict, union, literal, opaque
    family: str
    #: list/set/frozenset/tuple-var: (element,); dict: (key, value); tuple: the items' annotations;
    #: union: the members; literal: the values; opaque: (the annotation,)
    args: tuple[Any, ...] = ()


#: the shape of an unannotated parameter (or of ``Any``, ``object``, a type variable)
ANY_SHAPE = Shape("any")
_SCALAR_FAMILIES = {
    NONE_TYPE: "none",
    bool: "bool",
    int: "int",
    float: "float",
    complex: "complex",
    str: "str",
    bytes: "bytes",
    bytearray: "bytearray",
}


def shape_of(annotation: Any) -> Shape:
    """The shape of an annotation (cached: the mutator asks for it on every mutation)."""
    try:
        return _shape_cached(annotation)
    except TypeError:  # unhashable annotation
        return _shape_uncached(annotation)


@functools.lru_cache(maxsize=1024)
def _shape_cached(annotation: Any) -> Shape:
    return _shape_uncached(annotation)


def _shape_uncached(annotation: Any) -> Shape:
    if (
        annotation is None
        or annotation is typing.Any
        or annotation is object
        or isinstance(annotation, typing.TypeVar)
    ):
        return ANY_SHAPE
    if hasattr(annotation, "__supertype__"):  # typing.NewType
        return shape_of(annotation.__supertype__)
    if isinstance(annotation, type) and annotation in _SCALAR_FAMILIES:
        return Shape(_SCALAR_FAMILIES[annotation])
    origin = typing.get_origin(annotation)
    args = typing.get_args(annotation)
    if origin is typing.Annotated:
        return shape_of(args[0])
    if origin in UNION_ORIGINS:
        return Shape("union", args)
    if origin is typing.Literal:
        return Shape("literal", args)
    if annotation in (list, set, frozenset, dict, tuple):
        origin, args = annotation, ()
    if origin in SEQUENCE_ORIGINS:
        return Shape("list", (args[0] if args else Any,))
    if origin in SET_ORIGINS:
        return Shape("set", (args[0] if args else Any,))
    if origin is frozenset:
        return Shape("frozenset", (args[0] if args else Any,))
    if origin in MAPPING_ORIGINS:
        return Shape("dict", args if len(args) == 2 else (Any, Any))
    if origin is tuple:
        if len(args) == 2 and args[1] is Ellipsis:
            return Shape("tuple-var", (args[0],))
        if annotation is tuple or annotation is typing.Tuple:  # noqa: UP006 - the bare alias itself
            return Shape("tuple-var", (Any,))
        return Shape("tuple", tuple(a for a in args if a != ()))
    return Shape("opaque", (annotation,))


def runtime_shape(value: Any) -> Shape:
    """The shape a value shows by its exact type (subclasses are the user's objects: opaque)."""
    kind = type(value)
    if kind in _SCALAR_FAMILIES:
        return Shape(_SCALAR_FAMILIES[kind])
    if kind is list:
        return Shape("list", (Any,))
    if kind is tuple:
        return Shape("tuple-var", (Any,))
    if kind is set:
        return Shape("set", (Any,))
    if kind is frozenset:
        return Shape("frozenset", (Any,))
    if kind is dict:
        return Shape("dict", (Any, Any))
    return Shape("opaque", (kind,))


def fits(value: Any, shape: Shape) -> bool:
    """A shallow check that ``value`` has the kind of ``shape`` (the judge does the full check)."""
    family = shape.family
    kind = type(value)
    if family == "any":
        return True
    if family == "int":
        return isinstance(value, int) and kind is not bool
    if family == "float":
        return isinstance(value, float | int) and kind is not bool
    if family == "complex":
        return isinstance(value, complex | float | int) and kind is not bool
    if family in ("list", "tuple-var"):
        return kind in (list, tuple) if family == "list" else kind is tuple
    if family == "tuple":
        return kind is tuple and len(value) == len(shape.args)
    if family in ("set", "frozenset"):
        return kind in (set, frozenset)
    if family == "dict":
        return kind is dict
    if family == "union":
        return any(fits(value, shape_of(member)) for member in shape.args)
    if family == "literal":
        return any(type(value) is type(v) and value == v for v in shape.args)
    if family == "opaque":
        target = shape.args[0]
        return isinstance(target, type) and isinstance(value, target)
    return kind is {"none": NONE_TYPE, "bool": bool, "str": str, "bytes": bytes, "bytearray": bytearray}.get(
        family, object
    )


class CannotGenerate(Exception):
    """No value of this annotation can be built here (a user class, a callable, ...)."""


def minimal_value(annotation: Any, depth: int = 0) -> Any:
    """The simplest value of an annotation: 0, "", [], (0, ""), ..."""
    shape = shape_of(annotation)
    family = shape.family
    simplest = {
        "any": 0, "none": None, "bool": False, "int": 0, "float": 0.0, "complex": 0j, "str": "",
        "bytes": b"", "list": [], "tuple-var": (), "dict": {},
    }  # fmt: skip
    if family in simplest:
        value = simplest[family]
        return type(value)() if family in ("list", "dict") else value  # fresh containers
    if family == "bytearray":
        return bytearray()
    if family == "set":
        return set()
    if family == "frozenset":
        return frozenset()
    if family == "tuple":
        return tuple(minimal_value(item, depth + 1) for item in shape.args)
    if family == "literal":
        return shape.args[0]
    if family == "union":
        # Prefer a real value over None: Optional[int] starts at 0.
        members = sorted(shape.args, key=lambda member: member is NONE_TYPE)
        for member in members:
            try:
                return minimal_value(member, depth + 1)
            except CannotGenerate:
                continue
    raise CannotGenerate(f"cannot build a value of type {describe_annotation(annotation)}")


def describe_annotation(annotation: Any) -> str:
    """An annotation as messages name it: ``int``, ``MyClass``, ``list[int]``."""
    return getattr(annotation, "__qualname__", None) or repr(annotation)
