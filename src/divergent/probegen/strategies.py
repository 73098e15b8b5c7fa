"""ProbeGen's search strategies: how many children a node of the tree gets at each depth (Sec. 4.1).

Full (``K`` everywhere), Top (``K`` at the top, then 1), Decreasing (``K``, ``K-1``, ... at least 1),
Increasing (``K``, ``K+1``, ...), Halving (``K``, ``K//2``, ... at least 1) and Doubling (``K``,
``2K``, ...), up to depth ``D``. The default, as the paper chose, is Decreasing with ``K = 3`` and
``D = 4``: at most 3 + 6 + 6 + 6 = 21 model calls (:func:`max_calls` gives the bound for any
strategy). A *schedule* is the tuple of children taken at depths 1..D (:func:`branching_schedule`).
"""

from __future__ import annotations

import enum
from collections.abc import Sequence

from divergent.errors import InvalidArgument

__all__ = [
    "DEFAULT_D",
    "DEFAULT_K",
    "DEFAULT_STRATEGY",
    "TreeStrategy",
    "as_strategy",
    "branching",
    "branching_schedule",
    "max_calls",
    "parse_strategies",
    "schedule_calls",
    "strategy_name",
]

DEFAULT_K = 3
DEFAULT_D = 4


class TreeStrategy(enum.StrEnum):
    """How many children a node gets at each depth (Sec. 4.1)."""

    FULL = "full"
    TOP = "top"
    DECREASING = "decreasing"
    INCREASING = "increasing"
    HALVING = "halving"
    DOUBLING = "doubling"


DEFAULT_STRATEGY = TreeStrategy.DECREASING


def as_strategy(value: TreeStrategy | str) -> TreeStrategy:
    """The strategy named ``value`` (any case); InvalidArgument listing the choices otherwise."""
    try:
        return TreeStrategy(str(value).lower())
    except ValueError:
        raise InvalidArgument(
            f"strategy {value!r}: choose from {', '.join(s.value for s in TreeStrategy)}"
        ) from None


def branching(strategy: TreeStrategy | str, k: int, depth: int) -> int:
    """Children of a node at ``depth`` (the root is depth 0) under ``strategy`` with parameter ``k``."""
    strategy = as_strategy(strategy)
    if k < 1:
        raise InvalidArgument(f"K={k!r} must be >= 1")
    if depth < 0:
        raise InvalidArgument(f"depth={depth!r} must be >= 0")
    if strategy is TreeStrategy.FULL:
        return k
    if strategy is TreeStrategy.TOP:
        return k if depth == 0 else 1
    if strategy is TreeStrategy.DECREASING:
        return max(1, k - depth)
    if strategy is TreeStrategy.INCREASING:
        return k + depth
    if strategy is TreeStrategy.HALVING:
        return max(1, k >> depth)
    return k << depth  # doubling


def branching_schedule(strategy: TreeStrategy | str, k: int, depth: int) -> tuple[int, ...]:
    """The number of children taken at depths 1..``depth`` (entry ``d - 1`` is the branching under a
    node at depth ``d - 1``; the root, depth 0, is the initial prompt), as the search makes them."""
    if k < 1 or depth < 1:
        raise InvalidArgument(f"K={k}, D={depth}: both must be at least 1")
    return tuple(branching(strategy, k, turn) for turn in range(depth))


def schedule_calls(schedule: Sequence[int]) -> int:
    """Model calls of a full tree of this shape: the number of its non-root nodes."""
    calls, width = 0, 1
    for children in schedule:
        width *= children
        calls += width
    return calls


def max_calls(strategy: TreeStrategy | str, k: int, d: int) -> int:
    """Model calls of a full tree of depth ``d``: the most a search with this strategy, ``K`` and
    ``D`` makes (no counterexample found)."""
    if d < 1:
        raise InvalidArgument(f"D={d!r} must be >= 1")
    return schedule_calls(tuple(branching(strategy, k, depth) for depth in range(d)))


def strategy_name(strategy: TreeStrategy | str) -> str:
    """The name shown in tables, plots and JSON: "Full", "Decreasing", ..."""
    return TreeStrategy(str(strategy).lower()).value.capitalize()


def parse_strategies(text: str) -> list[TreeStrategy]:
    """``all`` or a comma-separated list of strategy names (any case)."""
    if text.strip().lower() == "all":
        return list(TreeStrategy)
    by_name = {strategy.value: strategy for strategy in TreeStrategy}
    chosen: list[TreeStrategy] = []
    for name in (part.strip() for part in text.split(",")):
        if not name:
            continue
        strategy = by_name.get(name.lower())
        if strategy is None:
            names = ", ".join(strategy_name(s) for s in TreeStrategy)
            raise InvalidArgument(f"unknown strategy {name!r}: choose all or from {names}")
        if strategy not in chosen:
            chosen.append(strategy)
    if not chosen:
        raise InvalidArgument("no strategy given: use all or names like Full,Decreasing")
    return chosen
