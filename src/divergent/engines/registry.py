"""Engine names → classes, imported on first use so a missing optional dependency costs nothing."""

from __future__ import annotations

import importlib
from collections.abc import Sequence

from divergent.engines.base import Engine
from divergent.errors import EngineCannotProceed, InvalidArgument, MissingExtra

#: the names the CLI's ``--engines`` accepts, in the order the portfolio starts them
ENGINES: dict[str, str] = {
    "seeds": "divergent.engines.seeds:SeedEngine",
    "mutation": "divergent.engines.mutation:MutationEngine",
    "generator": "divergent.engines.text_generator:GeneratorEngine",
    "hypothesis": "divergent.engines.hypothesis:HypothesisEngine",
    "symbolic": "divergent.engines.symbolic:SymbolicEngine",
    "llm": "divergent.engines.llm_probes:LLMProbeEngine",
    "randsearch": "divergent.engines.randsearch:RandSearchEngine",
}

#: engines that need a language model: left out of the default list when no model is configured
NEEDS_MODEL: frozenset[str] = frozenset({"llm", "randsearch"})
#: the engines that handle text inputs (whole programs reading stdin), by name: the class used for
#: them. The others (hypothesis, symbolic) generate Python values and stop as "unsupported".
TEXT_ENGINES: dict[str, str] = {
    "seeds": "divergent.engines.text_seeds:TextSeedEngine",
    "mutation": "divergent.engines.text_mutation:TextMutationEngine",
    "generator": "divergent.engines.text_generator:GeneratorEngine",
    "llm": "divergent.engines.text_llm:TextProbeEngine",
    "randsearch": "divergent.engines.text_llm:TextRandSearchEngine",
}
#: engines for whole programs only: not started for functions unless named
TEXT_ONLY: frozenset[str] = frozenset({"generator"})

#: engines that run only when named (``--engines ...,randsearch`` or ``all``), never by default:
#: RandSearch is REFUTE's baseline and overlaps ProbeGen; by default a run's model calls are ProbeGen's
OPT_IN: frozenset[str] = frozenset({"randsearch"})


def engine_class(name: str, *, text: bool = False) -> type[Engine]:
    """The engine class for ``name``; ``text``: for whole programs (text inputs). An engine that
    cannot handle text raises EngineCannotProceed("unsupported")."""
    if name not in ENGINES:
        raise InvalidArgument(f"unknown engine {name!r}; choose from {', '.join(ENGINES)}")
    if text:
        if name not in TEXT_ENGINES:
            raise EngineCannotProceed(
                "unsupported", f"{name} generates Python values from annotations; whole programs read text"
            )
        dotted = TEXT_ENGINES[name]
    else:
        dotted = ENGINES[name]
    module_name, _, attribute = dotted.partition(":")
    return getattr(importlib.import_module(module_name), attribute)


def requested_engine_classes(names: Sequence[str], *, text: bool = False) -> dict[str, type[Engine]]:
    """The classes of the engines a caller named, imported now: one that cannot run is an input
    error (going on without it would answer another question)."""
    classes = {}
    for name in names:
        try:
            classes[name] = engine_class(name, text=text)
        except (EngineCannotProceed, MissingExtra, ImportError) as error:
            raise InvalidArgument(f"engine {name!r} cannot run: {error}") from error
    return classes


def parse_engine_list(text: str | None) -> tuple[str, ...]:
    """``"seeds,mutation"`` → ("seeds", "mutation"); None or "" → the default engines (all but the
    opt-in ones); "all" → every engine."""
    if not text:
        return tuple(name for name in ENGINES if name not in OPT_IN)
    if text.strip() == "all":
        return tuple(ENGINES)
    names = tuple(n.strip() for n in text.split(",") if n.strip())
    for n in names:
        if n not in ENGINES:
            raise InvalidArgument(f"--engines: unknown engine {n!r}; choose from {', '.join(ENGINES)}")
    return names
