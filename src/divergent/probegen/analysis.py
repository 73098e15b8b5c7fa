"""How good is each ProbeGen search strategy for its cost? (ProbeGen, Sec. 4.1.)

One samples, per pair of implementations, a *full* search tree: every node that does not expose a
difference gets K children (independent LLM samples given the same history), down to depth D. Any
strategy that takes ``k_d <= K`` children at depth ``d`` and stops at depth ``D' <= D`` is then a
sub-tree shape of that tree, and its probability of success is estimated, without further LLM calls,
by the paper's generalisation of pass@k:

    sigma(n) = 1                                                        if n differentiates
    sigma(n) = mean over k-subsets c of n's children of 1 - prod_{j in c} (1 - sigma(j))   otherwise

(with ``sigma = 0`` for a non-differentiating node at the strategy's last depth). The mean over all
``C(n, k)`` subsets is computed exactly, not by sampling: the children's sub-trees are chosen
independently, so the mean of the product over k-subsets is the elementary symmetric polynomial
``e_k(1 - sigma_1, ..., 1 - sigma_n) / C(n, k)``. With 0/1 values this is pass@k's
``1 - C(n - c, k) / C(n, k)``. ``sigma`` at the root is the probability that a sub-tree of the
strategy's shape, drawn uniformly from the sampled tree, holds a differentiating node; as for pass@k
its expectation over sampled trees is the strategy's true success probability (each level is a
U-statistic of i.i.d. children).

Cost: ``calls`` is the number of LLM calls of the strategy's shape (what a run costs at most, the
paper's measure); ``expected_calls`` and ``expected_tokens`` are the means over the same random
sub-trees, where a node that differentiates is not expanded further.

Trees are :class:`~divergent.probegen.tree.ProbeTree` files (one per pair, written by ``divergent
probegen sample``; the format is :mod:`divergent.probegen.tree`'s). Here, a node's ``success`` is what
counts ("differentiating" below): a difference the filter rejected does not end the search. A tree
must be full (:func:`require_full`): it has ``K`` and ``D``, and a node that did not succeed above
depth D has exactly K children (the children of a success are ignored, and nothing may sit below
depth D).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import Any, TypeVar

from divergent.errors import InvalidArgument
from divergent.probegen.strategies import (
    TreeStrategy,
    branching_schedule,
    max_calls,
    schedule_calls,
    strategy_name,
)
from divergent.probegen.tree import ProbeNode, ProbeTree, TreeFormatError, read_tree

__all__ = [
    "COST_MEASURES",
    "LoadedTrees",
    "StrategyAnalysis",
    "StrategyPoint",
    "TreeEstimator",
    "analyze",
    "cheapest_reaching",
    "cost_table",
    "elementary_symmetric",
    "expected_total",
    "load_trees",
    "pareto_front",
    "require_full",
    "success_probability",
]


# --------------------------------------------------------------------------------------------- full trees


def require_full(tree: ProbeTree) -> ProbeTree:
    """The tree, checked to be a full tree of its ``K`` and ``D``; a TreeFormatError naming the file
    and the node otherwise."""
    where = str(tree.source) if tree.source is not None else "tree"
    k, depth = tree.k, tree.depth
    for name, value in (("K", k), ("D", depth)):
        if value is None:
            raise TreeFormatError(f'{where}: "{name}" must be a positive integer, not None')
    assert k is not None and depth is not None

    def check(node: ProbeNode, node_depth: int) -> None:
        if node.success:
            return  # a counterexample ends its branch: anything below does not count
        label = f"{where}: node {node.path} (depth {node_depth})"
        if node_depth == depth and node.children:
            raise TreeFormatError(f"{label}: has children below the tree's depth D={depth}")
        if node_depth < depth and len(node.children) != k:
            raise TreeFormatError(f"{label}: {len(node.children)} children, a full tree has K={k}")
        for child in node.children:
            check(child, node_depth + 1)

    if len(tree.children) != k:
        raise TreeFormatError(f"{where}: the root has {len(tree.children)} children, a full tree has K={k}")
    for child in tree.children:
        check(child, 1)
    return tree


@dataclass(frozen=True)
class LoadedTrees:
    trees: list[ProbeTree]
    #: (file, reason) for the files skipped with ``skip_malformed``
    skipped: list[tuple[Path, str]] = field(default_factory=list)


def load_trees(locations: Sequence[Path], *, skip_malformed: bool = False) -> LoadedTrees:
    """The trees in these files and directories (``*.json``, not recursive), in name order.

    A malformed file is an error naming it, or with ``skip_malformed`` a reason in ``skipped``.
    """
    files: list[Path] = []
    for location in locations:
        if location.is_dir():
            files.extend(sorted(location.glob("*.json")))
        elif location.is_file():
            files.append(location)
        else:
            raise InvalidArgument(f"{location}: no such file or directory")
    if not files:
        raise InvalidArgument(f"no tree files (*.json) in {', '.join(str(p) for p in locations)}")
    trees: list[ProbeTree] = []
    skipped: list[tuple[Path, str]] = []
    for file in files:
        try:
            trees.append(require_full(read_tree(file)))
        except TreeFormatError as error:
            if not skip_malformed:
                raise
            skipped.append((file, str(error)))
    if not trees:
        raise InvalidArgument(f"none of the {len(files)} tree file(s) could be read; first: {skipped[0][1]}")
    return LoadedTrees(trees, skipped)



# --------------------------------------------------------------------------------------------- estimator

Number = TypeVar("Number", float, Fraction)


def elementary_symmetric(values: Sequence[Number], order: int) -> Number:
    """e_order(values): the sum over all ``order``-subsets of the product of their values."""
    zero = values[0] * 0 if values else 0
    sums = [zero + 1] + [zero] * order  # sums[j] = e_j of the values seen so far
    for value in values:
        for j in range(order, 0, -1):
            sums[j] += sums[j - 1] * value
    return sums[order]


def _check_schedule(tree: ProbeTree, schedule: Sequence[int]) -> tuple[int, ...]:
    schedule = tuple(schedule)
    if not schedule or any(k < 1 for k in schedule):
        raise InvalidArgument(f"schedule {schedule}: needs at least one depth, each taking at least 1 child")
    if tree.k is None or tree.depth is None:
        raise InvalidArgument(f"tree {tree.pair!r} has no K and D: it was not sampled as a full tree")
    if len(schedule) > tree.depth or max(schedule) > tree.k:
        raise InvalidArgument(
            f"schedule {schedule} does not fit in tree {tree.pair!r} sampled with K={tree.k}, D={tree.depth}"
        )
    return schedule


class TreeEstimator:
    """The estimator on one tree for many schedules at once.

    sigma of a node depends only on the node and the part of the schedule below it, so values are
    kept per (node, remaining schedule) and shared by every schedule with that tail; a node with no
    differentiating descendant within reach is 0 without a walk.
    """

    def __init__(
        self, tree: ProbeTree, *, exact: bool = False, weight: Callable[[ProbeNode], float] = lambda node: 1.0
    ) -> None:
        self.tree = tree
        self.weight = weight
        self._one: float | Fraction = Fraction(1) if exact else 1.0
        self._sigma: dict[tuple[int, tuple[int, ...]], Any] = {}
        self._total: dict[tuple[int, tuple[int, ...]], float] = {}
        # levels below each node to its nearest differentiating node (0: itself; absent: none)
        self._nearest: dict[int, int] = {}
        for child in tree.children:
            self._find_nearest(child)

    def _find_nearest(self, node: ProbeNode) -> int | None:
        if node.success:
            self._nearest[id(node)] = 0  # a success ends its branch: what is below does not count
            return 0
        found = [self._find_nearest(child) for child in node.children]
        below = [levels + 1 for levels in found if levels is not None]
        nearest = min(below, default=None)
        if nearest is not None:
            self._nearest[id(node)] = nearest
        return nearest

    def success(self, schedule: Sequence[int]) -> Any:
        """sigma at the root for this schedule (a Fraction when exact)."""
        return self._at_least_one(self.tree.children, _check_schedule(self.tree, schedule))

    def expected(self, schedule: Sequence[int]) -> float:
        """The mean summed weight of the random sub-trees of this schedule's shape."""
        return self._below(self.tree.children, _check_schedule(self.tree, schedule))

    def _at_least_one(self, children: Sequence[ProbeNode], schedule: tuple[int, ...]) -> Any:
        # the mean over k-subsets of P(some chosen child succeeds), by e_k of the failure chances
        k, rest = schedule[0], schedule[1:]
        failures = [self._one - self._node_sigma(child, rest) for child in children]
        return self._one - elementary_symmetric(failures, k) / math.comb(len(children), k)

    def _node_sigma(self, node: ProbeNode, rest: tuple[int, ...]) -> Any:
        nearest = self._nearest.get(id(node))
        if nearest is None or nearest > len(rest):
            return self._one * 0
        if nearest == 0:
            return self._one
        key = (id(node), rest)
        value = self._sigma.get(key)
        if value is None:
            value = self._sigma[key] = self._at_least_one(node.children, rest)
        return value

    def _below(self, children: Sequence[ProbeNode], schedule: tuple[int, ...]) -> float:
        # each child is in a random k-subset with probability k / n
        rest = schedule[1:]
        return schedule[0] / len(children) * sum(self._node_total(child, rest) for child in children)

    def _node_total(self, node: ProbeNode, rest: tuple[int, ...]) -> float:
        if node.success or not rest:
            return self.weight(node)
        key = (id(node), rest)
        value = self._total.get(key)
        if value is None:
            value = self._total[key] = self.weight(node) + self._below(node.children, rest)
        return value


