"""How a function of a diff is called by the search: its parameters on both sides brought to the
ones both take, and a method made a function (a static or class method through its class, an
instance method through an instance built from its class's annotations or the user's factory).

A method is called through an entry the worker defines in the module's namespace before it looks
the entry point up (:attr:`~divergent.programs.PythonFunction.setup_code`), so the module is
imported as it is normally and the method runs in it unchanged."""

from __future__ import annotations

import ast
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

from divergent.annotations import resolve_annotation
from divergent.changes.symbols import Symbol
from divergent.errors import InvalidArgument, SignatureMismatch
from divergent.load.signatures import common_signature, signature_from_ast
from divergent.programs import Parameter, ParameterKind, PythonFunction, Signature

__all__ = ["Factory", "Skip", "Way", "calling_way", "common_parameters", "parse_factories"]

_VARIADIC = (ParameterKind.VAR_POSITIONAL, ParameterKind.VAR_KEYWORD)


class Skip(Exception):
    """A function the diff cannot check, with the reason (shown in the plan)."""


@dataclass(frozen=True)
class Factory:
    """``--factory CLASS=MODULE:CALLABLE``: an instance of ``CLASS`` (``module:Class`` or ``Class``)
    is ``MODULE.CALLABLE()``."""

    cls: str
    module: str
    name: str

    def matches(self, module: str, qualname: str) -> bool:
        return self.cls in (qualname, f"{module}:{qualname}")


def parse_factories(specs: Sequence[str]) -> tuple[Factory, ...]:
    """The ``--factory`` options (an input error names the one that is malformed)."""
    found = []
    for spec in specs:
        cls, equals, target = spec.partition("=")
        module, colon, name = target.rpartition(":")
        if not equals or not colon or not cls.strip() or not module or not name.isidentifier():
            raise InvalidArgument(f"--factory {spec!r}: expected CLASS=MODULE:CALLABLE, e.g. "
                                  "pkg.mod:Parser=pkg.mod:make_parser")
        found.append(Factory(cls.strip(), module.strip(), name))
    return tuple(found)


@dataclass(frozen=True)
class Way:
    """How one side's function is called: its entry point, the code that defines the entry (empty
    for a top-level function) and the parameters the calls supply."""

    entry_point: str
    setup_code: str
    parameters: tuple[Parameter, ...]
    #: how it is described in the plan ("static method", "instance method, built by make_parser()")
    how: str = "function"


def _method_kind(symbol: Symbol) -> str:
    names = {name.rsplit(".", 1)[-1] for name in symbol.decorators}
    if "staticmethod" in names:
        return "static method"
    if "classmethod" in names:
        return "class method"
    if "setter" in names or "deleter" in names:
        return "property setter"
    if names & {"property", "cached_property"}:
        return "property"
    return "instance method"


def _callable_parameters(node: ast.AST, drop_first: bool) -> tuple[Parameter, ...]:
    assert isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda)
    parameters = signature_from_ast(node).parameters
    return parameters[1:] if drop_first and parameters else parameters


def _constructor(cls: ast.ClassDef, qualname: str) -> tuple[Parameter, ...]:
    """The parameters that build an instance of ``cls`` from their annotations (Skip when they do not)."""
    decorators = {ast.unparse(d.func if isinstance(d, ast.Call) else d).rsplit(".", 1)[-1] for d in cls.decorator_list}
    init = next((s for s in cls.body if isinstance(s, ast.FunctionDef) and s.name == "__init__"), None)
    if init is not None:
        parameters = _callable_parameters(init, drop_first=True)
    elif "dataclass" in decorators:
        parameters = tuple(
            Parameter(name=s.target.id, annotation_source=ast.unparse(s.annotation),
                      annotation=resolve_annotation(s.annotation), has_default=s.value is not None,
                      default_source=ast.unparse(s.value) if s.value else None)
            for s in cls.body
            if isinstance(s, ast.AnnAssign) and isinstance(s.target, ast.Name) and s.simple
            and "ClassVar" not in ast.unparse(s.annotation)
        )
    elif not cls.bases or all(ast.unparse(b) == "object" for b in cls.bases):
        parameters = ()
    else:
        raise Skip(f"instance method: {qualname} takes its constructor from {ast.unparse(cls.bases[0])}; "
                   f"name a factory: --factory {qualname}=MODULE:CALLABLE")
    if any(p.kind in _VARIADIC or p.kind is ParameterKind.KEYWORD_ONLY for p in parameters if not p.has_default):
        raise Skip(f"instance method: {qualname}'s constructor takes keyword-only or variadic arguments; "
                   f"name a factory: --factory {qualname}=MODULE:CALLABLE")
    unannotated = [p.name for p in parameters if not p.has_default and not p.annotated and p.kind not in _VARIADIC]
    if unannotated:
        raise Skip(f"instance method: {qualname} cannot be built from its annotations ({', '.join(unannotated)} "
                   f"unannotated); name a factory: --factory {qualname}=MODULE:CALLABLE")
    # the constructor's optional and variadic parameters keep their defaults: only the required ones are supplied
    return tuple(p for p in parameters if not p.has_default and p.kind not in _VARIADIC)


