"""Literal values: seeds are data, never code. A literal-only evaluator (like ``ast.literal_eval``,
plus a few harmless constructors such as ``set()``, ``float('nan')`` and ``Decimal('1.5')``).

It runs in the divergent process on text from files (seeds, doctests, the ``assert`` lines of a
source), so it is bounded: at most :data:`MAX_NODES` nodes and :data:`MAX_SECONDS` seconds per
literal, no conversion whose result would have more than :data:`MAX_DIGITS` digits
(``int(Decimal('1e1000000'))`` would take minutes), no allocation over a MiB. Past a bound the
literal is refused with :class:`NotLiteral`, saying which bound.
"""

from __future__ import annotations

import ast
import decimal
import fractions
import math
import re
import time
from collections.abc import Callable
from typing import Any

from divergent.annotations import dotted_name

__all__ = ["LITERAL_CONSTRUCTORS", "NotLiteral", "evaluate_literal", "evaluate_literal_node"]


class NotLiteral(ValueError):
    """An expression that is not a plain literal value."""


#: names a seed may use for special values
_LITERAL_NAMES: dict[str, Any] = {
    "math.inf": math.inf,
    "math.nan": math.nan,
    "math.pi": math.pi,
    "math.e": math.e,
    "math.tau": math.tau,
}

#: constructors that build a value from literal arguments and do nothing else
LITERAL_CONSTRUCTORS: dict[str, Callable[..., Any]] = {
    "set": set,
    "frozenset": frozenset,
    "tuple": tuple,
    "list": list,
    "dict": dict,
    "float": float,
    "complex": complex,
    "int": int,
    "bytes": bytes,
    "bytearray": bytearray,
    "Decimal": decimal.Decimal,
    "decimal.Decimal": decimal.Decimal,
    "Fraction": fractions.Fraction,
    "fractions.Fraction": fractions.Fraction,
}

#: bytes(n) allocates n bytes: a seed has no business asking for more
_MAX_ALLOCATION = 1 << 20
#: digits of an integer a conversion may produce (Python's own limit for int(str))
MAX_DIGITS = 4300
#: nodes of one literal expression
MAX_NODES = 1_000_000
#: seconds one literal may take to build
MAX_SECONDS = 2.0
_EXPONENT = re.compile(r"[eE]\s*([-+]?\d+)")


class _Budget:
    """What one literal may still cost: nodes, and a deadline."""

    __slots__ = ("deadline", "nodes")

    def __init__(self) -> None:
        self.nodes = MAX_NODES
        self.deadline = time.monotonic() + MAX_SECONDS

    def spend(self) -> None:
        self.nodes -= 1
        if self.nodes < 0:
            raise NotLiteral(f"more than {MAX_NODES:,} values in one literal")
        if self.nodes % 1024 == 0 and time.monotonic() > self.deadline:
            raise NotLiteral(f"the literal took longer than {MAX_SECONDS:g} s to build")


def _check_magnitude(name: str, constructor: Callable[..., Any], values: list[Any]) -> None:
    """Refuse conversions to exact numbers that would build integers of more than MAX_DIGITS
    digits: int() or Fraction() of a Decimal or of a text with a large exponent."""
    if constructor not in (int, fractions.Fraction) or not values:
        return
    value = values[0]
    exponent = 0
    if isinstance(value, decimal.Decimal) and value.is_finite():
        exponent = value.adjusted()
    elif isinstance(value, str):
        if constructor is int and len(value) > MAX_DIGITS + 10:
            raise NotLiteral(f"int() of a text of {len(value):,} characters (at most {MAX_DIGITS} digits)")
        match = _EXPONENT.search(value)
        exponent = int(match.group(1)) if match and len(match.group(1)) < 12 else 0
        if match and len(match.group(1)) >= 12:
            exponent = MAX_DIGITS + 1
    if constructor is int and exponent < 0:
        return  # int() drops the fraction: no large integer is built
    if abs(exponent) > MAX_DIGITS:
        raise NotLiteral(f"{name}({value!r:.40}) would build a number of more than {MAX_DIGITS} digits")


def _is_number(value: object) -> bool:
    return isinstance(value, int | float | complex) and not isinstance(value, bool)


