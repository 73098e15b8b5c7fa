"""Type-aware mutation of a growing pool of inputs (DiffTrust Table 6, in the manner of EvalPlus).

The pool starts from the seeds (or, without seeds, from a minimal value per annotated parameter)
and grows with feedback: an input that showed a behaviour not seen before, or split the
implementations, becomes a parent. Each child is a parent with one to three mutations stacked.

Mutations follow the parameter's annotation when there is one, otherwise the shape its seed values
show (:func:`~divergent.engines.seeds.infer_annotation`), and fall back to the value's runtime type:

==========  ================================================================================
int         ±1, ±10, random, harvested constants and their neighbours, boundaries, 0/±1, negate
float       ±1, ±10, ×2, /2, negate, next float, random, specials (nan, ±inf, -0.0, tiny...), harvested
bool        flip
str/bytes   insert/delete/replace a char (ASCII and tricky Unicode), truncate, extend and duplicate a
            substring, swap case, harvested strings (whole or spliced in), empty
list/tuple  insert a random or dummy element, delete, swap, duplicate, mutate an element, sort,
            reverse, empty (fixed-length tuples: mutate an element only)
set         insert a random or dummy element, delete, mutate an element, empty
dict        insert, delete, duplicate an entry, mutate a key or a value, empty
Optional    to None, and from None to a value; other unions: switch member; Literal: another value
==========  ================================================================================

User-defined objects are left unchanged. Every child is checked against the preconditions
(:func:`divergent.judge.conforms` and the user's requirement) before it is proposed.
"""

from __future__ import annotations

import bisect
import copy
import functools
import itertools
import math
import string
import typing
from collections import Counter, deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from random import Random
from typing import Any

from divergent import judge
from divergent.annotations import MAPPING_ORIGINS, SEQUENCE_ORIGINS, SET_ORIGINS, UNION_ORIGINS
from divergent.comparison import behaviour_fingerprint
from divergent.engines.base import Engine, EngineContext
from divergent.engines.constants import Constants
from divergent.engines.seeds import infer_annotation, parameter_values, satisfies_requirement
from divergent.engines.settings import MutationOperators
from divergent.errors import EngineCannotProceed, InvalidArgument
from divergent.model import Input, Observation, Parameter, ParameterKind

__all__ = [
    "FLOAT_SPECIALS",
    "INT_BOUNDARIES",
    "TRICKY_CHARACTERS",
    "MutationEngine",
]

#: the basic type-aware mutations of the incoherence paper's Table 6 (EvalPlus-style): what its
#: Gen(d) used; ``EngineSettings(mutation_operators="table6")`` restricts the engine to them
TABLE6_OPERATORS = frozenset({
    "plus-minus-one", "plus-minus-ten", "random-number", "flip-bool", "insert-char", "delete-char",
    "replace-char", "truncate-substring", "extend-substring", "duplicate-substring",
    "insert-random-element", "insert-dummy-element", "swap-elements", "delete-element", "duplicate-element",
    "duplicate-entry", "insert-entry", "delete-entry", "mutate-element", "mutate-key", "mutate-value",
})  # fmt: skip

#: ints where fixed-width arithmetic, parsing and off-by-one bugs live
INT_BOUNDARIES: tuple[int, ...] = (
    0, 1, -1, 2, -2, 7, 8, 10, 16, 100, 127, 128, -128, -129, 255, 256, 1000, 1024,
    65535, 65536, 2**31 - 1, 2**31, -(2**31), -(2**31) - 1, 2**32 - 1, 2**32,
    2**53, 2**53 + 1, 2**63 - 1, 2**63, -(2**63), -(2**63) - 1, 2**64 - 1, 2**64,
    2**1024, -(2**1024),  # beyond the float range: int(math.sqrt(n)) and float(n) overflow here
)  # fmt: skip
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
_ASCII = string.printable
#: attempts in a row that yield nothing new (duplicate or not meeting the preconditions) before giving up
_MAX_FRUITLESS_ATTEMPTS = 3000
_MAX_POOL = 5000
_MAX_FAVOURED = 256
_MAX_RECENT = 1000
#: an operator whose children are all duplicates still runs this often, relative to a fresh one
_MIN_OPERATOR_WEIGHT = 0.05
#: containers are generated empty past this depth, so recursive annotations terminate
_MAX_DEPTH = 4
_NONE_TYPE = type(None)


# ---------------------------------------------------------------------------------------------
# Shapes: what an annotation (or a runtime value) says a value looks like.


@dataclass(frozen=True)
class _Shape:
    #: one of any, none, bool, int, float, complex, str, bytes, bytearray, list, set, frozenset,
    #: tuple (fixed length), tuple-var, dict, union, literal, opaque
    family: str
    #: list/set/frozenset/tuple-var: (element,); dict: (key, value); tuple: the items' annotations;
    #: union: the members; literal: the values; opaque: (the annotation,)
    args: tuple[Any, ...] = ()


_ANY = _Shape("any")
_SCALAR_FAMILIES = {
    _NONE_TYPE: "none",
    bool: "bool",
    int: "int",
    float: "float",
    complex: "complex",
    str: "str",
    bytes: "bytes",
    bytearray: "bytearray",
}


def _shape(annotation: Any) -> _Shape:
    try:
        return _shape_cached(annotation)
    except TypeError:  # unhashable annotation
        return _shape_uncached(annotation)


