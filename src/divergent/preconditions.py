"""Preconditions: is an input one the implementations were meant to accept?

- :func:`bind_arguments`: parameter name → value for a call, or None when the call would not bind.
- :func:`conforms` (and :func:`nonconformity`, which says why not): the arguments fit the signature's
  arity and every annotated parameter's annotation, over all items of every collection: builtin
  shapes by plain checks compiled once per annotation, anything else by typeguard (imported then). Annotations are preconditions: a value of the wrong type is never a counterexample.
  ``bool`` never passes for ``int``/``float``/``complex`` (typeguard's isinstance would let it).
- :func:`make_requirement`: the user's own predicate (``--require 'n >= 0'``), compiled once.
"""

from __future__ import annotations

import ast
import builtins
import functools
import types
import typing
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from divergent.errors import InvalidArgument
from divergent.programs import Parameter, ParameterKind, Signature
from divergent.records import Input

__all__ = [
    "bind_arguments",
    "conforms",
    "make_requirement",
    "nonconformity",
]


# ---------------------------------------------------------------------------------------------
# Strict numbers: typeguard follows isinstance, so True passes for ``int``; divergent does not.


class _StrictNumberMeta(type):
    """Instance checks that accept the numeric tower of PEP 484 but never a bool."""

    accepted: tuple[type, ...]

    def __instancecheck__(cls, value: object) -> bool:
        return isinstance(value, cls.accepted) and not isinstance(value, bool)


def _strict_number(name: str, accepted: tuple[type, ...]) -> type:
    strict = _StrictNumberMeta(name, (), {"accepted": accepted})
    # typeguard names the expected type in its messages: let it say "int", not "_StrictInt".
    strict.__module__ = "builtins"
    strict.__qualname__ = name
    return strict


_STRICT_NUMBERS: dict[Any, type] = {
    int: _strict_number("int", (int,)),
    float: _strict_number("float", (float, int)),
    complex: _strict_number("complex", (complex, float, int)),
}

_UNION_ORIGINS = (typing.Union, types.UnionType)
_VARIADIC = (ParameterKind.VAR_POSITIONAL, ParameterKind.VAR_KEYWORD)


def _without_bool_as_number(annotation: Any) -> Any:
    """The annotation with every ``int``/``float``/``complex`` replaced by a bool-rejecting twin."""
    try:
        return _strict_annotation_cached(annotation)
    except TypeError:  # unhashable annotation (e.g. a Literal of a list): not cached
        return _strict_annotation(annotation)


@functools.lru_cache(maxsize=1024)
def _strict_annotation_cached(annotation: Any) -> Any:
    return _strict_annotation(annotation)


def _strict_annotation(annotation: Any) -> Any:
    if annotation in _STRICT_NUMBERS:
        return _STRICT_NUMBERS[annotation]
    origin = typing.get_origin(annotation)
    args = typing.get_args(annotation)
    # Literal compares by type already; Callable's argument lists do not rebuild like other generics.
    if origin is None or not args or origin in (typing.Literal, Callable):
        return annotation
    if origin is typing.Annotated:
        inner = _strict_annotation(args[0])
        return annotation if inner is args[0] else typing.Annotated[(inner, *annotation.__metadata__)]
    new_args = tuple(
        arg if arg is Ellipsis or isinstance(arg, tuple | list) else _strict_annotation(arg) for arg in args
    )
    if all(new is old for new, old in zip(new_args, args, strict=True)):
        return annotation
    if origin in _UNION_ORIGINS:
        return typing.Union[new_args]  # noqa: UP007 - built from a tuple at run time
    try:
        if isinstance(annotation, types.GenericAlias):
            return types.GenericAlias(origin, new_args)
        return annotation.copy_with(new_args)
    except (TypeError, AttributeError):
        # A generic we cannot rebuild: check it as written (bools may then pass as ints inside it).
        return annotation


# ---------------------------------------------------------------------------------------------
# Binding arguments to parameters.


