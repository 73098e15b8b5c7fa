"""The structure of inputs, mined from the code under test: regular expressions, date formats,
literals, dict keys and attributes each parameter meets, and the well-known grammars they point to.

:func:`mine_structure` reads every implementation's entry point and the same-module helpers and
constants it uses, from the syntax tree only (nothing is imported or run), and merges what it finds
with the regular expressions the user gives (``--input-regex ARG=PATTERN``).
:class:`~divergent.structure.inputs.ShapedInputs` turns it into values for the engines.

Where a change goes: a new pattern the miner follows in :mod:`.mining` (through :mod:`.scope` and
:mod:`.folding`); what the engines get of it in :mod:`.inputs`; the report's account of it in
:mod:`.findings`.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence

from divergent.errors import InvalidArgument
from divergent.programs import PythonFunction, Signature
from divergent.structure.findings import UNTARGETED, CodeStructure, ParameterStructure, RegexUse
from divergent.structure.mining import Collected, mine_function, mine_module
from divergent.structure.scope import ModuleIndex

__all__ = ["CodeStructure", "mine_structure", "parse_input_regexes"]


def parse_input_regexes(specs: Iterable[str], signature: Signature | None = None) -> dict[str, tuple[str, ...]]:
    """``ARG=PATTERN`` texts → {parameter: patterns}; a bad spec, an unknown parameter or a pattern
    that does not compile is an InvalidArgument."""
    found: dict[str, list[str]] = {}
    names = {p.name for p in signature.parameters} if signature is not None else None
    for spec in specs:
        name, separator, pattern = spec.partition("=")
        name = name.strip()
        if not separator or not name.isidentifier():
            raise InvalidArgument(f"--input-regex {spec!r}: expected ARG=PATTERN, e.g. url='https?://\\w+'")
        if names is not None and name not in names:
            raise InvalidArgument(f"--input-regex {spec!r}: the function has no parameter {name!r} (it has {', '.join(sorted(names)) or 'none'})")
        try:
            re.compile(pattern)
        except re.error as error:
            raise InvalidArgument(f"--input-regex {spec!r}: the pattern does not compile: {error}") from None
        found.setdefault(name, []).append(pattern)
    return {name: tuple(patterns) for name, patterns in found.items()}


def _record(name: str, collected: Collected) -> ParameterStructure:
    return ParameterStructure(
        name=name,
        regexes=tuple(collected.regexes),
        formats=tuple(collected.formats),
        literals=tuple(collected.literals),
        keys=tuple(collected.keys),
        attributes=tuple(collected.attributes),
        grammars=tuple(collected.grammars),
        kinds=tuple(kind for kind, _ in collected.kinds.most_common()),
    )


def _mine_one(function: PythonFunction, signature: Signature, modules: dict[str, ModuleIndex]) -> CodeStructure:
    module = modules.get(function.source)
    if module is None:
        module = modules[function.source] = ModuleIndex(function.source)
    scope = module.scope(function.entry_point)
    if scope is None:
        found = mine_module(module)
        return CodeStructure({UNTARGETED: _record(UNTARGETED, found[UNTARGETED])})
    found = mine_function(module, function.entry_point)
    # Parameters named differently in this implementation are matched to the signature by position.
    renamed = {}
    common = [p.name for p in signature.parameters]
    for position, own in enumerate(scope.parameters):
        renamed[own] = own if own in common or position >= len(common) else common[position]
    parameters: dict[str, ParameterStructure] = {}
    for target, collected in found.items():
        name = renamed.get(target, target) if target else UNTARGETED
        record = _record(name, collected)
        parameters[name] = parameters[name].merged(record) if name in parameters else record
    return CodeStructure(parameters)


def mine_structure(
    functions: Sequence[PythonFunction], signature: Signature, input_regexes: Mapping[str, Sequence[str]] | None = None,
) -> CodeStructure:
    """What every implementation (its entry point, the helpers and constants of its module it uses)
    does with each parameter, plus the user's regular expressions (first, marked as given)."""
    structure = CodeStructure()
    for name, patterns in (input_regexes or {}).items():
        given = ParameterStructure(name, regexes=tuple(RegexUse(p, 0, "given", user=True) for p in patterns), kinds=("str",))
        structure = structure.merged(CodeStructure({name: given}))
    modules: dict[str, ModuleIndex] = {}
    for function in functions:
        try:
            mined = _mine_one(function, signature, modules)
        except (RecursionError, MemoryError, ValueError, TypeError):
            continue  # code too deep or odd to read: its inputs are generated without its structure
        structure = structure.merged(mined)
    return structure
