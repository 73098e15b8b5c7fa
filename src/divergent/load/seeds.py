"""Seed inputs: from seed files, doctest examples and test asserts, fitted to a signature.

Seeds are read with :mod:`ast` and built by the literal-only evaluator of
:mod:`divergent.load.literals`: a seed is data, never code.
"""

from __future__ import annotations

import ast
import doctest
import os
import textwrap
from collections.abc import Iterable
from dataclasses import replace
from pathlib import Path
from typing import Any

from divergent.annotations import dotted_name
from divergent.errors import InvalidArgument
from divergent.load.literals import LITERAL_CONSTRUCTORS, NotLiteral, evaluate_literal_node
from divergent.load.python_files import top_level_functions
from divergent.programs import ParameterKind, PythonFunction, Signature
from divergent.records import Input

__all__ = ["Seeds", "fit_seeds", "seeds_from_asserts", "seeds_from_docstring", "seeds_from_file"]


class Seeds(list[Input]):
    """Seed inputs, plus how many candidates were dropped (so the caller can tell the user)."""

    def __init__(self, inputs: Iterable[Input] = (), *, wrong_arity: int = 0, duplicates: int = 0) -> None:
        super().__init__(inputs)
        #: seeds that cannot be a call of the signature (too many or too few arguments, unknown keywords)
        self.wrong_arity = wrong_arity
        #: seeds equal to an earlier one
        self.duplicates = duplicates

    @property
    def dropped(self) -> int:
        return self.wrong_arity

    def describe_dropped(self) -> str | None:
        """E.g. ``"2 seeds dropped: wrong arity"``, or None when none were dropped."""
        if not self.wrong_arity:
            return None
        return f"{self.wrong_arity} seed{'s' if self.wrong_arity != 1 else ''} dropped: wrong arity"


def _value_key(value: Any) -> Any:
    """A hashable key telling values apart by type and content (1, 1.0 and True differ; nan == nan)."""
    kind = type(value).__qualname__
    if isinstance(value, list | tuple):
        return (kind, tuple(_value_key(item) for item in value))
    if isinstance(value, dict):
        return (kind, tuple((_value_key(k), _value_key(v)) for k, v in value.items()))
    if isinstance(value, set | frozenset):
        return (kind, tuple(sorted((_value_key(item) for item in value), key=repr)))
    return (kind, repr(value))


def _input_key(seed: Input) -> Any:
    return (_value_key(seed.args), tuple(sorted((k, _value_key(v)) for k, v in seed.kwargs.items())))


def _fit_call(seed: Input, signature: Signature) -> Input | None:
    """The seed as a valid call of ``signature``, or None when it cannot be one."""
    parameters = signature.parameters
    positional = signature.positional
    accepts_more = any(p.kind is ParameterKind.VAR_POSITIONAL for p in parameters)
    accepts_any_keyword = any(p.kind is ParameterKind.VAR_KEYWORD for p in parameters)
    args, kwargs = list(seed.args), dict(seed.kwargs)
    if len(args) > len(positional) and not accepts_more:
        return None
    # keywords naming the next positional parameters become positional, because the
    # implementations may name their parameters differently (calls are made positionally)
    while (
        len(args) < len(positional)
        and positional[len(args)].kind is ParameterKind.POSITIONAL_OR_KEYWORD
        and positional[len(args)].name in kwargs
    ):
        args.append(kwargs.pop(positional[len(args)].name))
    filled = {p.name for p in positional[: len(args)]}
    by_keyword = {
        p.name
        for p in parameters
        if p.kind in (ParameterKind.POSITIONAL_OR_KEYWORD, ParameterKind.KEYWORD_ONLY)
    }
    for name in kwargs:
        if name in filled or (name not in by_keyword and not accepts_any_keyword):
            return None
    for index, parameter in enumerate(positional):
        if index < len(args) or parameter.has_default:
            continue
        if parameter.kind is ParameterKind.POSITIONAL_OR_KEYWORD and parameter.name in kwargs:
            continue
        return None
    for parameter in parameters:
        if (
            parameter.kind is ParameterKind.KEYWORD_ONLY
            and not parameter.has_default
            and parameter.name not in kwargs
        ):
            return None
    return Input(args=tuple(args), kwargs=kwargs, how_generated="seeds")


def fit_seeds(inputs: Iterable[Input], signature: Signature | None) -> Seeds:
    """Keep the inputs that are valid calls of ``signature`` (all when None), without duplicates."""
    kept: list[Input] = []
    seen: set[Any] = set()
    wrong_arity = duplicates = 0
    for seed in inputs:
        fitted = _fit_call(seed, signature) if signature is not None else replace(seed, how_generated="seeds")
        if fitted is None:
            wrong_arity += 1
            continue
        key = _input_key(fitted)
        if key in seen:
            duplicates += 1
            continue
        seen.add(key)
        kept.append(fitted)
    return Seeds(kept, wrong_arity=wrong_arity, duplicates=duplicates)


def _call_input(call: ast.Call) -> Input:
    if any(isinstance(a, ast.Starred) for a in call.args) or any(k.arg is None for k in call.keywords):
        raise NotLiteral("* or ** in the call")
    return Input(
        args=tuple(evaluate_literal_node(a) for a in call.args),
        kwargs={k.arg: evaluate_literal_node(k.value) for k in call.keywords if k.arg is not None},
        how_generated="seeds",
    )


def _arguments_from_value(value: Any, signature: Signature) -> tuple[Any, ...]:
    positional = signature.positional
    takes_one = len(positional) == 1 and not any(
        p.kind is ParameterKind.VAR_POSITIONAL for p in signature.parameters
    )
    # for a one-parameter function the line is the argument itself, even when it is a tuple
    if not takes_one and isinstance(value, tuple):
        return value
    return (value,)


