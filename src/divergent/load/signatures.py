"""Signatures read from source: one function's (from its AST), and the one all implementations share.

Annotations are resolved by the safe resolver of :mod:`divergent.annotations`; nothing is imported.
:func:`check_generatable` says, before a search starts, when inputs cannot be generated at all.
"""

from __future__ import annotations

import ast
import typing
from collections.abc import Collection, Sequence
from dataclasses import replace

from divergent.annotations import analyze_annotation, resolve_annotation
from divergent.errors import InvalidArgument, MissingSeeds, SignatureMismatch
from divergent.programs import Parameter, ParameterKind, PythonFunction, Signature
from divergent.records import Input

__all__ = [
    "FunctionNode",
    "annotation_warnings",
    "check_generatable",
    "common_signature",
    "signature_from_ast",
]

#: the AST of a function divergent can compare: a ``def`` or a ``lambda``
FunctionNode = ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda


def _parameter(arg: ast.arg, kind: ParameterKind, default: ast.expr | None) -> Parameter:
    annotation = arg.annotation
    return Parameter(
        name=arg.arg,
        kind=kind,
        annotation_source=ast.unparse(annotation) if annotation is not None else None,
        annotation=resolve_annotation(annotation) if annotation is not None else None,
        has_default=default is not None,
        default_source=ast.unparse(default) if default is not None else None,
    )


def signature_from_ast(node: FunctionNode) -> Signature:
    """The signature of a ``def`` or ``lambda``, read from its AST (annotations resolved safely)."""
    arguments = node.args
    positional = [*arguments.posonlyargs, *arguments.args]
    # defaults belong to the last positional parameters
    defaults: list[ast.expr | None] = [None] * (len(positional) - len(arguments.defaults))
    defaults.extend(arguments.defaults)
    parameters: list[Parameter] = []
    for index, (arg, default) in enumerate(zip(positional, defaults, strict=True)):
        kind = (
            ParameterKind.POSITIONAL_ONLY
            if index < len(arguments.posonlyargs)
            else ParameterKind.POSITIONAL_OR_KEYWORD
        )
        parameters.append(_parameter(arg, kind, default))
    if arguments.vararg is not None:
        parameters.append(_parameter(arguments.vararg, ParameterKind.VAR_POSITIONAL, None))
    for arg, default in zip(arguments.kwonlyargs, arguments.kw_defaults, strict=True):
        parameters.append(_parameter(arg, ParameterKind.KEYWORD_ONLY, default))
    if arguments.kwarg is not None:
        parameters.append(_parameter(arguments.kwarg, ParameterKind.VAR_KEYWORD, None))
    returns = getattr(node, "returns", None)
    return Signature(
        parameters=tuple(parameters),
        return_annotation_source=ast.unparse(returns) if returns is not None else None,
    )


def _normal_source(annotation_source: str) -> str:
    try:
        return ast.unparse(ast.parse(annotation_source, mode="eval"))
    except (SyntaxError, ValueError, RecursionError):
        return annotation_source.strip()


def _same_annotation(first: str, second: str) -> bool:
    if _normal_source(first) == _normal_source(second):
        return True
    left, right = analyze_annotation(first), analyze_annotation(second)
    # objects are only comparable when fully understood (two unknown classes are both Any)
    return left.complete and right.complete and left.value == right.value


def _merge_parameter(merged: Parameter, other: Parameter, names: tuple[str, str], where: str) -> Parameter:
    if other.annotation_source is None:
        return merged
    if merged.annotation_source is None:
        return replace(merged, annotation_source=other.annotation_source, annotation=other.annotation)
    if not _same_annotation(merged.annotation_source, other.annotation_source):
        narrower = _narrower(merged, other)
        if narrower is not None:
            return replace(merged, annotation_source=narrower.annotation_source, annotation=narrower.annotation)
        raise SignatureMismatch(
            f"{names[0]} and {names[1]} annotate {where} differently: "
            f"{merged.annotation_source} vs {other.annotation_source}"
        )
    return merged


def _narrower(first: Parameter, second: Parameter) -> Parameter | None:
    """Of two annotations, the one whose values the other accepts too (``list`` beside
    ``Iterable``: a refactoring that widens a parameter), or None when neither is."""
    def origin(parameter: Parameter) -> type | None:
        annotation = parameter.annotation
        found = typing.get_origin(annotation) or annotation
        return found if isinstance(found, type) else None

    a, b = origin(first), origin(second)
    if a is None or b is None or a is b:
        return None
    # a bare class or an unparameterised alias only: the element types are not compared
    if typing.get_args(first.annotation) or typing.get_args(second.annotation):
        return None
    if issubclass(a, b):
        return first
    if issubclass(b, a):
        return second
    return None


def _describe_parameter(index: int, first: Parameter, second: Parameter) -> str:
    label = first.name if first.name == second.name else f"{first.name} / {second.name}"
    return f"parameter {index + 1} ({label})"


