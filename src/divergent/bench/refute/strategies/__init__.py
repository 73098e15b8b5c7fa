"""The strategies, by name: the paper's (zero-shot, few-shot, zero-shot-oracle, agent, randsearch,
randsearch-oracle) and ours (divergent, hybrid)."""

from __future__ import annotations

from divergent.bench.refute.strategies.agent import Agent
from divergent.bench.refute.strategies.base import AttemptResult, Context, RefuteStrategy
from divergent.bench.refute.strategies.prompting import Prompting
from divergent.bench.refute.strategies.randsearch import RandSearch
from divergent.bench.refute.strategies.search import DivergentSearch, Hybrid
from divergent.errors import InvalidArgument

__all__ = ["STRATEGIES", "AttemptResult", "Context", "RefuteStrategy", "parse_strategies"]

STRATEGIES: dict[str, RefuteStrategy] = {
    strategy.name: strategy
    for strategy in (
        Prompting("zero-shot", "zero_shot", uses_correct=False, description="one answer from the statement and code"),
        Prompting("few-shot", "few_shot", uses_correct=False,
                  description="one answer, after three worked examples with expert rationales"),
        Prompting("zero-shot-oracle", "zero_shot_oracle", uses_correct=True,
                  description="one answer; the model also sees the correct code"),
        Agent(),
        RandSearch(oracle=False),
        RandSearch(oracle=True),
        DivergentSearch(),
        Hybrid(),
    )
}


def parse_strategies(text: str) -> tuple[RefuteStrategy, ...]:
    """``"zero-shot,agent"`` → the strategies, in the order given (``all``: every one)."""
    names = [part.strip() for part in text.split(",") if part.strip()]
    if names == ["all"]:
        return tuple(STRATEGIES.values())
    if not names:
        raise InvalidArgument("--strategy: name at least one strategy")
    unknown = [name for name in names if name not in STRATEGIES]
    if unknown:
        raise InvalidArgument(f"--strategy: unknown {', '.join(unknown)}; choose from {', '.join(STRATEGIES)} or all")
    return tuple(STRATEGIES[name] for name in dict.fromkeys(names))
