"""The mutator: random, type-aware edits of single values (DiffTrust Table 6, in the manner of
EvalPlus), and random values of an annotation.

Mutations follow the parameter's annotation when there is one, otherwise the shape its seed values
show (:func:`~divergent.engines.calls.seeds.infer_annotation`), and fall back to the value's runtime type:

==========  ================================================================================
int         ±1, ±10, random, harvested constants and their neighbours, boundaries, 0/±1, negate,
            next to a power of two or ten (±)
float       ±1, ±10, ×2, /2, negate, next float, random, specials (nan, ±inf, -0.0, tiny...), harvested,
            a power of two or ten (or the float next to it)
bool        flip
str/bytes   insert/delete/replace a char (ASCII and tricky Unicode), truncate, extend and duplicate a
            substring, swap case, harvested strings (whole or spliced in), a run of one char (10-100), empty;
            a word added; a value shaped by the code, an edit by parts (:mod:`.string_operators`)
list/tuple  insert a random or dummy element, delete, swap, duplicate, mutate an element, sort,
            reverse, a run of one element (10-100), empty (fixed-length tuples: mutate an element only)
set         insert a random or dummy element, delete, mutate an element, empty
dict        insert, delete, duplicate an entry, mutate a key or a value, empty; a dict with the keys
            the code reads, an entry under one of them
Optional    to None, and from None to a value; other unions: switch member; Literal: another value
==========  ================================================================================

New values grow with the engine's :attr:`Mutator.size` (small first; see the mutation engine).
User-defined objects are left unchanged.
"""

from __future__ import annotations

import bisect
import copy
import itertools
import math
from collections import Counter
from collections.abc import Callable, Sequence
from random import Random
from typing import TYPE_CHECKING, Any

from divergent.engines.calls.shapes import (
    FLOAT_SPECIALS,
    NONE_TYPE,
    TRICKY_CHARACTERS,
    CannotGenerate,
    Shape,
    describe_annotation,
    fits,
    minimal_value,
    runtime_shape,
    shape_of,
)
from divergent.engines.calls.sizes import boundary_within, near_power_within, run_length_within
from divergent.engines.calls.string_operators import ASCII, mutate_text, random_byte
from divergent.engines.constants import Constants

if TYPE_CHECKING:
    from divergent.structure.inputs import ShapedInputs

__all__ = ["TABLE6_OPERATORS", "Mutator"]


#: the basic type-aware mutations of the incoherence paper's Table 6 (EvalPlus-style): what its
#: Gen(d) used; ``EngineSettings(mutation_operators="table6")`` restricts the engine to them
TABLE6_OPERATORS = frozenset({
    "plus-minus-one", "plus-minus-ten", "random-number", "flip-bool", "insert-char", "delete-char",
    "replace-char", "truncate-substring", "extend-substring", "duplicate-substring",
    "insert-random-element", "insert-dummy-element", "swap-elements", "delete-element", "duplicate-element",
    "duplicate-entry", "insert-entry", "delete-entry", "mutate-element", "mutate-key", "mutate-value",
})  # fmt: skip
#: the int operators, by (the value can be squared, there are harvested constants)
_INT_OPERATORS = {
    (squares, harvested): (
        "plus-minus-one", "plus-minus-ten", "random-number", "boundary", "special-int", "negate", "near-power",
        *(("square",) if squares else ()),
        *(("harvested-constant", "constant-neighbour") if harvested else ()),
    )
    for squares in (False, True)
    for harvested in (False, True)
}
#: an operator whose children are all duplicates still runs this often, relative to a fresh one
_MIN_OPERATOR_WEIGHT = 0.05
#: containers are generated empty past this depth, so recursive annotations terminate
_MAX_DEPTH = 4


