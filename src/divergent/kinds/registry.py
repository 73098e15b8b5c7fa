"""The kinds of program, by name, and the choice of one from what a caller named.

A kind is registered by the dotted path of its instance and imported on first use (the way engines
are), so this module imports nothing of divergent: the search, the reports (a stored report names
its kind) and the command line find a kind here. A new kind is one module and one line in
:data:`KINDS`; its instance implements :class:`divergent.kinds.base.ProgramKind`.

:func:`choose_kind` looks at every spec: a loaded program belongs to its kind; a spec that can only
name one kind's program (a ``.cpp`` file, ``exec:PATH``, ``cmd:...``) claims it; otherwise the
options may ask for a kind (``--stdin``); otherwise the specs are Python functions.
"""

from __future__ import annotations

import importlib
from collections.abc import Sequence
from typing import Any

from divergent.errors import InvalidArgument

#: every kind of program, by the name its records and reports carry: "module:INSTANCE". The first is
#: the default (what a spec is when nothing says otherwise).
KINDS: dict[str, str] = {
    "python-function": "divergent.kinds.functions:PYTHON_FUNCTIONS",
    "stdin-program": "divergent.kinds.stdin_programs:STDIN_PROGRAMS",
    "command": "divergent.kinds.commands:COMMANDS",
}
DEFAULT_KIND = next(iter(KINDS))


def kind_named(name: str) -> Any:
    """The kind registered as ``name`` (a :class:`~divergent.kinds.base.ProgramKind`)."""
    dotted = KINDS.get(name)
    if dotted is None:
        raise InvalidArgument(f"unknown kind of program {name!r}; known: {', '.join(KINDS)}")
    module_name, _, attribute = dotted.partition(":")
    return getattr(importlib.import_module(module_name), attribute)


def all_kinds() -> list[Any]:
    return [kind_named(name) for name in KINDS]


def nouns(kinds: Sequence[Any]) -> str:
    """The kinds' programs for a message: "Python functions", "whole programs and commands"."""
    plural = [f"{kind.noun}s" for kind in kinds]
    if len(plural) < 2:
        return "".join(plural)
    return ", ".join(plural[:-1]) + " and " + plural[-1]


def choose_kind(specs: Sequence[object], options: Any) -> Any:
    """The one kind of the programs ``specs`` name under ``options`` (a
    :class:`~divergent.kinds.options.SearchOptions`). Specs of two kinds are an input error."""
    kinds = all_kinds()
    claimed: dict[str, Any] = {}
    for spec in specs:
        for kind in kinds:
            if kind.claims(spec):
                claimed.setdefault(kind.name, kind)
                break
    if len(claimed) > 1:
        first, second = list(claimed.values())[:2]
        raise InvalidArgument(
            f"{first.noun}s and {second.noun}s cannot be compared with each other: give programs of one kind"
        )
    if claimed:
        return next(iter(claimed.values()))
    asked = [kind for kind in kinds if kind.asked(options)]
    return asked[0] if asked else kinds[0]