def bind_arguments(input: Input, signature: Signature) -> dict[str, Any] | None:
    """Parameter name → value for a call with ``input``, or None when the call would not bind.

    Extra positional arguments go to ``*args`` (as a tuple) and unknown keywords to ``**kwargs``
    (as a dict) when the signature has them. Parameters the call leaves to their defaults are absent.
    """
    binding, problem = _bind(input, signature)
    return None if problem else binding


@dataclass(frozen=True)
class _Layout:
    """What binding needs to know of a signature, computed once per signature."""

    positional: tuple[Parameter, ...]
    by_name: dict[str, Parameter]
    var_positional: Parameter | None
    var_keyword: Parameter | None
    required: tuple[str, ...]


def _layout(signature: Signature) -> _Layout:
    try:
        return _layout_cached(signature)
    except TypeError:  # an unhashable annotation somewhere
        return _layout_uncached(signature)


@functools.lru_cache(maxsize=256)
def _layout_cached(signature: Signature) -> _Layout:
    return _layout_uncached(signature)


def _layout_uncached(signature: Signature) -> _Layout:
    return _Layout(
        positional=signature.positional,
        by_name={p.name: p for p in signature.parameters},
        var_positional=next(
            (p for p in signature.parameters if p.kind is ParameterKind.VAR_POSITIONAL), None
        ),
        var_keyword=next((p for p in signature.parameters if p.kind is ParameterKind.VAR_KEYWORD), None),
        required=tuple(p.name for p in signature.required),
    )


def _bind(input: Input, signature: Signature) -> tuple[dict[str, Any], str | None]:
    layout = _layout(signature)
    positional, by_name = layout.positional, layout.by_name
    var_positional, var_keyword = layout.var_positional, layout.var_keyword

    binding: dict[str, Any] = {}
    for parameter, value in zip(positional, input.args, strict=False):
        binding[parameter.name] = value
    extra = tuple(input.args[len(positional) :])
    if extra:
        if var_positional is None:
            return binding, f"{len(input.args)} positional arguments for {len(positional)} parameters"
        binding[var_positional.name] = extra

    extra_keywords: dict[str, Any] = {}
    for name, value in input.kwargs.items():
        parameter = by_name.get(name)
        if parameter is None or parameter.kind in _VARIADIC:
            if var_keyword is None:
                return binding, f"unknown keyword argument {name!r}"
            extra_keywords[name] = value
        elif parameter.kind is ParameterKind.POSITIONAL_ONLY:
            return binding, f"positional-only parameter {name!r} passed by keyword"
        elif name in binding:
            return binding, f"parameter {name!r} given twice"
        else:
            binding[name] = value
    if extra_keywords:
        assert var_keyword is not None
        binding[var_keyword.name] = extra_keywords

    missing = [name for name in layout.required if name not in binding]
    if missing:
        return binding, f"missing required argument {', '.join(map(repr, missing))}"
    return binding, None


# ---------------------------------------------------------------------------------------------
# Annotations as preconditions.


#: plain scalar annotations checked without typeguard (the common case, on the engines' hot path)
_PLAIN_SCALARS: dict[Any, Callable[[Any], bool]] = {
    str: lambda v: isinstance(v, str),
    bytes: lambda v: isinstance(v, bytes),
    bool: lambda v: isinstance(v, bool),
    type(None): lambda v: v is None,
    int: lambda v: isinstance(v, int) and not isinstance(v, bool),
    float: lambda v: isinstance(v, float | int) and not isinstance(v, bool),
    complex: lambda v: isinstance(v, complex | float | int) and not isinstance(v, bool),
}


_NOT_COMPILED = object()


def _fast_checker(annotation: Any) -> Callable[[Any], bool] | None:
    """A plain function checking ``annotation`` as typeguard would (with strict numbers), for the
    builtin shapes the engines generate; None for anything else (typeguard checks it)."""
    try:
        return _fast_checker_cached(annotation)
    except TypeError:  # unhashable annotation
        return None


