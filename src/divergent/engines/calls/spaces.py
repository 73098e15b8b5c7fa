"""Every call of a function whose inputs are few, listed for the exhaustive verdict: each required
parameter ``bool``, a ``Literal[...]``, ``None`` or a union of those, or an ``int`` bounded on both
sides by the user's precondition (``--require '0 <= n <= 20 and k in range(3)'``). A function with
optional parameters, ``*args`` or ``**kwargs``, or a parameter of any other type has no listed
space: its calls are not all known."""

from __future__ import annotations

import ast
import itertools
import math
import typing
from collections.abc import Callable
from typing import Any

from divergent.programs import ParameterKind, Signature
from divergent.records import Input

__all__ = ["call_space"]

_NONE = type(None)


def _domain(annotation: Any, bounds: tuple[int, int] | None) -> list[Any] | None:
    if annotation is bool:
        return [False, True]
    if annotation is _NONE:
        return [None]
    origin = typing.get_origin(annotation)
    if origin is typing.Literal:
        return list(dict.fromkeys(typing.get_args(annotation)))
    if origin is typing.Union:
        values: list[Any] = []
        for member in typing.get_args(annotation):
            domain = _domain(member, bounds if member is int else None)
            if domain is None:
                return None
            values.extend(v for v in domain if not any(v == w and type(v) is type(w) for w in values))
        return values
    if annotation is int and bounds is not None:
        return list(range(bounds[0], bounds[1] + 1))
    return None


def _constant(node: ast.expr) -> int | None:
    if isinstance(node, ast.Constant) and type(node.value) is int:
        return node.value
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        inner = _constant(node.operand)
        return -inner if inner is not None else None
    return None


def _bounds(expression: str | None) -> dict[str, tuple[int, int]]:
    """The integer bounds a precondition puts on its names (chains such as ``0 <= n < 10``,
    ``n in range(a, b)``, joined by ``and``); names bounded on one side only are left out."""
    if not expression:
        return {}
    try:
        tree = ast.parse(expression, mode="eval").body
    except SyntaxError:
        return {}
    lows: dict[str, int] = {}
    highs: dict[str, int] = {}
    parts = tree.values if isinstance(tree, ast.BoolOp) and isinstance(tree.op, ast.And) else [tree]
    for part in parts:
        if not isinstance(part, ast.Compare):
            continue
        terms = [part.left, *part.comparators]
        for (left, right), op in zip(itertools.pairwise(terms), part.ops, strict=True):
            if isinstance(op, ast.In) and isinstance(left, ast.Name) and isinstance(right, ast.Call) \
                    and isinstance(right.func, ast.Name) and right.func.id == "range" and 1 <= len(right.args) <= 2:
                ends = [_constant(a) for a in right.args]
                if None not in ends:
                    low, high = (0, ends[0]) if len(ends) == 1 else (ends[0], ends[1])
                    lows[left.id] = max(lows.get(left.id, low), low)  # type: ignore[arg-type]
                    highs[left.id] = min(highs.get(left.id, high - 1), high - 1)  # type: ignore[operator]
                continue
            for name, bound, upper in _sides(left, right, op):
                if upper:
                    highs[name] = min(highs.get(name, bound), bound)
                else:
                    lows[name] = max(lows.get(name, bound), bound)
    return {name: (lows[name], highs[name]) for name in lows.keys() & highs.keys()}


def _sides(left: ast.expr, right: ast.expr, op: ast.cmpop) -> list[tuple[str, int, bool]]:
    """(name, bound, is an upper bound) of one comparison between a name and a constant."""
    strict = isinstance(op, ast.Lt | ast.Gt)
    if isinstance(left, ast.Name) and (value := _constant(right)) is not None:
        if isinstance(op, ast.Lt | ast.LtE):
            return [(left.id, value - strict, True)]
        if isinstance(op, ast.Gt | ast.GtE):
            return [(left.id, value + strict, False)]
        if isinstance(op, ast.Eq):
            return [(left.id, value, True), (left.id, value, False)]
    if isinstance(right, ast.Name) and (value := _constant(left)) is not None:
        if isinstance(op, ast.Lt | ast.LtE):
            return [(right.id, value + strict, False)]
        if isinstance(op, ast.Gt | ast.GtE):
            return [(right.id, value - strict, True)]
    return []


def call_space(signature: Signature, requirement: str | None, valid: Callable[[Input], bool], *,
               limit: int = 20_000) -> tuple[str, list[Input], int] | None:
    """Every call the signature and the precondition allow, when they are finite and at most
    ``limit``: what the space is, the calls ``valid`` accepts, and how many were listed."""
    parameters = signature.parameters
    if not parameters or any(p.has_default or p.kind in (ParameterKind.VAR_POSITIONAL, ParameterKind.VAR_KEYWORD)
                             for p in parameters):
        return None
    bounds = _bounds(requirement)
    domains = []
    for parameter in parameters:
        domain = _domain(parameter.annotation, bounds.get(parameter.name))
        if not domain:
            return None
        domains.append(domain)
    size = math.prod(len(domain) for domain in domains)
    if size > limit:
        return None
    positional = [p.kind is not ParameterKind.KEYWORD_ONLY for p in parameters]
    calls = []
    for values in itertools.product(*domains):
        args = tuple(v for v, by_position in zip(values, positional, strict=True) if by_position)
        kwargs = {p.name: v for p, v, by_position in zip(parameters, values, positional, strict=True) if not by_position}
        calls.append(Input(args, kwargs, how_generated="seeds"))
    kept = [call for call in calls if valid(call)]
    described = " x ".join(f"{p.name}: {len(d)} value(s)" for p, d in zip(parameters, domains, strict=True))
    return f"all {len(kept):,} calls the annotations{' and --require' if requirement else ''} allow ({described})", kept, size