def success_probability(tree: ProbeTree, schedule: Sequence[int], *, exact: bool = False) -> float | Fraction:
    """sigma at the root: the probability that a uniformly drawn sub-tree with ``schedule[d]``
    children at depth ``d + 1`` holds a differentiating node (exact; a Fraction with ``exact``)."""
    return TreeEstimator(tree, exact=exact).success(schedule)


def expected_total(
    tree: ProbeTree, schedule: Sequence[int], weight: Callable[[ProbeNode], float] = lambda node: 1.0
) -> float:
    """The mean over the same random sub-trees of the summed ``weight`` of their nodes, where a
    differentiating node is not expanded (weight 1: LLM calls; node tokens: tokens)."""
    return TreeEstimator(tree, weight=weight).expected(schedule)


def _node_tokens(node: ProbeNode) -> float:
    return float(node.tokens or 0)


# --------------------------------------------------------------------------------------------- analysis


COST_MEASURES = ("calls", "expected_calls", "tokens")


@dataclass(frozen=True)
class StrategyPoint:
    """One (strategy, K, D): its cost and its success probability averaged over the trees."""

    strategy: TreeStrategy
    k: int
    depth: int
    schedule: tuple[int, ...]
    calls: int
    success: float
    #: standard error of the mean over trees (0 with a single tree)
    stderr: float
    expected_calls: float
    expected_tokens: float | None

    def cost(self, measure: str) -> float:
        if measure == "calls":
            return float(self.calls)
        if measure == "expected_calls":
            return self.expected_calls
        if measure == "tokens":
            if self.expected_tokens is None:
                raise InvalidArgument("cost by tokens: some tree nodes have no token usage recorded")
            return self.expected_tokens
        raise InvalidArgument(f"unknown cost measure {measure!r}: choose from {', '.join(COST_MEASURES)}")

    def to_json(self) -> dict[str, Any]:
        return {
            "strategy": strategy_name(self.strategy), "K": self.k, "D": self.depth, "schedule": list(self.schedule),
            "calls": self.calls, "success": self.success, "stderr": self.stderr,
            "expected_calls": self.expected_calls, "expected_tokens": self.expected_tokens,
        }