@functools.lru_cache(maxsize=1024)
def _fast_checker_cached(annotation: Any) -> Callable[[Any], bool] | None:
    if annotation is typing.Any or annotation is object:
        return lambda value: True
    if isinstance(annotation, type) and annotation in _PLAIN_SCALARS:
        return _PLAIN_SCALARS[annotation]
    if annotation in (list, tuple, dict, set, frozenset):
        return lambda value: isinstance(value, annotation)
    origin = typing.get_origin(annotation)
    args = typing.get_args(annotation)
    if origin in _UNION_ORIGINS:
        members = [_fast_checker_cached(member) for member in args]
        if any(member is None for member in members):
            return None
        return lambda value: any(check(value) for check in members)  # type: ignore[misc]
    if origin is typing.Literal:
        if not all(type(item) in (int, str, bytes, bool, type(None)) for item in args):
            return None
        literals = tuple(args)
        return lambda value: any(type(value) is type(item) and value == item for item in literals)
    if origin in (list, set, frozenset) and len(args) == 1:
        item = _fast_checker_cached(args[0])
        if item is None:
            return None
        return lambda value: isinstance(value, origin) and all(item(element) for element in value)
    if origin is dict and len(args) == 2:
        key, item = _fast_checker_cached(args[0]), _fast_checker_cached(args[1])
        if key is None or item is None:
            return None
        return lambda value: isinstance(value, dict) and all(key(k) and item(v) for k, v in value.items())
    if origin is tuple and args:
        if len(args) == 2 and args[1] is Ellipsis:
            item = _fast_checker_cached(args[0])
            if item is None:
                return None
            return lambda value: isinstance(value, tuple) and all(item(element) for element in value)
        if args == ((),):
            return lambda value: value == ()
        items = [_fast_checker_cached(arg) for arg in args]
        if any(check is None for check in items):
            return None
        count = len(items)
        return lambda value: (
            isinstance(value, tuple)
            and len(value) == count
            and all(check(v) for check, v in zip(items, value, strict=True))  # type: ignore[misc]
        )
    return None


def _type_problem(value: Any, annotation: Any, *, explain: bool = True) -> str | None:
    fast = _fast_checker(annotation)
    if fast is not None:
        if fast(value):
            return None
        if not explain:
            return "does not match"
        # a mismatch goes on to typeguard, for its message
    from typeguard import CollectionCheckStrategy, ForwardRefPolicy, TypeCheckError, check_type

    try:
        check_type(
            value,
            _without_bool_as_number(annotation),
            forward_ref_policy=ForwardRefPolicy.IGNORE,
            collection_check_strategy=CollectionCheckStrategy.ALL_ITEMS,
        )
    except TypeCheckError as error:
        return str(error)
    except Exception:  # noqa: BLE001 - typeguard may fail in any way on an exotic annotation
        # typeguard cannot check this annotation at all: an unknown precondition is no precondition.
        return None
    return None


def _parameter_problem(parameter: Parameter, value: Any, *, explain: bool = True) -> str | None:
    annotation = parameter.annotation
    if annotation is None and parameter.annotated:
        annotation = type(None)  # written `x: None`
    if annotation is None or annotation is typing.Any:
        return None
    if parameter.kind is ParameterKind.VAR_POSITIONAL:
        # ``*args: int`` annotates each extra argument.
        for index, item in enumerate(value):
            if problem := _type_problem(item, annotation, explain=explain):
                return f"*{parameter.name}[{index}]: {problem}"
        return None
    if parameter.kind is ParameterKind.VAR_KEYWORD:
        for name, item in value.items():
            if problem := _type_problem(item, annotation, explain=explain):
                return f"**{parameter.name}[{name!r}]: {problem}"
        return None
    if problem := _type_problem(value, annotation, explain=explain):
        return f"argument {parameter.name}: {problem}"
    return None