def _entry_name(qualname: str, taken: Mapping[str, object]) -> str:
    name = qualname.replace(".", "_")
    while name in taken:
        name += "_"
    return name


def calling_way(symbol: Symbol, module: str, classes: Mapping[str, ast.ClassDef], taken: Mapping[str, object],
                factories: Sequence[Factory]) -> Way:
    """How the search calls ``symbol`` (a function or a method of ``module``), or Skip."""
    node = symbol.node
    if node is None:
        raise Skip("not a function")
    if isinstance(node, ast.AsyncFunctionDef):
        raise Skip("async function: divergent calls plain functions")
    if symbol.owner is None:
        return Way(symbol.qualname, "", _callable_parameters(node, drop_first=False))
    owner, method = symbol.owner, symbol.qualname.rsplit(".", 1)[-1]
    kind = _method_kind(symbol)
    entry = _entry_name(symbol.qualname, taken)
    if kind == "property setter":
        raise Skip("property setter: it returns nothing to compare")
    if kind in ("static method", "class method"):
        return Way(entry, f"{entry} = {owner}.{method}\n", _callable_parameters(node, drop_first=kind == "class method"),
                   how=kind)
    factory = next((f for f in factories if f.matches(module, owner)), None)
    parameters = () if kind == "property" else _callable_parameters(node, drop_first=True)
    call = "" if kind == "property" else "(*args[count:], **kwargs)"
    if factory is not None:
        setup = (f"from {factory.module} import {factory.name} as _divergent_factory_\n"
                 f"def {entry}(*args, **kwargs):\n    count = 0\n    return _divergent_factory_().{method}{call}\n")
        return Way(entry, setup, parameters, how=f"{kind}, instances from {factory.module}:{factory.name}()")
    cls = classes.get(owner)
    if cls is None:
        raise Skip(f"{kind}: its class {owner} was not found")
    built = _constructor(cls, owner)
    names = {p.name for p in parameters}
    built = tuple(replace(p, name=f"self_{p.name}") if p.name in names else p for p in built)
    setup = (f"def {entry}(*args, **kwargs):\n    count = {len(built)}\n"
             f"    return {owner}(*args[:count]).{method}{call}\n")
    return Way(entry, setup, (*built, *parameters),
               how=f"{kind}, instances built from {owner}'s annotations" if built else f"{kind} of {owner}()")


def common_parameters(old: Way, new: Way) -> tuple[tuple[Parameter, ...], tuple[Parameter, ...], str]:
    """Both sides' parameters brought to the ones both take (the rest must have defaults, and are
    left to them), and a note saying what was left out; Skip when the signature changed otherwise."""
    def split(parameters: tuple[Parameter, ...]) -> tuple[list[Parameter], dict[str, Parameter]]:
        positional = [p for p in parameters if p.kind in (ParameterKind.POSITIONAL_ONLY,
                                                          ParameterKind.POSITIONAL_OR_KEYWORD)]
        return positional, {p.name: p for p in parameters if p.kind is ParameterKind.KEYWORD_ONLY}

    old_positional, old_keyword = split(old.parameters)
    new_positional, new_keyword = split(new.parameters)
    shared = min(len(old_positional), len(new_positional))
    extra = [*old_positional[shared:], *new_positional[shared:],
             *(p for n, p in old_keyword.items() if n not in new_keyword),
             *(p for n, p in new_keyword.items() if n not in old_keyword)]
    before = _shown(old.parameters)
    after = _shown(new.parameters)
    required = [p.name for p in extra if not p.has_default]
    if required:
        raise Skip(f"signature changed: ({before}) → ({after}); {', '.join(required)} has no default")

    def kept(positional: list[Parameter], keyword: dict[str, Parameter], other: list[Parameter],
             other_keyword: dict[str, Parameter]) -> tuple[Parameter, ...]:
        # a parameter optional on one side only is always supplied (the other side requires it)
        out = [p if not p.has_default or other[i].has_default else replace(p, has_default=False, default_source=None)
               for i, p in enumerate(positional[:shared])]
        out += [p if not p.has_default or other_keyword[n].has_default else replace(p, has_default=False)
                for n, p in keyword.items() if n in other_keyword]
        return tuple(out)

    old_kept = kept(old_positional, old_keyword, new_positional, new_keyword)
    new_kept = kept(new_positional, new_keyword, old_positional, old_keyword)
    note = f"compared on the parameters both take; {', '.join(p.name for p in extra)} left to their defaults" if extra else ""
    if before != after and not extra:
        note = f"signature ({before}) → ({after})"
    return old_kept, new_kept, note


def _shown(parameters: tuple[Parameter, ...]) -> str:
    return str(Signature(parameters=parameters))[1:-1]


def check_common(old: PythonFunction, new: PythonFunction) -> None:
    """Skip when the sides' parameters cannot be merged (an annotation changed incompatibly)."""
    try:
        common_signature([old, new])
    except SignatureMismatch as error:
        raise Skip(f"signature changed: {error}") from None