class Mutator:
    """Type-aware value mutations and generation, drawing from one random generator."""

    def __init__(
        self, rng: Random, constants: Constants, counts: Counter[str], shaped: ShapedInputs | None = None,
    ) -> None:
        self.rng = rng
        self.constants = constants
        #: values shaped like the code expects, per parameter (None: nothing mined)
        self.shaped = shaped
        #: the parameter whose value is being mutated or generated (its shaped values apply)
        self.parameter: str | None = None
        self.counts = counts
        #: per operator, how many children it took part in were new and met the preconditions
        self.successes: Counter[str] = Counter()
        #: the operators applied to the child being built
        self.applied: list[str] = []
        #: when set (:meth:`restrict`), only these operators are used (where a value's type has any)
        self.allowed: frozenset[str] | None = None
        #: restricted to the incoherence paper's Table 6 (Gen(d)), not searching
        self.table6 = False
        #: how large new values may be, from 0 (small) to 1 (up to 128-bit ints, runs of 100): the
        #: engine grows it while inputs run fast and cuts it when they run past the time limit, so
        #: cheap small inputs come first and code that is slow on large values is still probed
        self.size = 1.0
        self._by_family: dict[str, Callable[[Any, Shape, int], Any]] = {
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

    def restrict(self, operators: frozenset[str]) -> None:
        """Only these operators from now on (the incoherence paper's Table 6)."""
        self.allowed, self.table6 = operators, True

    def record(self, operator: str) -> None:
        """Count ``operator`` (``"family:name"``) and note it among those applied to the current child."""
        self.counts[operator] += 1
        self.applied.append(operator)

    def credit(self, operators: Sequence[str]) -> None:
        """The child these operators made was new and met the preconditions."""
        for operator in operators:
            self.successes[operator] += 1

    def pick(self, family: str, operators: Sequence[str]) -> str:
        """One of ``operators``, favouring those whose children were new (saturated ones fade, never vanish)."""
        if self.table6:
            # A fixed operator set (the incoherence paper's Table 6), when one applies, picked
            # uniformly: Gen(d) is a fixed distribution, not a search that learns what pays.
            operators = [o for o in operators if o in self.allowed] or list(operators)
            operator = self.rng.choice(operators)
            self.record(f"{family}:{operator}")
            return operator
        key = (family, operators if type(operators) is tuple else tuple(operators))
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
        self.record(names[chosen])
        return operators[chosen]

    # -- entry points ----------------------------------------------------------------------

    def mutate(self, value: Any, annotation: Any, depth: int = 0) -> Any:
        """A value of the same annotation as ``value``, changed by one operator (maybe unchanged)."""
        shape = shape_of(annotation)
        if shape.family == "union":
            return self._mutate_union(value, shape, depth)
        if shape.family == "literal":
            others = [v for v in shape.args if not (type(v) is type(value) and v == value)]
            self.record("literal:other-value")
            return self.rng.choice(others) if others else value
        if shape.family == "any" or not fits(value, shape):
            # Unannotated (or a value the annotation does not describe): follow the runtime type.
            shape = runtime_shape(value)
        mutate_family = self._by_family[shape.family]
        for _ in range(3):
            try:
                return mutate_family(value, shape, depth)
            except CannotGenerate:
                continue  # an operator that needed a value it cannot build: try another
        return value

    def generate(self, annotation: Any, depth: int = 0) -> Any:
        """A random value of ``annotation``, biased toward small values, boundaries and constants."""
        shape = shape_of(annotation)
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
        if family in ("str", "dict", "bytes") and depth == 0 and not self.table6 and self.shaped and self.parameter:
            drawn = self.shaped.draw(self.parameter, rng) if rng.random() < 0.3 else None
            if drawn is not None and type(drawn[0]) is {"str": str, "dict": dict, "bytes": bytes}[family]:
                return copy.deepcopy(drawn[0])
        if family == "str":
            # (Gen(d), with the Table 6 operators only, draws no harvested constants)
            if not self.table6 and self.constants.strings and rng.random() < 0.25:
                return rng.choice(self.constants.strings)
            if not self.table6 and rng.random() < 0.05:
                return self._random_char() * run_length_within(self.rng, self.size)  # one character, repeated
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
        raise CannotGenerate(f"cannot build a value of type {describe_annotation(annotation)}")

    # -- scalars ---------------------------------------------------------------------------

    @property
    def max_bits(self) -> int:
        """The largest magnitude of new ints, in bits, at the current size."""
        return 8 + int(120 * self.size)

    def _random_int(self) -> int:
        rng = self.rng
        if self.table6:
            return rng.randint(-10, 10)  # Table 6: added, no larger than ±10 (Gen(d) stacks up to 30)
        roll = rng.random()
        if roll < 0.25:
            return rng.randint(-10, 10)
        if roll < 0.37 and self.neighbourhood:
            return rng.choice(self.neighbourhood)
        if roll < 0.45:
            return boundary_within(self.rng, None if self.size >= 1.0 else self.max_bits)
        if roll < 0.55:
            return near_power_within(self.rng, self.max_bits)
        if roll < 0.75:
            spread = 10 + int(990 * self.size)
            return rng.randint(-spread, spread)
        # Log-uniform magnitude: every size from a few bits to 64 (at full size) is as likely.
        magnitude = rng.getrandbits(rng.randint(1, max(4, int(64 * self.size))))
        return -magnitude if rng.random() < 0.5 else magnitude

    def _random_float(self) -> float:
        rng = self.rng
        if self.table6:
            return rng.uniform(-10.0, 10.0)  # Table 6: like its ints (the artifact adds U(-1, 1) or U(-10, 10))
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
            return self.rng.choice(ASCII)  # Table 6: "random ASCII"
        return self.rng.choice(TRICKY_CHARACTERS) if self.rng.random() < 0.25 else self.rng.choice(ASCII)

    def _mutate_none(self, value: None, shape: Shape, depth: int) -> None:
        return None

    def _mutate_opaque(self, value: Any, shape: Shape, depth: int) -> Any:
        return value  # user-defined objects are out of scope

    def _mutate_bool(self, value: bool, shape: Shape, depth: int) -> bool:
        self.pick("bool", ("flip-bool",))
        return not value

    def _mutate_int(self, value: int, shape: Shape, depth: int) -> int:
        squares = abs(value) > 1 and value.bit_length() <= 512
        operator = self.pick("int", _INT_OPERATORS[squares, bool(self.neighbourhood)])
        rng = self.rng
        if operator == "plus-minus-one":
            return value + rng.choice((1, -1))
        if operator == "plus-minus-ten":
            return value + rng.choice((10, -10))
        if operator == "random-number":
            # Table 6 *adds* a random number in Gen(d); the search jumps to one.
            return value + self._random_int() if self.table6 else self._random_int()
        if operator == "boundary":
            return boundary_within(self.rng, None if self.size >= 1.0 else self.max_bits)
        if operator == "near-power":
            return near_power_within(self.rng, self.max_bits)
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

    def _mutate_float(self, value: float, shape: Shape, depth: int) -> float:
        value = float(value)
        operators = [
            "plus-minus-one", "plus-minus-ten", "double", "halve", "negate", "next-float",
            "random-number", "special-float", "truncate", "near-power",
        ]  # fmt: skip
        if self.harvested_floats:
            operators.append("harvested-constant")
        rng = self.rng
        operator = self.pick("float", operators)
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
        if operator == "near-power":
            # A power of two or ten as a float, or the float next to it.
            base = float(near_power_within(self.rng, self.max_bits))
            return math.nextafter(base, rng.choice((math.inf, -math.inf))) if rng.random() < 0.3 else base
        return rng.choice(self.harvested_floats)

    def _mutate_complex(self, value: complex, shape: Shape, depth: int) -> complex:
        value = complex(value)
        self.record("complex:mutate-part")
        if self.rng.random() < 0.5:
            return complex(self._mutate_float(value.real, shape, depth), value.imag)
        return complex(value.real, self._mutate_float(value.imag, shape, depth))

    # -- strings and bytes -------------------------------------------------------------------

    def _mutate_str(self, value: str, shape: Shape, depth: int) -> str:
        return mutate_text(self, value, "str", self._random_char, self.constants.strings, depth)

    def _mutate_bytes(self, value: bytes, shape: Shape, depth: int) -> bytes:
        return mutate_text(self, value, "bytes", self._random_byte, self.constants.bytes_, depth)

    def _mutate_bytearray(self, value: bytearray, shape: Shape, depth: int) -> bytearray:
        return bytearray(mutate_text(self, bytes(value), "bytearray", self._random_byte, self.constants.bytes_, depth))

    def _random_byte(self) -> bytes:
        return random_byte(self.rng)

    # -- containers --------------------------------------------------------------------------

    def _new_element(self, items: Sequence[Any], element: Any, depth: int) -> Any:
        """A random element: generated from the annotation, or (unannotated) a mutated copy of one."""
        if shape_of(element).family == "any" and items:
            return self.mutate(copy.deepcopy(self.rng.choice(items)), Any, depth + 1)
        return self.generate(element, depth + 1)

    def _dummy_element(self, items: Sequence[Any], element: Any) -> Any:
        """The simplest element: of the annotation, or of the kind the existing elements have."""
        if shape_of(element).family == "any" and items:
            return minimal_value(type(self.rng.choice(items)))
        return minimal_value(element)

    def _mutate_list(self, value: Sequence[Any], shape: Shape, depth: int) -> Any:
        return self._mutate_sequence(value, shape.args[0], depth, "list" if type(value) is list else "tuple")

    def _mutate_tuple_var(self, value: tuple[Any, ...], shape: Shape, depth: int) -> tuple[Any, ...]:
        return self._mutate_sequence(value, shape.args[0], depth, "tuple")

    def _mutate_sequence(self, value: Sequence[Any], element: Any, depth: int, family: str) -> Any:
        rng = self.rng
        items = list(value)
        operators = ["insert-random-element", "insert-dummy-element", "repeat-element"]
        if items:
            operators += ["delete-element", "duplicate-element", "mutate-element", "mutate-element", "empty"]
        if len(items) >= 2:
            operators += ["swap-elements", "sort-elements", "reverse-elements"]
        operator = self.pick(family, operators)
        if operator == "insert-random-element":
            items.insert(rng.randint(0, len(items)), self._new_element(items, element, depth))
        elif operator == "insert-dummy-element":
            items.insert(rng.randint(0, len(items)), self._dummy_element(items, element))
        elif operator == "repeat-element":
            # One element (of the list, or a new one) repeated 10 to 100 times, each a copy.
            unit = rng.choice(items) if items and rng.random() < 0.5 else self._new_element(items, element, depth)
            at = rng.randint(0, len(items))
            items[at:at] = [copy.deepcopy(unit) for _ in range(run_length_within(self.rng, self.size))]
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

    def _mutate_tuple(self, value: tuple[Any, ...], shape: Shape, depth: int) -> tuple[Any, ...]:
        if not value:
            return value
        self.record("tuple:mutate-element")
        items = list(value)
        at = self.rng.randrange(len(items))
        items[at] = self.mutate(items[at], shape.args[at], depth + 1)
        return tuple(items)

    def _mutate_set(self, value: Any, shape: Shape, depth: int) -> Any:
        family = "set" if type(value) is set else "frozenset"
        rng = self.rng
        element = shape.args[0]
        # Sorted by repr: set order depends on string hashing, and the engine must be reproducible.
        items = sorted(value, key=repr)
        operators = ["insert-random-element", "insert-dummy-element"]
        if items:
            operators += ["delete-element", "mutate-element", "empty"]
        operator = self.pick(family, operators)
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

    def _mutate_dict(self, value: dict[Any, Any], shape: Shape, depth: int) -> dict[Any, Any]:
        rng = self.rng
        key_annotation, value_annotation = shape.args
        entries = list(value.items())
        keys = [key for key, _ in entries]
        values = [item for _, item in entries]
        operators = ["insert-entry"]
        if entries:
            operators += ["delete-entry", "duplicate-entry", "mutate-value", "mutate-value", "mutate-key", "empty"]
        code_keys = self.shaped.parameter(self.parameter).keys if self._shaped_here(depth) else ()
        if code_keys:
            operators.append("code-key")  # an entry under a key the code reads
        operator = self.pick("dict", operators)
        result = dict(entries)
        try:
            if operator == "code-key":
                result[rng.choice(code_keys)] = self._new_element(values, value_annotation, depth)
            elif operator == "insert-entry":
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

    def _shaped_here(self, depth: int) -> bool:
        """Whether the code's shaped values apply: searching, on a parameter's own value."""
        return not self.table6 and depth == 0 and self.shaped is not None and self.parameter is not None

    def _mutate_frozenset(self, value: frozenset[Any], shape: Shape, depth: int) -> frozenset[Any]:
        return self._mutate_set(value, shape, depth)

    # -- unions ------------------------------------------------------------------------------

    def _mutate_union(self, value: Any, shape: Shape, depth: int) -> Any:
        rng = self.rng
        members = shape.args
        others = [m for m in members if m is not NONE_TYPE]
        optional = len(others) < len(members)
        if value is None and optional and others:
            self.record("optional:from-none")
            member = rng.choice(others)
            return minimal_value(member) if rng.random() < 0.3 else self.generate(member, depth + 1)
        roll = rng.random()
        if optional and roll < 0.06:
            self.record("optional:to-none")
            return None
        fitting = [m for m in others if fits(value, shape_of(m))]
        unfitting = [m for m in others if m not in fitting] if len(fitting) < len(others) else []
        if not fitting or (unfitting and roll > 0.9):
            if not others:
                return value
            self.record("union:switch-member")
            return self.generate(rng.choice(unfitting or others), depth + 1)
        if len(fitting) > 1:
            # Prefer the member of the value's own kind: 3 under `float | int` mutates as an int.
            runtime_family = runtime_shape(value).family
            fitting = [m for m in fitting if shape_of(m).family == runtime_family] or fitting
        return self.mutate(value, fitting[0], depth)