@functools.lru_cache(maxsize=1024)
def _shape_cached(annotation: Any) -> _Shape:
    return _shape_uncached(annotation)


def _shape_uncached(annotation: Any) -> _Shape:
    if (
        annotation is None
        or annotation is typing.Any
        or annotation is object
        or isinstance(annotation, typing.TypeVar)
    ):
        return _ANY
    if hasattr(annotation, "__supertype__"):  # typing.NewType
        return _shape(annotation.__supertype__)
    if isinstance(annotation, type) and annotation in _SCALAR_FAMILIES:
        return _Shape(_SCALAR_FAMILIES[annotation])
    origin = typing.get_origin(annotation)
    args = typing.get_args(annotation)
    if origin is typing.Annotated:
        return _shape(args[0])
    if origin in UNION_ORIGINS:
        return _Shape("union", args)
    if origin is typing.Literal:
        return _Shape("literal", args)
    if annotation in (list, set, frozenset, dict, tuple):
        origin, args = annotation, ()
    if origin in SEQUENCE_ORIGINS:
        return _Shape("list", (args[0] if args else Any,))
    if origin in SET_ORIGINS:
        return _Shape("set", (args[0] if args else Any,))
    if origin is frozenset:
        return _Shape("frozenset", (args[0] if args else Any,))
    if origin in MAPPING_ORIGINS:
        return _Shape("dict", args if len(args) == 2 else (Any, Any))
    if origin is tuple:
        if len(args) == 2 and args[1] is Ellipsis:
            return _Shape("tuple-var", (args[0],))
        if annotation is tuple or annotation is typing.Tuple:  # noqa: UP006 - the bare alias itself
            return _Shape("tuple-var", (Any,))
        return _Shape("tuple", tuple(a for a in args if a != ()))
    return _Shape("opaque", (annotation,))


def _runtime_shape(value: Any) -> _Shape:
    """The shape a value shows by its exact type (subclasses are the user's objects: opaque)."""
    kind = type(value)
    if kind in _SCALAR_FAMILIES:
        return _Shape(_SCALAR_FAMILIES[kind])
    if kind is list:
        return _Shape("list", (Any,))
    if kind is tuple:
        return _Shape("tuple-var", (Any,))
    if kind is set:
        return _Shape("set", (Any,))
    if kind is frozenset:
        return _Shape("frozenset", (Any,))
    if kind is dict:
        return _Shape("dict", (Any, Any))
    return _Shape("opaque", (kind,))


def _fits(value: Any, shape: _Shape) -> bool:
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
        return any(_fits(value, _shape(member)) for member in shape.args)
    if family == "literal":
        return any(type(value) is type(v) and value == v for v in shape.args)
    if family == "opaque":
        target = shape.args[0]
        return isinstance(target, type) and isinstance(value, target)
    return kind is {"none": _NONE_TYPE, "bool": bool, "str": str, "bytes": bytes, "bytearray": bytearray}.get(
        family, object
    )


class _CannotGenerate(Exception):
    """No value of this annotation can be built here (a user class, a callable, ...)."""


def _minimal(annotation: Any, depth: int = 0) -> Any:
    """The simplest value of an annotation: 0, "", [], (0, ""), ..."""
    shape = _shape(annotation)
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
        return tuple(_minimal(item, depth + 1) for item in shape.args)
    if family == "literal":
        return shape.args[0]
    if family == "union":
        # Prefer a real value over None: Optional[int] starts at 0.
        members = sorted(shape.args, key=lambda member: member is _NONE_TYPE)
        for member in members:
            try:
                return _minimal(member, depth + 1)
            except _CannotGenerate:
                continue
    raise _CannotGenerate(f"cannot build a value of type {_describe(annotation)}")


def _describe(annotation: Any) -> str:
    return getattr(annotation, "__qualname__", None) or repr(annotation)


# ---------------------------------------------------------------------------------------------
# The mutator: random, type-aware edits of single values.


