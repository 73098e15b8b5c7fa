"""When the symbolic engine's exhaustive exploration proves the implementations equivalent.

CrossHair explores execution paths with symbolic values. When it has explored every path of every
ordering of every pair, each path running both implementations to the end and comparing them, with
no difference, no path dropped, cut short or nondeterministic (the runner says ``complete``), that
is a proof *to the extent CrossHair models the values and operations involved exactly*. Its model of
integers and booleans is exact (unbounded integers in an SMT solver); its floats are real numbers
(no rounding, no NaN or -0.0 as Python has them), and its strings model Unicode only in part. So a
run counts as a proof only when:

* every parameter is annotated with a type built from ``int``, ``bool`` and ``None`` (``Optional``,
  unions, ``Literal`` values of those, fixed-length tuples of them);
* the implementations' modules (read with ``ast``, never run) use no float or complex number, no
  true division (``/``), no ``**`` with an exponent other than a literal non-negative integer, no
  string conversion of values (``str()``, ``repr()``, ``format``, f-strings), no import but
  ``typing``, ``functools``, ``operator`` and ``__future__``, no decorator but ``functools``' caches,
  no ``global`` or ``nonlocal`` state, no module-level value but constants, no broad ``except``
  (``except:``, ``Exception``, ``BaseException``, which could swallow an error of the symbolic
  model), and nothing that reaches outside the call (``random``, ``time``, ``hash``, ``id``,
  ``open``, ``eval``, ``getattr`` and the like);
* the comparison is the default equality policy's value rule, without a user comparison or the
  comparison of printed output (CrossHair compares return values, exceptions by type and message,
  and the arguments after the call: at least as strictly as the policy).

:func:`proof_problem` says why a run does not qualify; :func:`proof_limits` words the claim's limits.
"""

from __future__ import annotations

import ast
import functools
import typing
from collections.abc import Sequence
from typing import Any

from divergent.annotations import UNION_ORIGINS
from divergent.comparison import Comparison
from divergent.policy import EqualityPolicy
from divergent.programs import ParameterKind, Program, Signature

__all__ = ["EXACT_TYPES", "proof_limits", "proof_problem"]

#: the types whose symbolic model is exact (docs/cli.md, "Proofs")
EXACT_TYPES = "int, bool and None (Optional, unions, Literal values and fixed-length tuples of them)"
_NONE_TYPE = type(None)
_ALLOWED_IMPORTS = frozenset({"__future__", "typing", "functools", "operator"})
_ALLOWED_DECORATORS = frozenset({"cache", "lru_cache", "functools.cache", "functools.lru_cache"})
#: names whose use reaches outside the call, converts to text or floats, or defeats the reading above
_FORBIDDEN_NAMES = frozenset({
    "float", "complex", "str", "repr", "format", "ascii", "pow", "round", "hash", "id", "open", "input",
    "print", "eval", "exec", "compile", "__import__", "globals", "locals", "vars", "getattr", "setattr",
    "delattr", "object", "type", "breakpoint", "memoryview", "bytearray", "random", "time", "sys", "os",
})  # fmt: skip
_BROAD_EXCEPTIONS = frozenset({"Exception", "BaseException"})


def proof_problem(implementations: Sequence[Program], signature: Signature, comparison: Comparison) -> str | None:
    """Why an exhaustive symbolic exploration of these implementations is not a proof; None when it is."""
    problem = _policy_problem(comparison)
    if problem:
        return problem
    for parameter in signature.parameters:
        if parameter.kind in (ParameterKind.VAR_POSITIONAL, ParameterKind.VAR_KEYWORD):
            return f"parameter {parameter.name} takes any number of arguments"
        if not parameter.annotated:
            return f"parameter {parameter.name} has no annotation"
        if not _exact_annotation(_NONE_TYPE if parameter.annotation is None else parameter.annotation):
            return f"parameter {parameter.name}: only {EXACT_TYPES} are modelled exactly"
    for impl in implementations:
        problem = _source_problem(impl.source)
        if problem:
            return f"{impl.label}: {problem}"
    return None


def proof_limits(signature: Signature, requirement: bool) -> tuple[str, ...]:
    """The claim's limits, one sentence each, for the report."""
    limits = [
        "for every argument the annotations allow ("
        + ", ".join(f"{p.name}: {_describe(p.annotation)}" for p in signature.parameters)
        + ")",
        "under the default equality policy (return values, exceptions by type, arguments after the call)",
        "as Python's integers and booleans behave, modelled exactly by CrossHair; each path ran within "
        "CrossHair's per-path time limit and the sandbox's recursion and memory limits",
    ]
    if requirement:
        limits.append("the proof covers every such input, those --require rules out included")
    return tuple(limits)


