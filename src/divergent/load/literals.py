"""Literal values: seeds are data, never code. A literal-only evaluator (like ``ast.literal_eval``,
plus a few harmless constructors such as ``set()``, ``float('nan')`` and ``Decimal('1.5')``).
"""

from __future__ import annotations

import ast
import decimal
import fractions
import math
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


def _is_number(value: object) -> bool:
    return isinstance(value, int | float | complex) and not isinstance(value, bool)


def _hashed(container: Callable[[list[Any]], Any], items: list[Any]) -> Any:
    try:
        return container(items)
    except TypeError as error:  # e.g. {[1]}: an unhashable element
        raise NotLiteral(str(error)) from None


def evaluate_literal_node(node: ast.expr, depth: int = 0) -> Any:
    """The value of a literal expression node; raises NotLiteral (RecursionError when nested very deep)."""
    if depth > 200:
        raise NotLiteral("nested too deeply")
    inner = depth + 1
    match node:
        case ast.Constant(value=value):
            return value
        case ast.Tuple(elts=items):
            return tuple(evaluate_literal_node(item, inner) for item in items)
        case ast.List(elts=items):
            return [evaluate_literal_node(item, inner) for item in items]
        case ast.Set(elts=items):
            return _hashed(set, [evaluate_literal_node(item, inner) for item in items])
        case ast.Dict(keys=keys, values=values):
            if any(key is None for key in keys):
                raise NotLiteral("** in a dict display")
            pairs = [
                (evaluate_literal_node(key, inner), evaluate_literal_node(value, inner))
                for key, value in zip(keys, values, strict=True)
            ]
            return _hashed(dict, pairs)
        case ast.UnaryOp(op=ast.USub() | ast.UAdd() as operator, operand=operand):
            number = evaluate_literal_node(operand, inner)
            if not _is_number(number):
                raise NotLiteral("sign on a non-number")
            return -number if isinstance(operator, ast.USub) else +number
        case ast.BinOp(op=ast.Add() | ast.Sub() as operator, left=left, right=right):
            # only complex literals such as 1+2j, as ast.literal_eval allows
            real, imaginary = evaluate_literal_node(left, inner), evaluate_literal_node(right, inner)
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
            values = [evaluate_literal_node(a, inner) for a in arguments]
            if (
                constructor in (bytes, bytearray)
                and values
                and isinstance(values[0], int)
                and values[0] > _MAX_ALLOCATION
            ):
                raise NotLiteral(f"{name}({values[0]}) is too large")
            try:
                return constructor(
                    *values, **{k.arg: evaluate_literal_node(k.value, inner) for k in keywords if k.arg}
                )
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