def _input_from_line(text: str, signature: Signature) -> Input:
    node = ast.parse(text, mode="eval").body
    # a call of any function is the call's arguments, except set(), float('nan') and friends
    if (
        isinstance(node, ast.Call)
        and (callee := dotted_name(node.func))
        and callee not in LITERAL_CONSTRUCTORS
    ):
        return _call_input(node)
    return Input(args=_arguments_from_value(evaluate_literal_node(node), signature), how_generated="seeds")


def seeds_from_file(path: str | os.PathLike[str], signature: Signature) -> Seeds:
    """Seeds from a file: one per line, a call ``f(1, x=2)``, the literal argument(s) ``(1, 2)``, or
    an ``assert f(...) == ...`` line (HumanEval/MBPP style: the call inside is the seed).

    Blank lines and ``#`` comments are skipped; a line that is not a literal call is an error.
    """
    file = Path(path)
    try:
        text = file.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise InvalidArgument(f"{file}: cannot read seeds: {error}") from None
    inputs = []
    for number, line in enumerate(text.splitlines(), start=1):
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        if stripped.startswith("assert ") or stripped.startswith("assert("):
            inputs.extend(_inputs_from_assert_line(stripped, file, number))
            continue
        try:
            inputs.append(_input_from_line(stripped, signature))
        except SyntaxError as error:
            raise InvalidArgument(f"{file}:{number}: not a seed ({error.msg}): {stripped}") from None
        except (ValueError, RecursionError, MemoryError) as error:
            raise InvalidArgument(
                f"{file}:{number}: not a seed (only literal values are allowed, found {error}): {stripped}"
            ) from None
    return fit_seeds(inputs, signature)


#: calls that wrap the function under test in HumanEval/MBPP-style asserts, not the function itself
_ASSERT_WRAPPERS = frozenset(
    {"abs", "all", "any", "float", "int", "isclose", "len", "list", "round", "set", "sorted", "str", "tuple"}
)


def _inputs_from_assert_line(line: str, file: Path, number: int) -> list[Input]:
    """The call to the function under test in an ``assert f(...) == ...`` line (any name but the
    usual wrappers such as ``abs`` or ``math.isclose``)."""
    try:
        tree = ast.parse(line)
    except SyntaxError as error:
        raise InvalidArgument(f"{file}:{number}: not a seed ({error.msg}): {line}") from None
    names = {
        node.func.id if isinstance(node.func, ast.Name) else node.func.attr
        for node in ast.walk(tree)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name | ast.Attribute)
    } - _ASSERT_WRAPPERS
    found = _literal_calls(tree, names)
    if not found:
        raise InvalidArgument(f"{file}:{number}: no call with literal arguments in this assert: {line}")
    return found[:1]


def _literal_calls(tree: ast.AST, names: set[str]) -> list[Input]:
    """Inputs of the calls to any of ``names`` inside ``tree`` whose arguments are all literals."""
    calls = [
        node
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
        and (
            (isinstance(node.func, ast.Name) and node.func.id in names)
            or (isinstance(node.func, ast.Attribute) and node.func.attr in names)
        )
    ]
    calls.sort(key=lambda node: (node.lineno, node.col_offset))
    inputs = []
    for call in calls:
        try:
            inputs.append(_call_input(call))
        except (ValueError, RecursionError):
            continue  # arguments computed at run time: not a seed we can use
    return inputs


def seeds_from_docstring(impl: PythonFunction, *, signature: Signature | None = None) -> Seeds:
    """Seeds from the doctest examples (``>>> f(1, 2)``) in the entry point's docstring."""
    try:
        tree = ast.parse(impl.source)
    except (SyntaxError, ValueError, RecursionError):
        return Seeds()
    node = top_level_functions(tree).get(impl.entry_point)
    if node is None or isinstance(node, ast.Lambda):
        return Seeds()
    docstring = ast.get_docstring(node)
    if not docstring:
        return Seeds()
    try:
        examples = doctest.DocTestParser().get_examples(docstring)
    except ValueError:
        return Seeds()  # malformed doctest (bad indentation): nothing to learn from
    inputs: list[Input] = []
    for example in examples:
        try:
            example_tree = ast.parse(example.source)
        except (SyntaxError, ValueError):
            continue
        inputs.extend(_literal_calls(example_tree, {impl.entry_point}))
    return fit_seeds(inputs, signature if signature is not None else impl.signature)


def _assert_trees(text: str) -> list[ast.AST]:
    source = textwrap.dedent(text)
    try:
        return [ast.parse(source)]
    except (SyntaxError, ValueError):
        pass
    # not a whole program (e.g. a list of MBPP asserts with stray lines): take the lines that parse
    trees: list[ast.AST] = []
    for line in source.splitlines():
        stripped = line.strip()
        if stripped.startswith("assert"):
            try:
                trees.append(ast.parse(stripped))
            except (SyntaxError, ValueError):
                continue
    return trees


def seeds_from_asserts(text: str, entry_point: str, *, signature: Signature | None = None) -> Seeds:
    """Seeds from test asserts (HumanEval/MBPP style): every call to ``entry_point`` or ``candidate``
    with literal arguments inside an ``assert``, e.g. ``assert abs(f(1.5) - 2) < 1e-6``.
    """
    names = {entry_point, "candidate"}
    inputs: list[Input] = []
    for tree in _assert_trees(text):
        # ast.walk is breadth first: sort so seeds come out in source order
        asserts = sorted((n for n in ast.walk(tree) if isinstance(n, ast.Assert)), key=lambda n: n.lineno)
        for node in asserts:
            inputs.extend(_literal_calls(node.test, names))
    return fit_seeds(inputs, signature)
