"""Engine names → classes, imported on first use so a missing optional dependency costs nothing."""

from __future__ import annotations

import importlib

from divergent.engines.base import Engine
from divergent.errors import InvalidArgument

#: the names the CLI's ``--engines`` accepts, in the order the portfolio starts them
ENGINES: dict[str, str] = {
    "seeds": "divergent.engines.seeds:SeedEngine",
    "mutation": "divergent.engines.mutation:MutationEngine",
    "hypothesis": "divergent.engines.hypothesis:HypothesisEngine",
    "symbolic": "divergent.engines.symbolic:SymbolicEngine",
}


def engine_class(name: str) -> type[Engine]:
    try:
        dotted = ENGINES[name]
    except KeyError:
        raise InvalidArgument(f"unknown engine {name!r}; choose from {', '.join(ENGINES)}") from None
    module_name, _, attribute = dotted.partition(":")
    return getattr(importlib.import_module(module_name), attribute)


def parse_engine_list(text: str | None) -> tuple[str, ...]:
    """``"seeds,mutation"`` → ("seeds", "mutation"); None or "" or "all" → every engine."""
    if not text or text.strip() == "all":
        return tuple(ENGINES)
    names = tuple(n.strip() for n in text.split(",") if n.strip())
    for n in names:
        if n not in ENGINES:
            raise InvalidArgument(f"--engines: unknown engine {n!r}; choose from {', '.join(ENGINES)}")
    return names