def _describe(annotation: Any) -> str:
    if annotation is None or annotation is _NONE_TYPE:
        return "None"
    return getattr(annotation, "__qualname__", None) if isinstance(annotation, type) else repr(annotation).replace(
        "typing.", ""
    )


def _policy_problem(comparison: Comparison) -> str | None:
    if not isinstance(comparison, EqualityPolicy) or comparison.values.name != "default":
        return "the comparison is not the default equality policy"
    if comparison.compare is not None:
        return "a user comparison (--compare) may say anything"
    if comparison.compare_stdout:
        return "printed output is compared, which the symbolic exploration does not"
    return None


def _exact_annotation(annotation: Any) -> bool:
    if annotation in (int, bool, _NONE_TYPE):
        return True
    origin = typing.get_origin(annotation)
    args = typing.get_args(annotation)
    if origin is typing.Literal:
        return all(type(value) in (int, bool, _NONE_TYPE) for value in args)
    if origin in UNION_ORIGINS:
        return all(_exact_annotation(member) for member in args)
    if origin is tuple:
        return bool(args) and Ellipsis not in args and all(_exact_annotation(item) for item in args)
    return False


@functools.lru_cache(maxsize=64)
def _source_problem(source: str) -> str | None:
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return "its source does not parse"
    for statement in tree.body:
        problem = _module_statement_problem(statement)
        if problem:
            return problem
    annotations = set()
    for node in ast.walk(tree):
        # Annotations say what values are, they do not run (``-> float`` is no float arithmetic).
        parts = []
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            parts.append(node.returns)
        elif isinstance(node, ast.arg | ast.AnnAssign):
            parts.append(node.annotation)
        for part in parts:
            if part is not None:
                annotations.update(id(inner) for inner in ast.walk(part))
    for node in ast.walk(tree):
        if id(node) in annotations:
            continue
        problem = _node_problem(node)
        if problem:
            return problem
    return None


def _module_statement_problem(statement: ast.stmt) -> str | None:
    if isinstance(statement, ast.FunctionDef):
        for decorator in statement.decorator_list:
            target = decorator.func if isinstance(decorator, ast.Call) else decorator
            if ast.unparse(target) not in _ALLOWED_DECORATORS:
                return f"the decorator @{ast.unparse(target)} is not modelled"
        return None
    if isinstance(statement, ast.Import | ast.ImportFrom):
        names = [statement.module or ""] if isinstance(statement, ast.ImportFrom) else [a.name for a in statement.names]
        for name in names:
            if name.split(".")[0] not in _ALLOWED_IMPORTS:
                return f"it imports {name}, whose behaviour is not modelled exactly"
        return None
    if isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Constant):
        return None  # a docstring
    if isinstance(statement, ast.Assign | ast.AnnAssign) and statement.value is not None:
        if _constant(statement.value):
            return None
        return "a module-level value that is not a constant (state calls may share)"
    return f"a module-level {type(statement).__name__} statement"


def _constant(node: ast.expr) -> bool:
    if isinstance(node, ast.Constant):
        return type(node.value) in (int, bool, str, _NONE_TYPE)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub | ast.UAdd):
        return _constant(node.operand)
    if isinstance(node, ast.Tuple):
        return all(_constant(item) for item in node.elts)
    return False


def _node_problem(node: ast.AST) -> str | None:
    if isinstance(node, ast.Constant) and type(node.value) in (float, complex):
        return f"it uses the number {node.value!r} (floats are not modelled exactly)"
    if isinstance(node, ast.BinOp | ast.AugAssign):
        if isinstance(node.op, ast.Div):
            return "it divides with / (a float)"
        if isinstance(node.op, ast.Pow):
            exponent = node.right if isinstance(node, ast.BinOp) else node.value
            if not (isinstance(exponent, ast.Constant) and type(exponent.value) is int and exponent.value >= 0):
                return "it raises to a power that may be negative (a float)"
    if isinstance(node, ast.Name) and node.id in _FORBIDDEN_NAMES:
        return f"it uses {node.id}"
    if isinstance(node, ast.Attribute) and node.attr.startswith("__"):
        return f"it uses {node.attr}"
    if isinstance(node, ast.JoinedStr | ast.FormattedValue):
        return "it formats values as text"
    if isinstance(node, ast.Global | ast.Nonlocal):
        return "it keeps state across calls (global or nonlocal)"
    if isinstance(node, ast.ClassDef | ast.Lambda | ast.Yield | ast.YieldFrom | ast.Await):
        return f"it uses {type(node).__name__.lower()}s"
    if isinstance(node, ast.ExceptHandler):
        caught = node.type
        names = [caught] if not isinstance(caught, ast.Tuple) else list(caught.elts)
        if caught is None or any(isinstance(name, ast.Name) and name.id in _BROAD_EXCEPTIONS for name in names):
            return "a broad except could swallow an error of the symbolic model"
    return None