@dataclass(frozen=True)
class StrategyAnalysis:
    points: list[StrategyPoint]
    fronts: dict[TreeStrategy, list[StrategyPoint]]
    #: the Pareto front over all strategies together
    overall_front: list[StrategyPoint]
    cost_measure: str
    max_k: int
    max_depth: int
    trees_used: int
    #: trees left out because none of their nodes differentiated (the paper's estimate assumes a
    #: difference exists)
    trees_undisproved: int

    def to_json(self) -> dict[str, Any]:
        return {
            "cost_measure": self.cost_measure, "max_K": self.max_k, "max_D": self.max_depth,
            "trees_used": self.trees_used, "trees_undisproved": self.trees_undisproved,
            "points": [point.to_json() for point in self.points],
            "pareto_fronts": {strategy_name(s): [p.to_json() for p in front] for s, front in self.fronts.items()},
            "overall_pareto_front": [point.to_json() for point in self.overall_front],
        }


def pareto_front(points: Iterable[StrategyPoint], measure: str = "calls") -> list[StrategyPoint]:
    """The points no other point beats: none is at most as costly and at least as successful with
    one of the two strict. In increasing cost (and so increasing success); of exact ties, the
    smallest K, then D, stays."""
    ordered = sorted(points, key=lambda p: (p.cost(measure), -p.success, p.k, p.depth, p.strategy))
    front: list[StrategyPoint] = []
    for point in ordered:
        # sorted so that at equal cost the most successful comes first
        if not front or point.success > front[-1].success:
            front.append(point)
    return front