def common_signature(impls: Sequence[PythonFunction]) -> Signature:
    """The signature all implementations can be called with (positionally), annotations merged.

    Positional parameters may be named differently (calls are positional) but must agree in
    number and in how many are required; keyword-only names must match. Two different
    annotations of one parameter are an error, unless one accepts every value of the other (the
    narrower is taken); an annotated parameter beats an unannotated one.
    """
    if not impls:
        raise InvalidArgument("no implementations to compare")
    first = impls[0]
    merged_positional = list(first.signature.positional)
    merged_keyword = {p.name: p for p in first.signature.parameters if p.kind is ParameterKind.KEYWORD_ONLY}
    variadic = {
        kind: next((p for p in first.signature.parameters if p.kind is kind), None)
        for kind in (ParameterKind.VAR_POSITIONAL, ParameterKind.VAR_KEYWORD)
    }
    return_annotation = first.signature.return_annotation_source
    for other in impls[1:]:
        names = (first.label, other.label)
        signature = other.signature
        positional = signature.positional
        if len(positional) != len(merged_positional):
            raise SignatureMismatch(
                f"{first.label} takes {len(merged_positional)} positional parameter(s) {first.signature} "
                f"but {other.label} takes {len(positional)} {signature}"
            )
        required_here = sum(not p.has_default for p in positional)
        required_first = sum(not p.has_default for p in merged_positional)
        if required_here != required_first:
            raise SignatureMismatch(
                f"{first.label} requires {required_first} positional argument(s) {first.signature} "
                f"but {other.label} requires {required_here} {signature}"
            )
        other_variadic = {
            kind: next((p for p in signature.parameters if p.kind is kind), None) for kind in variadic
        }
        if (variadic[ParameterKind.VAR_POSITIONAL] is None) != (
            other_variadic[ParameterKind.VAR_POSITIONAL] is None
        ):
            raise SignatureMismatch(
                f"only one of {first.label} {first.signature} and {other.label} {signature} accepts *args"
            )
        keyword_only = {p.name: p for p in signature.parameters if p.kind is ParameterKind.KEYWORD_ONLY}
        if set(keyword_only) != set(merged_keyword):
            raise SignatureMismatch(
                f"{first.label} and {other.label} have different keyword-only parameters: "
                f"{', '.join(merged_keyword) or 'none'} vs {', '.join(keyword_only) or 'none'}"
            )
        for index, parameter in enumerate(positional):
            where = _describe_parameter(index, merged_positional[index], parameter)
            merged_positional[index] = _merge_parameter(merged_positional[index], parameter, names, where)
        for name, parameter in keyword_only.items():
            merged = _merge_parameter(
                merged_keyword[name], parameter, names, f"keyword-only parameter {name}"
            )
            # required wherever one implementation requires it
            if not parameter.has_default:
                merged = replace(merged, has_default=False, default_source=None)
            merged_keyword[name] = merged
        for kind, parameter in other_variadic.items():
            current = variadic[kind]
            if current is not None and parameter is not None:
                variadic[kind] = _merge_parameter(
                    current,
                    parameter,
                    names,
                    f"parameter {'*' if kind is ParameterKind.VAR_POSITIONAL else '**'}{current.name}",
                )
            else:
                # **kwargs only when every implementation takes arbitrary keywords
                variadic[kind] = None
        if return_annotation is None:
            return_annotation = signature.return_annotation_source
    parameters = [*merged_positional]
    if variadic[ParameterKind.VAR_POSITIONAL] is not None:
        parameters.append(variadic[ParameterKind.VAR_POSITIONAL])
    parameters.extend(merged_keyword.values())
    if variadic[ParameterKind.VAR_KEYWORD] is not None:
        parameters.append(variadic[ParameterKind.VAR_KEYWORD])
    return Signature(parameters=tuple(parameters), return_annotation_source=return_annotation)


def annotation_warnings(signature: Signature) -> list[str]:
    """One warning per annotation with names the safe resolver does not know (generated as Any)."""
    warnings = []
    for parameter in signature.parameters:
        if parameter.annotation_source is None:
            continue
        unknown = analyze_annotation(parameter.annotation_source).unresolved
        if unknown:
            warnings.append(
                f"parameter {parameter.name}: {parameter.annotation_source} has unknown part(s) "
                f"{', '.join(unknown)}; inputs for it are generated as if unannotated (Any)"
            )
    return warnings


def check_generatable(signature: Signature, seeds: Sequence[Input], inferred: Collection[str] = ()) -> None:
    """Raise MissingSeeds when inputs cannot be generated: unannotated required parameters (whose
    kind the code's uses do not tell: ``inferred``) and no seeds."""
    if seeds:
        return
    unannotated = [p.name for p in signature.required if not p.annotated and p.name not in inferred]
    if not unannotated:
        return
    plural = len(unannotated) > 1
    raise MissingSeeds(
        f"cannot generate inputs: parameter{'s' if plural else ''} {', '.join(unannotated)} "
        f"{'have' if plural else 'has'} no type annotation and there are no seed inputs to learn "
        "their shape from. Provide one of:\n"
        "  - type annotations, e.g. def f(items: list[int], key: str) -> ...\n"
        "  - --seeds FILE with one call per line, e.g. f([3, 1, 2], 'a')\n"
        "  - doctest examples in the docstring, e.g. >>> f([3, 1, 2], 'a')\n"
        "  - assert lines (HumanEval/MBPP style), e.g. assert f([3, 1, 2], 'a') == [1, 2, 3]"
    )