class _Mutator:
    """Type-aware value mutations and generation, drawing from one random generator."""

    def __init__(self, rng: Random, constants: Constants, counts: Counter[str]) -> None:
        self.rng = rng
        self.constants = constants
        self.counts = counts
        #: per operator, how many children it took part in were new and met the preconditions
        self.successes: Counter[str] = Counter()
        #: the operators applied to the child being built
        self.applied: list[str] = []
        #: when set, only these operators are used (where a value's type has any of them)
        self.allowed: frozenset[str] | None = None
        self._by_family: dict[str, Callable[[Any, _Shape, int], Any]] = {
            family: getattr(self, "_mutate_" + family.replace("-", "_"))
            for family in (
                "none", "opaque", "bool", "int", "float", "complex", "str", "bytes", "bytearray",
                "list", "tuple-var", "tuple", "set", "frozenset", "dict",
            )
        }  # fmt: skip
        #: (family, operators) → [qualified names, cumulative weights, picks left before recomputing]
        self._weights: dict[tuple[str, tuple[str, ...]], list[Any]] = {}
        self.neighbourhood = constants.int_neighbourhood()
        floats: dict[float, None] = dict.fromkeys(constants.floats)
        for value in constants.ints:
            try:
                floats[float(value)] = None  # `if x > 100` compares a float parameter to an int
            except OverflowError:
                continue
        self.harvested_floats = tuple(floats)

    @property
    def table6(self) -> bool:
        """Restricted to the incoherence paper's Table 6 (Gen(d)), not searching."""
        return self.allowed is not None

    def _record(self, operator: str) -> None:
        self.counts[operator] += 1
        self.applied.append(operator)

    def credit(self, operators: Sequence[str]) -> None:
        """The child these operators made was new and met the preconditions."""
        for operator in operators:
            self.successes[operator] += 1

    def _pick(self, family: str, operators: Sequence[str]) -> str:
        """One of ``operators``, favouring those whose children were new (saturated ones fade, never vanish)."""
        if self.table6:
            # A fixed operator set (the incoherence paper's Table 6), when one applies, picked
            # uniformly: Gen(d) is a fixed distribution, not a search that learns what pays.
            operators = [o for o in operators if o in self.allowed] or list(operators)
            operator = self.rng.choice(operators)
            self._record(f"{family}:{operator}")
            return operator
        key = (family, tuple(operators))
        cached = self._weights.get(key)
        if cached is None or cached[2] <= 0:
            # Success rates move slowly: recomputing the weights every few dozen picks is enough.
            names = tuple(f"{family}:{operator}" for operator in operators)
            successes, counts = self.successes, self.counts
            weights = [
                max(_MIN_OPERATOR_WEIGHT, (successes.get(name, 0) + 1) / (counts.get(name, 0) + 2))
                for name in names
            ]
            cached = [names, list(itertools.accumulate(weights)), 32]
            self._weights[key] = cached
        cached[2] -= 1
        names, cumulative = cached[0], cached[1]
        chosen = bisect.bisect(cumulative, self.rng.random() * cumulative[-1])
        self._record(names[chosen])
        return operators[chosen]

    # -- entry points ----------------------------------------------------------------------

    def mutate(self, value: Any, annotation: Any, depth: int = 0) -> Any:
        """A value of the same annotation as ``value``, changed by one operator (maybe unchanged)."""
        shape = _shape(annotation)
        if shape.family == "union":
            return self._mutate_union(value, shape, depth)
        if shape.family == "literal":
            others = [v for v in shape.args if not (type(v) is type(value) and v == value)]
            self._record("literal:other-value")
            return self.rng.choice(others) if others else value
        if shape.family == "any" or not _fits(value, shape):
            # Unannotated (or a value the annotation does not describe): follow the runtime type.
            shape = _runtime_shape(value)
        mutate_family = self._by_family[shape.family]
        for _ in range(3):
            try:
                return mutate_family(value, shape, depth)
            except _CannotGenerate:
                continue  # an operator that needed a value it cannot build: try another
        return value

    def generate(self, annotation: Any, depth: int = 0) -> Any:
        """A random value of ``annotation``, biased toward small values, boundaries and constants."""
        shape = _shape(annotation)
        family = shape.family
        rng = self.rng
        if family == "any":
            return self.generate(rng.choice((int, str, float, bool, None)), depth)
        if family == "none":
            return None
        if family == "bool":
            return rng.random() < 0.5
        if family == "int":
            return self._random_int()
        if family == "float":
            return self._random_float()
        if family == "complex":
            return complex(self._random_float(), self._random_float())
        if family == "str":
            # (Gen(d), with the Table 6 operators only, draws no harvested constants)
            if not self.table6 and self.constants.strings and rng.random() < 0.25:
                return rng.choice(self.constants.strings)
            return "".join(self._random_char() for _ in range(rng.randint(0, 8)))
        if family in ("bytes", "bytearray"):
            if not self.table6 and self.constants.bytes_ and rng.random() < 0.25:
                blob = rng.choice(self.constants.bytes_)
            else:
                blob = bytes(rng.randrange(256) for _ in range(rng.randint(0, 8)))
            return bytearray(blob) if family == "bytearray" else blob
        if family == "literal":
            return rng.choice(shape.args)
        if family == "union":
            return self.generate(rng.choice(shape.args), depth)
        if family == "tuple":
            return tuple(self.generate(item, depth + 1) for item in shape.args)
        size = 0 if depth >= _MAX_DEPTH else rng.choice((0, 1, 1, 2, 2, 3, 4))
        if family in ("list", "tuple-var"):
            items = [self.generate(shape.args[0], depth + 1) for _ in range(size)]
            return items if family == "list" else tuple(items)
        if family in ("set", "frozenset"):
            try:
                items = {self.generate(shape.args[0], depth + 1) for _ in range(size)}
            except TypeError:  # unhashable elements
                items = set()
            return items if family == "set" else frozenset(items)
        if family == "dict":
            try:
                return {
                    self.generate(shape.args[0], depth + 1): self.generate(shape.args[1], depth + 1)
                    for _ in range(size)
                }
            except TypeError:
                return {}
        raise _CannotGenerate(f"cannot build a value of type {_describe(annotation)}")

    # -- scalars ---------------------------------------------------------------------------

    def _random_int(self) -> int:
        rng = self.rng
        if self.table6:
            return rng.randint(-100, 100)  # Table 6: a small random number (the operator adds it)
        roll = rng.random()
        if roll < 0.25:
            return rng.randint(-10, 10)
        if roll < 0.4 and self.neighbourhood:
            return rng.choice(self.neighbourhood)
        if roll < 0.5:
            return rng.choice(INT_BOUNDARIES)
        if roll < 0.75:
            return rng.randint(-1000, 1000)
        # Log-uniform magnitude: every size from a few bits to 64 is as likely.
        magnitude = rng.getrandbits(rng.randint(1, 64))
        return -magnitude if rng.random() < 0.5 else magnitude

    def _random_float(self) -> float:
        rng = self.rng
        if self.table6:
            return rng.uniform(-100.0, 100.0)  # Table 6: like its ints, no special values
        roll = rng.random()
        if roll < 0.2 and self.harvested_floats:
            return rng.choice(self.harvested_floats)
        if roll < 0.4:
            return rng.choice(FLOAT_SPECIALS)
        if roll < 0.7:
            return float(rng.randint(-10, 10))
        return rng.uniform(-1000.0, 1000.0)

    def _random_char(self) -> str:
        if self.table6:
            return self.rng.choice(_ASCII)  # Table 6: "random ASCII"
        return self.rng.choice(TRICKY_CHARACTERS) if self.rng.random() < 0.25 else self.rng.choice(_ASCII)

    def _mutate_none(self, value: None, shape: _Shape, depth: int) -> None:
        return None

    def _mutate_opaque(self, value: Any, shape: _Shape, depth: int) -> Any:
        return value  # user-defined objects are out of scope

    def _mutate_bool(self, value: bool, shape: _Shape, depth: int) -> bool:
        self._pick("bool", ("flip-bool",))
        return not value

    def _mutate_int(self, value: int, shape: _Shape, depth: int) -> int:
        operators = ["plus-minus-one", "plus-minus-ten", "random-number", "boundary", "special-int", "negate"]
        if abs(value) > 1 and value.bit_length() <= 512:
            operators.append("square")
        if self.neighbourhood:
            operators += ["harvested-constant", "constant-neighbour"]
        rng = self.rng
        operator = self._pick("int", operators)
        if operator == "plus-minus-one":
            return value + rng.choice((1, -1))
        if operator == "plus-minus-ten":
            return value + rng.choice((10, -10))
        if operator == "random-number":
            # Table 6 *adds* a random number in Gen(d); the search jumps to one.
            return value + self._random_int() if self.table6 else self._random_int()
        if operator == "boundary":
            return rng.choice(INT_BOUNDARIES)
        if operator == "special-int":
            return rng.choice((0, 1, -1))
        if operator == "negate":
            return -value
        if operator == "square":
            # Perfect squares of big numbers: where float square roots and exact ones part ways.
            return value * value
        if operator == "harvested-constant":
            return rng.choice(self.constants.ints)
        return rng.choice(self.neighbourhood)

    def _mutate_float(self, value: float, shape: _Shape, depth: int) -> float:
        value = float(value)
        operators = [
            "plus-minus-one", "plus-minus-ten", "double", "halve", "negate", "next-float",
            "random-number", "special-float", "truncate",
        ]  # fmt: skip
        if self.harvested_floats:
            operators.append("harvested-constant")
        rng = self.rng
        operator = self._pick("float", operators)
        if operator == "plus-minus-one":
            return value + rng.choice((1.0, -1.0))
        if operator == "plus-minus-ten":
            return value + rng.choice((10.0, -10.0))
        if operator == "double":
            return value * 2
        if operator == "halve":
            return value / 2
        if operator == "negate":
            return -value
        if operator == "next-float":
            return math.nextafter(value, rng.choice((math.inf, -math.inf)))
        if operator == "random-number":
            return value + self._random_float() if self.table6 else self._random_float()
        if operator == "special-float":
            return rng.choice(FLOAT_SPECIALS)
        if operator == "truncate":
            return float(math.trunc(value)) if math.isfinite(value) else value
        return rng.choice(self.harvested_floats)

    def _mutate_complex(self, value: complex, shape: _Shape, depth: int) -> complex:
        value = complex(value)
        self._record("complex:mutate-part")
        if self.rng.random() < 0.5:
            return complex(self._mutate_float(value.real, shape, depth), value.imag)
        return complex(value.real, self._mutate_float(value.imag, shape, depth))

    # -- strings and bytes -------------------------------------------------------------------

    def _mutate_str(self, value: str, shape: _Shape, depth: int) -> str:
        return self._mutate_text(value, "str", self._random_char, self.constants.strings)

    def _mutate_bytes(self, value: bytes, shape: _Shape, depth: int) -> bytes:
        return self._mutate_text(value, "bytes", self._random_byte, self.constants.bytes_)

    def _mutate_bytearray(self, value: bytearray, shape: _Shape, depth: int) -> bytearray:
        return bytearray(
            self._mutate_text(bytes(value), "bytearray", self._random_byte, self.constants.bytes_)
        )

    def _random_byte(self) -> bytes:
        if self.rng.random() < 0.7:
            return self.rng.choice(_ASCII).encode()
        return bytes((self.rng.randrange(256),))

    def _mutate_text(self, value: Any, family: str, random_unit: Any, harvested: Sequence[Any]) -> Any:
        """Table 6's string mutations, shared by str and bytes (``random_unit`` draws one char/byte)."""
        rng = self.rng
        empty = value[:0]
        operators = ["insert-char", "extend-substring", "harvested-splice" if harvested else "insert-char"]
        if value:
            operators += [
                "delete-char", "replace-char", "truncate-substring", "duplicate-substring", "swap-case", "empty",
            ]  # fmt: skip
            if family == "str":
                operators += ["upper-case", "lower-case", "case-fold"]
        if harvested:
            operators.append("harvested-string")
        operator = self._pick(family, operators)
        length = len(value)
        if operator == "insert-char":
            at = rng.randint(0, length)
            return value[:at] + random_unit() + value[at:]
        if operator == "extend-substring":
            at = rng.randint(0, length)
            return value[:at] + empty.join(random_unit() for _ in range(rng.randint(2, 6))) + value[at:]
        if operator == "harvested-splice":
            at = rng.randint(0, length)
            return value[:at] + rng.choice(harvested) + value[at:]
        if operator == "harvested-string":
            return rng.choice(harvested)
        if operator == "empty":
            return empty
        if operator == "swap-case":
            return value.swapcase()
        # Whole-string case mappings: where lower(), upper() and casefold() disagree (ß, İ, ﬁ, Σ).
        if operator == "upper-case":
            return value.upper()
        if operator == "lower-case":
            return value.lower()
        if operator == "case-fold":
            return value.casefold()
        at = rng.randrange(length)
        if operator == "delete-char":
            return value[:at] + value[at + 1 :]
        if operator == "replace-char":
            # Table 6 replaces with a random ASCII character; for str, sometimes a tricky one.
            unit = rng.choice(_ASCII) if family == "str" and rng.random() < 0.7 else random_unit()
            return value[:at] + unit + value[at + 1 :]
        end = rng.randint(at + 1, length)
        if operator == "truncate-substring":
            return value[:at] + value[end:]
        return value[:end] + value[at:end] + value[end:]  # duplicate-substring

    # -- containers --------------------------------------------------------------------------

    def _new_element(self, items: Sequence[Any], element: Any, depth: int) -> Any:
        """A random element: generated from the annotation, or (unannotated) a mutated copy of one."""
        if _shape(element).family == "any" and items:
            return self.mutate(copy.deepcopy(self.rng.choice(items)), Any, depth + 1)
        return self.generate(element, depth + 1)

    def _dummy_element(self, items: Sequence[Any], element: Any) -> Any:
        """The simplest element: of the annotation, or of the kind the existing elements have."""
        if _shape(element).family == "any" and items:
            return _minimal(type(self.rng.choice(items)))
        return _minimal(element)

    def _mutate_list(self, value: Sequence[Any], shape: _Shape, depth: int) -> Any:
        return self._mutate_sequence(value, shape.args[0], depth, "list" if type(value) is list else "tuple")

    def _mutate_tuple_var(self, value: tuple[Any, ...], shape: _Shape, depth: int) -> tuple[Any, ...]:
        return self._mutate_sequence(value, shape.args[0], depth, "tuple")

    def _mutate_sequence(self, value: Sequence[Any], element: Any, depth: int, family: str) -> Any:
        rng = self.rng
        items = list(value)
        operators = ["insert-random-element", "insert-dummy-element"]
        if items:
            operators += ["delete-element", "duplicate-element", "mutate-element", "mutate-element", "empty"]
        if len(items) >= 2:
            operators += ["swap-elements", "sort-elements", "reverse-elements"]
        operator = self._pick(family, operators)
        if operator == "insert-random-element":
            items.insert(rng.randint(0, len(items)), self._new_element(items, element, depth))
        elif operator == "insert-dummy-element":
            items.insert(rng.randint(0, len(items)), self._dummy_element(items, element))
        elif operator == "delete-element":
            del items[rng.randrange(len(items))]
        elif operator == "duplicate-element":
            # A copy, not the same object twice: an implementation that mutates one must not change both.
            items.insert(rng.randint(0, len(items)), copy.deepcopy(rng.choice(items)))
        elif operator == "mutate-element":
            at = rng.randrange(len(items))
            items[at] = self.mutate(items[at], element, depth + 1)
        elif operator == "empty":
            items = []
        elif operator == "swap-elements":
            i, j = rng.sample(range(len(items)), 2)
            items[i], items[j] = items[j], items[i]
        elif operator == "sort-elements":
            try:
                items.sort()
            except TypeError:  # incomparable elements
                items.sort(key=repr)
        else:
            items.reverse()
        return items if type(value) is list else tuple(items)

    def _mutate_tuple(self, value: tuple[Any, ...], shape: _Shape, depth: int) -> tuple[Any, ...]:
        if not value:
            return value
        self._record("tuple:mutate-element")
        items = list(value)
        at = self.rng.randrange(len(items))
        items[at] = self.mutate(items[at], shape.args[at], depth + 1)
        return tuple(items)

    def _mutate_set(self, value: Any, shape: _Shape, depth: int) -> Any:
        family = "set" if type(value) is set else "frozenset"
        rng = self.rng
        element = shape.args[0]
        # Sorted by repr: set order depends on string hashing, and the engine must be reproducible.
        items = sorted(value, key=repr)
        operators = ["insert-random-element", "insert-dummy-element"]
        if items:
            operators += ["delete-element", "mutate-element", "empty"]
        operator = self._pick(family, operators)
        result = set(items)
        try:
            if operator == "insert-random-element":
                result.add(self._new_element(items, element, depth))
            elif operator == "insert-dummy-element":
                result.add(self._dummy_element(items, element))
            elif operator == "delete-element":
                result.discard(rng.choice(items))
            elif operator == "mutate-element":
                chosen = rng.choice(items)
                result.discard(chosen)
                result.add(self.mutate(chosen, element, depth + 1))
            else:
                result = set()
        except TypeError:  # an unhashable element
            return value
        return result if family == "set" else frozenset(result)

    def _mutate_dict(self, value: dict[Any, Any], shape: _Shape, depth: int) -> dict[Any, Any]:
        rng = self.rng
        key_annotation, value_annotation = shape.args
        entries = list(value.items())
        keys = [key for key, _ in entries]
        values = [item for _, item in entries]
        operators = ["insert-entry"]
        if entries:
            operators += [
                "delete-entry",
                "duplicate-entry",
                "mutate-value",
                "mutate-value",
                "mutate-key",
                "empty",
            ]
        operator = self._pick("dict", operators)
        result = dict(entries)
        try:
            if operator == "insert-entry":
                result[self._new_element(keys, key_annotation, depth)] = self._new_element(
                    values, value_annotation, depth
                )
            elif operator == "delete-entry":
                del result[rng.choice(keys)]
            elif operator == "duplicate-entry":
                # The same value under a second key (a copy, so the two stay independent).
                result[self._new_element(keys, key_annotation, depth)] = copy.deepcopy(rng.choice(values))
            elif operator == "mutate-value":
                key = rng.choice(keys)
                result[key] = self.mutate(result[key], value_annotation, depth + 1)
            elif operator == "mutate-key":
                at = rng.randrange(len(entries))
                new_key = self.mutate(keys[at], key_annotation, depth + 1)
                # Rebuilt in order so the renamed entry keeps its place.
                result = {(new_key if i == at else k): v for i, (k, v) in enumerate(entries)}
            else:
                result = {}
        except TypeError:  # an unhashable key
            return value
        return result

    def _mutate_frozenset(self, value: frozenset[Any], shape: _Shape, depth: int) -> frozenset[Any]:
        return self._mutate_set(value, shape, depth)

    # -- unions ------------------------------------------------------------------------------

    def _mutate_union(self, value: Any, shape: _Shape, depth: int) -> Any:
        rng = self.rng
        members = shape.args
        others = [m for m in members if m is not _NONE_TYPE]
        optional = len(others) < len(members)
        if value is None and optional and others:
            self._record("optional:from-none")
            member = rng.choice(others)
            return _minimal(member) if rng.random() < 0.3 else self.generate(member, depth + 1)
        roll = rng.random()
        if optional and roll < 0.06:
            self._record("optional:to-none")
            return None
        fitting = [m for m in others if _fits(value, _shape(m))]
        unfitting = [m for m in others if m not in fitting] if len(fitting) < len(others) else []
        if not fitting or (unfitting and roll > 0.9):
            if not others:
                return value
            self._record("union:switch-member")
            return self.generate(rng.choice(unfitting or others), depth + 1)
        if len(fitting) > 1:
            # Prefer the member of the value's own kind: 3 under `float | int` mutates as an int.
            runtime_family = _runtime_shape(value).family
            fitting = [m for m in fitting if _shape(m).family == runtime_family] or fitting
        return self.mutate(value, fitting[0], depth)