def cheapest_reaching(front: Sequence[StrategyPoint], target: float, measure: str = "calls") -> StrategyPoint | None:
    """The cheapest point whose success is at least ``target``, if any."""
    reaching = [point for point in front if point.success >= target]
    return min(reaching, key=lambda p: p.cost(measure)) if reaching else None


def analyze(
    trees: Sequence[ProbeTree],
    strategies: Sequence[TreeStrategy] = tuple(TreeStrategy),
    *,
    max_k: int | None = None,
    max_depth: int | None = None,
    cost_measure: str = "calls",
    include_undisproved: bool = False,
) -> StrategyAnalysis:
    """Success and cost of every (strategy, K, D) that fits in all the trees, and the Pareto fronts."""
    if not trees:
        raise InvalidArgument("no trees to analyse")
    if cost_measure not in COST_MEASURES:
        raise InvalidArgument(f"unknown cost measure {cost_measure!r}: choose from {', '.join(COST_MEASURES)}")
    sampled_k = min(tree.k for tree in trees)
    sampled_depth = min(tree.depth for tree in trees)
    for name, value, limit in (("--max-k", max_k, sampled_k), ("--max-depth", max_depth, sampled_depth)):
        if value is not None and not 1 <= value <= limit:
            raise InvalidArgument(f"{name} {value}: the trees allow 1 to {limit}")
    max_k = max_k or sampled_k
    max_depth = max_depth or sampled_depth
    used = [tree for tree in trees if include_undisproved or tree.disproved]
    if not used:
        raise InvalidArgument(
            f"none of the {len(trees)} tree(s) holds a differentiating node; "
            "use --include-undisproved to estimate over them anyway"
        )
    tokens_known = all(tree.tokens_known for tree in used)
    if cost_measure == "tokens" and not tokens_known:
        raise InvalidArgument("cost by tokens: some tree nodes have no token usage recorded")

    shapes = [
        (strategy, k, depth, branching_schedule(strategy, k, depth))
        for strategy in strategies
        for k in range(1, max_k + 1)
        for depth in range(1, max_depth + 1)
    ]
    # a shape that needs more samples per node than the trees have cannot be estimated
    shapes = [shape for shape in shapes if max(shape[3]) <= sampled_k]
    successes: list[list[float]] = [[] for _ in shapes]
    calls: list[list[float]] = [[] for _ in shapes]
    tokens: list[list[float]] = [[] for _ in shapes]
    for tree in used:  # one tree at a time: the estimators' memory goes with it
        by_calls = TreeEstimator(tree)
        by_tokens = TreeEstimator(tree, weight=_node_tokens) if tokens_known else None
        for index, (_, _, _, schedule) in enumerate(shapes):
            successes[index].append(float(by_calls.success(schedule)))
            calls[index].append(by_calls.expected(schedule))
            if by_tokens is not None:
                tokens[index].append(by_tokens.expected(schedule))
    points = [
        StrategyPoint(
            strategy=strategy, k=k, depth=depth, schedule=schedule, calls=schedule_calls(schedule),
            success=_mean(successes[index]), stderr=_standard_error(successes[index]),
            expected_calls=_mean(calls[index]), expected_tokens=_mean(tokens[index]) if tokens_known else None,
        )
        for index, (strategy, k, depth, schedule) in enumerate(shapes)
    ]
    fronts = {
        strategy: pareto_front([p for p in points if p.strategy is strategy], cost_measure) for strategy in strategies
    }
    return StrategyAnalysis(
        points=points, fronts=fronts, overall_front=pareto_front(points, cost_measure), cost_measure=cost_measure,
        max_k=max_k, max_depth=max_depth, trees_used=len(used), trees_undisproved=len(trees) - len(used),
    )


def _mean(values: Iterable[float]) -> float:
    collected = list(values)
    return sum(collected) / len(collected)


def _standard_error(values: Sequence[float]) -> float:
    if len(values) < 2:
        return 0.0
    mean = _mean(values)
    variance = sum((value - mean) ** 2 for value in values) / (len(values) - 1)
    return math.sqrt(variance / len(values))


def cost_table(strategies: Sequence[TreeStrategy], k_values: Sequence[int], depths: Sequence[int]) -> list[dict[str, Any]]:
    """The most LLM calls per strategy, K and D: rows ``{"strategy", "K", "D", "schedule", "calls"}``."""
    return [
        {"strategy": strategy_name(strategy), "K": k, "D": depth, "schedule": branching_schedule(strategy, k, depth),
         "calls": max_calls(strategy, k, depth)}
        for strategy in strategies
        for k in k_values
        for depth in depths
    ]