def _hashed(container: Callable[[list[Any]], Any], items: list[Any]) -> Any:
    try:
        return container(items)
    except TypeError as error:  # e.g. {[1]}: an unhashable element
        raise NotLiteral(str(error)) from None


def evaluate_literal_node(node: ast.expr, depth: int = 0, budget: _Budget | None = None) -> Any:
    """The value of a literal expression node; raises NotLiteral (RecursionError when nested very
    deep). ``budget`` is shared by the nodes of one literal (a fresh one when None)."""
    if depth > 200:
        raise NotLiteral("nested too deeply")
    if budget is None:
        budget = _Budget()
    budget.spend()
    inner = depth + 1

    def value_of(item: ast.expr) -> Any:
        return evaluate_literal_node(item, inner, budget)

    match node:
        case ast.Constant(value=value):
            return value
        case ast.Tuple(elts=items):
            return tuple(value_of(item) for item in items)
        case ast.List(elts=items):
            return [value_of(item) for item in items]
        case ast.Set(elts=items):
            return _hashed(set, [value_of(item) for item in items])
        case ast.Dict(keys=keys, values=values):
            if any(key is None for key in keys):
                raise NotLiteral("** in a dict display")
            pairs = [(value_of(key), value_of(value)) for key, value in zip(keys, values, strict=True)]  # type: ignore[arg-type]
            return _hashed(dict, pairs)
        case ast.UnaryOp(op=ast.USub() | ast.UAdd() as operator, operand=operand):
            number = value_of(operand)
            if not _is_number(number):
                raise NotLiteral("sign on a non-number")
            return -number if isinstance(operator, ast.USub) else +number
        case ast.BinOp(op=ast.Add() | ast.Sub() as operator, left=left, right=right):
            # only complex literals such as 1+2j, as ast.literal_eval allows
            real, imaginary = value_of(left), value_of(right)
            if not (
                isinstance(real, int | float)
                and not isinstance(real, bool)
                and isinstance(imaginary, complex)
            ):
                raise NotLiteral("arithmetic")
            return real + imaginary if isinstance(operator, ast.Add) else real - imaginary
        case ast.Attribute() | ast.Name():
            name = dotted_name(node)
            if name in _LITERAL_NAMES:
                return _LITERAL_NAMES[name]
            raise NotLiteral(f"name {name or ast.unparse(node)}")
        case ast.Call(func=callee, args=arguments, keywords=keywords):
            name = dotted_name(callee)
            constructor = LITERAL_CONSTRUCTORS.get(name or "")
            if constructor is None:
                raise NotLiteral(f"call to {ast.unparse(callee)}")
            if any(isinstance(a, ast.Starred) for a in arguments) or any(k.arg is None for k in keywords):
                raise NotLiteral("* or ** in a call")
            if keywords and constructor is not dict:
                raise NotLiteral(f"keyword arguments to {name}")
            values = [value_of(a) for a in arguments]
            _check_magnitude(name or "", constructor, values)
            if (
                constructor in (bytes, bytearray)
                and values
                and isinstance(values[0], int)
                and values[0] > _MAX_ALLOCATION
            ):
                raise NotLiteral(f"{name}({values[0]}) is too large")
            try:
                return constructor(*values, **{k.arg: value_of(k.value) for k in keywords if k.arg})
            except (TypeError, ValueError, ArithmeticError) as error:
                raise NotLiteral(f"{ast.unparse(node)}: {error}") from None
    raise NotLiteral(type(node).__name__.lower())


def evaluate_literal(source_or_node: str | ast.expr) -> Any:
    """The value of a literal expression (like ``ast.literal_eval``, plus ``set()``, ``frozenset(...)``,
    ``float('nan')``, ``complex(...)``, ``Decimal('1.5')``, ``math.inf``). Raises ValueError otherwise.
    """
    node = source_or_node
    if isinstance(node, str):
        try:
            node = ast.parse(node.strip(), mode="eval").body
        except SyntaxError as error:
            raise ValueError(f"not valid Python: {error.msg}") from None
    try:
        return evaluate_literal_node(node)
    except RecursionError:
        raise ValueError("nested too deeply") from None