# ---------------------------------------------------------------------------------------------
# Feedback.


# ---------------------------------------------------------------------------------------------
# The engine.

#: types whose repr identifies the value exactly (floats included: repr tells -0.0 from 0.0)
_EXACT_REPR_TYPES = (type(None), bool, int, float, complex, str, bytes)


def _quick_key(input: Input) -> str | None:
    """A cheap identity for inputs made only of scalars (None for anything else: use the key)."""
    for value in input.args:
        if type(value) not in _EXACT_REPR_TYPES:
            return None
    for value in input.kwargs.values():
        if type(value) not in _EXACT_REPR_TYPES:
            return None
    return repr((input.args, sorted(input.kwargs.items())))


class MutationEngine(Engine):
    """Type-aware mutation of a pool of inputs that grows with the inputs that show new behaviour."""

    name = "mutation"

    def __init__(self, context: EngineContext) -> None:
        super().__init__(context)
        self._rng = context.rng("mutation")
        #: how often each operator ran, as "family:operator" (e.g. "str:insert-char")
        self.operator_counts: Counter[str] = Counter()
        self._mutator = _Mutator(self._rng, context.constants, self.operator_counts)
        #: Gen(d) mode (Table 6): parents drawn uniformly from everything generated so far, as
        #: EvalPlus-style type-aware mutation does; inputs then stay near the task's own tests
        #: instead of drifting away along a chain of mutants of mutants
        self._gen_children: list[Input] | None = None
        if context.settings.mutation_operators is MutationOperators.TABLE6:
            self._mutator.allowed = TABLE6_OPERATORS
            self._gen_children = []
        signature = context.signature
        self._parameters = signature.parameters
        self._positional = signature.positional
        self._var_positional = next(
            (p for p in self._parameters if p.kind is ParameterKind.VAR_POSITIONAL), None
        )
        #: keys of every input tried or known (the canonical key) and quick keys of the children tried
        self._seen: set[str] = set()
        self._tried: set[str] = set()
        self._behaviours: set[str] = set()
        self._kinds_of_behaviour: set[str] = set()
        self._pool: list[Input] = []
        #: inputs that split the implementations or first showed a new kind of outcome: parents more often
        self._favoured: deque[Input] = deque(maxlen=_MAX_FAVOURED)
        #: this engine's own latest children: parents too, so the search walks on between feedback rounds
        self._recent: deque[Input] = deque(maxlen=_MAX_RECENT)
        #: proposed before any mutation (the minimal input when there are no seeds)
        self._pending: list[Input] = []
        self._fruitless = 0
        self._problem: str | None = None

        seeds = [s for s in context.seeds if judge.conforms(s, signature)]
        for seed in seeds:
            self._seen.add(seed.key)
        self._pool.extend(seeds)
        self._seed_count = len(self._pool)
        seed_values = parameter_values(seeds, signature)
        self._annotations = {p.name: self._annotation_for(p, seed_values[p.name]) for p in self._parameters}
        if not self._pool:
            self._start_without_seeds()

    @staticmethod
    def _annotation_for(parameter: Parameter, seed_values: list[Any]) -> Any:
        if parameter.annotated:
            # An annotation written as `None` may resolve to None itself: it means NoneType.
            return _NONE_TYPE if parameter.annotation is None else parameter.annotation
        return infer_annotation(seed_values)

    def _start_without_seeds(self) -> None:
        """Without seeds, start from the minimal value of each required parameter's annotation."""
        args: list[Any] = []
        kwargs: dict[str, Any] = {}
        for parameter in self.context.signature.required:
            if not parameter.annotated:
                self._problem = (
                    f"parameter {parameter.name} has no annotation and no seeds that fit the signature"
                )
                return
            try:
                value = _minimal(self._annotations[parameter.name])
            except _CannotGenerate as error:
                self._problem = f"parameter {parameter.name}: {error} without seed inputs"
                return
            if parameter.kind is ParameterKind.KEYWORD_ONLY:
                kwargs[parameter.name] = value
            else:
                args.append(value)
        start = Input(tuple(args), kwargs, how_generated=self.name)
        self._pool.append(start)
        self._seed_count = 1
        self._pending.append(start)

    # -- proposing -------------------------------------------------------------------------

    def propose(self, n: int) -> list[Input]:
        if self._problem:
            raise EngineCannotProceed("unsupported", self._problem)
        batch: list[Input] = []
        while self._pending and len(batch) < n:
            candidate = self._pending.pop(0)
            if self._acceptable(candidate):
                batch.append(candidate)
        while len(batch) < n and self._fruitless < _MAX_FRUITLESS_ATTEMPTS:
            child = self._child()
            if self._acceptable(child):
                batch.append(child)
                self._recent.append(child)
                if self._gen_children is not None:
                    self._gen_children.append(child)
                self._mutator.credit(self._mutator.applied)
                self._fruitless = 0
            else:
                self._fruitless += 1
        if not batch and n > 0:
            raise EngineCannotProceed(
                "exhausted",
                f"{_MAX_FRUITLESS_ATTEMPTS} mutations in a row gave only inputs already tried "
                f"or not meeting the preconditions (pool of {len(self._pool)} inputs)",
            )
        return batch

    def draw(self, n: int) -> list[Input]:
        """Gen(d) as a sampling process (Table 6 mode only): ``n`` children, each of a parent drawn
        uniformly from the seeds and the earlier draws; repeats are kept.

        Why repeats: the draws then come from one input distribution that does not depend on ``n``.
        Asking for ``n`` *distinct* inputs instead stretches the distribution with ``n`` (a task
        taking one int has to reach ±n/2), which is not the distribution the paper's bounds are
        about and costs the most on the tasks whose cost grows with the int."""
        if not self._mutator.table6:
            raise InvalidArgument("draw() needs the Table 6 operators (EngineSettings(mutation_operators='table6'))")
        if self._problem:
            raise EngineCannotProceed("unsupported", self._problem)
        signature = self.context.signature
        verdicts: dict[str, bool] = {}
        batch: list[Input] = []
        rejected = 0
        while len(batch) < n:
            child = self._child()
            key = child.key
            verdict = verdicts.get(key)
            if verdict is None:
                verdict = judge.conforms(child, signature) and satisfies_requirement(self.context, child)
                verdicts[key] = verdict
            if verdict:
                batch.append(child)
                self._gen_children.append(child)
                rejected = 0
                continue
            rejected += 1
            if rejected >= _MAX_FRUITLESS_ATTEMPTS:
                raise EngineCannotProceed(
                    "exhausted", f"{_MAX_FRUITLESS_ATTEMPTS} mutations in a row did not meet the signature or preconditions"
                )
        return batch

    def _acceptable(self, candidate: Input) -> bool:
        # Most rejected children are repeats of simple values: a repr is far cheaper than the key.
        quick = _quick_key(candidate)
        if quick is not None:
            if quick in self._tried:
                return False
            self._tried.add(quick)
        key = candidate.key
        if key in self._seen:
            return False
        # Seen either way: a rejected input stays rejected, no need to judge it twice.
        self._seen.add(key)
        return judge.conforms(candidate, self.context.signature) and satisfies_requirement(
            self.context, candidate
        )

    def _parent(self) -> Input:
        if self._gen_children is not None:
            pick = self._rng.randrange(len(self._pool) + len(self._gen_children))
            return self._pool[pick] if pick < len(self._pool) else self._gen_children[pick - len(self._pool)]
        roll = self._rng.random()
        if self._favoured and roll < 0.3:
            return self._rng.choice(self._favoured)
        if roll > 0.8 or not self._recent:
            return self._rng.choice(self._pool)
        return self._rng.choice(self._recent)

    def _child(self) -> Input:
        parent = self._parent()
        self._mutator.applied = []
        args = list(parent.args)
        kwargs = dict(parent.kwargs)
        # Gen(d) (Table 6) applies one basic mutation per input; the search stacks a few.
        steps = 1 if self._mutator.table6 else self._rng.randint(1, 3)
        for _ in range(steps):
            self._mutation_step(args, kwargs)
        return Input(tuple(args), kwargs, how_generated=self.name)

    def _mutation_step(self, args: list[Any], kwargs: dict[str, Any]) -> None:
        """Mutate one argument in place in ``args``/``kwargs``, or (rarely) the shape of the call."""
        table6 = self._mutator.table6  # Table 6 changes values, not calls
        if not (args or kwargs) or (not table6 and self._rng.random() < 0.08):
            self._change_call_shape(args, kwargs)
            return
        if not table6 and len(args) > 1 and self._rng.random() < 0.1 and self._copy_across(args):
            return
        slot = self._rng.randrange(len(args) + len(kwargs))
        if slot < len(args):
            args[slot] = self._mutator.mutate(args[slot], self._annotation_at(slot), 0)
        else:
            name = list(kwargs)[slot - len(args)]
            kwargs[name] = self._mutator.mutate(kwargs[name], self._annotation_of_keyword(name), 0)

    def _copy_across(self, args: list[Any]) -> bool:
        """Copy one argument over another of the same type: functions often compare their arguments
        (``same_word(a, b)``), and equal or related arguments are where such code differs."""
        source, target = self._rng.sample(range(len(args)), 2)
        if type(args[source]) is not type(args[target]) or self._annotation_at(source) != self._annotation_at(target):
            return False
        args[target] = copy.deepcopy(args[source])
        self._mutator.applied.append("call:copy-across")
        return True

    def _annotation_at(self, index: int) -> Any:
        if index < len(self._positional):
            return self._annotations[self._positional[index].name]
        if self._var_positional is not None:
            return self._annotations[self._var_positional.name]
        return Any

    def _annotation_of_keyword(self, name: str) -> Any:
        if name in self._annotations:
            return self._annotations[name]
        var_keyword = next((p for p in self._parameters if p.kind is ParameterKind.VAR_KEYWORD), None)
        return self._annotations[var_keyword.name] if var_keyword else Any

    def _change_call_shape(self, args: list[Any], kwargs: dict[str, Any]) -> None:
        """Supply or drop an optional argument, or add or drop an extra ``*args`` item."""
        rng = self._rng
        present = set(kwargs) | {p.name for p in self._positional[: len(args)]}
        changes: list[tuple[str, Any]] = []
        for parameter in self._parameters:
            if not parameter.has_default or parameter.kind in (
                ParameterKind.VAR_POSITIONAL,
                ParameterKind.VAR_KEYWORD,
            ):
                continue
            if parameter.name in kwargs:
                changes.append(("drop-optional", parameter.name))
            elif parameter.name not in present and _shape(self._annotations[parameter.name]) != _ANY:
                # Only optional parameters whose type is known (annotated or seen in seeds) get a value.
                changes.append(("supply-optional", parameter))
        if args and len(args) <= len(self._positional) and self._positional[len(args) - 1].has_default:
            changes.append(("drop-optional", len(args) - 1))
        if self._var_positional is not None:
            if len(args) > len(self._positional):
                changes.append(("drop-vararg", None))
            elif len(args) == len(self._positional) and not (
                set(kwargs) & {p.name for p in self._positional}
            ):
                changes.append(("append-vararg", None))
        if not changes:
            return
        change, target = rng.choice(changes)
        self._mutator._record(f"call:{change}")
        try:
            if change == "drop-optional":
                if isinstance(target, int):
                    del args[target]
                else:
                    del kwargs[target]
            elif change == "supply-optional":
                value = self._mutator.generate(self._annotations[target.name])
                if target.kind is ParameterKind.POSITIONAL_ONLY:
                    if len(args) == self._positional.index(target):
                        args.append(value)
                else:
                    kwargs[target.name] = value
            elif change == "drop-vararg":
                del args[rng.randrange(len(self._positional), len(args))]
            else:
                assert self._var_positional is not None
                args.append(self._mutator.generate(self._annotations[self._var_positional.name]))
        except _CannotGenerate:
            return

    # -- feedback ----------------------------------------------------------------------------

    def observe(self, observations: Sequence[Observation]) -> None:
        signature = self.context.signature
        for observation in observations:
            input = observation.input
            self._seen.add(input.key)
            behaviour = behaviour_fingerprint(observation)
            kind_of_behaviour = behaviour_fingerprint(observation, with_values=False)
            new_behaviour = behaviour not in self._behaviours
            new_kind = kind_of_behaviour not in self._kinds_of_behaviour
            self._behaviours.add(behaviour)
            self._kinds_of_behaviour.add(kind_of_behaviour)
            if not (new_behaviour or observation.divergent) or not judge.conforms(input, signature):
                continue
            self._add_to_pool(input)
            if observation.divergent or new_kind:
                self._favoured.append(input)
            # New parents may have new children: the search is no longer fruitless.
            self._fruitless = 0

    def _add_to_pool(self, input: Input) -> None:
        if len(self._pool) < _MAX_POOL:
            self._pool.append(input)
        else:
            # Replace a random non-seed entry: the pool stays diverse and bounded.
            self._pool[self._rng.randrange(self._seed_count, _MAX_POOL)] = input
