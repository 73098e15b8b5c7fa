"""Engine names: the ones ``--engines`` accepts, in the order the portfolio starts them, and which need a
model or run only when named.

Which class an engine name stands for depends on the kind of program: each kind lists its engines
(``ProgramKind.engines``: name → "module:Class", imported on first use, so a missing optional
dependency costs nothing) and a kind without one says so (``ProgramKind.engine_class``).
"""

from __future__ import annotations

from divergent.errors import InvalidArgument

#: the names the CLI's ``--engines`` accepts, in the order the portfolio starts them (cheap first)
ENGINES: tuple[str, ...] = ("seeds", "mutation", "grammar", "generator", "hypothesis", "symbolic", "llm", "randsearch")

#: engines that need a language model: left out of the default list when no model is configured
NEEDS_MODEL: frozenset[str] = frozenset({"llm", "randsearch"})

#: engines that run only when named (``--engines ...,randsearch`` or ``all``), never by default:
#: RandSearch is REFUTE's baseline and overlaps ProbeGen; by default a run's model calls are ProbeGen's
OPT_IN: frozenset[str] = frozenset({"randsearch"})

#: engines that draw from the input space itself (not from a list: seeds, a generator, a model): one
#: that runs out of new inputs has made every input it can, which a verdict may count as the space
#: judged whole (``divergent.search.verdict``)
ENUMERATING: frozenset[str] = frozenset({"mutation", "grammar", "hypothesis"})


def parse_engine_list(text: str | None) -> tuple[str, ...]:
    """``"seeds,mutation"`` → ("seeds", "mutation"); None or "" → the default engines (all but the
    opt-in ones); "all" → every engine."""
    if not text:
        return tuple(name for name in ENGINES if name not in OPT_IN)
    if text.strip() == "all":
        return ENGINES
    names = tuple(n.strip() for n in text.split(",") if n.strip())
    for n in names:
        if n not in ENGINES:
            raise InvalidArgument(f"--engines: unknown engine {n!r}; choose from {', '.join(ENGINES)}")
    return names