def nonconformity(input: Input, signature: Signature, *, explain: bool = True) -> str | None:
    """Why ``input`` is not a valid call for ``signature`` (arity or an annotation), or None if it is.

    ``explain=False``: any text for a mismatch (cheaper: typeguard is asked only for annotations
    the plain checks do not cover)."""
    binding, problem = _bind(input, signature)
    if problem:
        return problem
    by_name = _layout(signature).by_name
    for name, value in binding.items():
        if problem := _parameter_problem(by_name[name], value, explain=explain):
            return problem
    return None


def conforms(input: Input, signature: Signature) -> bool:
    """True when ``input`` binds to ``signature`` and every annotated argument has its annotated type.

    Unannotated and ``Any`` parameters accept anything; ``bool`` is not accepted for ``int``,
    ``float`` or ``complex`` unless the annotation names ``bool`` too.
    """
    return nonconformity(input, signature, explain=False) is None


# ---------------------------------------------------------------------------------------------
# The user's precondition: --require 'n >= 0'.


class _Requirement:
    """A compiled user predicate over the parameters; callable on an :class:`Input`."""

    def __init__(self, expression: str, signature: Signature) -> None:
        self.expression = expression
        self._signature = signature
        try:
            tree = ast.parse(expression.strip(), mode="eval")
            self._code = compile(tree, "<--require>", "eval")
        except SyntaxError as error:
            raise InvalidArgument(f"--require {expression!r}: {error.msg}") from None
        except ValueError as error:  # e.g. null bytes in the text
            raise InvalidArgument(f"--require {expression!r}: {error}") from None
        parameter_names = {p.name for p in signature.parameters}
        loaded = {
            node.id
            for node in ast.walk(tree)
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load)
        }
        bound_inside = {
            node.id
            for node in ast.walk(tree)
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store)
        } | {node.arg for node in ast.walk(tree) if isinstance(node, ast.arg)}
        unknown = sorted(loaded - parameter_names - bound_inside - set(dir(builtins)))
        if unknown:
            names = ", ".join(sorted(parameter_names)) or "none"
            raise InvalidArgument(
                f"--require {expression!r}: unknown name {', '.join(map(repr, unknown))} (parameters: {names})"
            )
        #: parameters the expression reads; when the call leaves one out, its default is unknown
        self._needed = frozenset(loaded & parameter_names)

    def __call__(self, input: Input) -> bool:
        namespace = _lenient_binding(input, self._signature)
        if not self._needed <= namespace.keys():
            return False
        try:
            return bool(eval(self._code, {"__builtins__": builtins}, namespace))
        except Exception:  # noqa: BLE001 - any failure means "not met", by definition
            # An expression that fails on an input does not hold for it.
            return False

    def __repr__(self) -> str:
        return f"make_requirement({self.expression!r})"


def _lenient_binding(input: Input, signature: Signature) -> dict[str, Any]:
    """Parameter names → values, as far as the arguments go (no arity checks).

    ``*args`` and ``**kwargs`` are always bound (possibly empty): unlike defaults, their value is known.
    """
    layout = _layout(signature)
    names: dict[str, Any] = {}
    for parameter, value in zip(layout.positional, input.args, strict=False):
        names[parameter.name] = value
    if layout.var_positional is not None:
        names[layout.var_positional.name] = tuple(input.args[len(layout.positional) :])
    extra_keywords: dict[str, Any] = {}
    for name, value in input.kwargs.items():
        parameter = layout.by_name.get(name)
        if parameter is not None and parameter.kind not in _VARIADIC:
            names[name] = value
        else:
            extra_keywords[name] = value
    if layout.var_keyword is not None:
        names[layout.var_keyword.name] = extra_keywords
    return names


def make_requirement(expr: str, signature: Signature) -> Callable[[Input], bool]:
    """Compile the user's precondition ``expr`` (a Python expression over the parameter names).

    The predicate is False when an argument it reads is missing from the call (defaults are not
    known) or when evaluating it raises. Raises InvalidArgument for text that does not compile or
    names something that is neither a parameter nor a builtin.
    """
    return _Requirement(expr, signature)
