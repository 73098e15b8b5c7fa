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

Tree files (JSON, one per pair; written by ``divergent probegen sample``)::

    {
      "format": "divergent.probegen-tree",   # required, exactly this
      "version": 1,                          # required
      "pair": "clamp_nan",                   # required: a label for the pair
      "K": 5, "D": 5,                        # required: branching and depth the tree was sampled with
      "model": "gpt-4o-mini",                # optional, informational (so are any other top-level keys)
      "children": [ NODE, ... ]              # required: the first turn's K samples (the root is the
    }                                        #   initial prompt, not an LLM call)

    NODE = {
      "path": "0.3",                         # optional: child indices from the root
      "differentiating": false,              # required: an input of this node made the implementations differ
      "success": false,                      # optional: differentiating and accepted by the spurious-
                                             #   counterexample filter; when present, this is what counts
      "usage": {"prompt_tokens": 812,        # optional: what the node's LLM call cost
                "completion_tokens": 240, "cost": 0.0004},
      "children": [ NODE, ... ]              # the next turn's samples (absent: none)
    }

Any other keys (the prompt, answer, probes and feedback ``ProbeGenSession.tree`` writes) are kept in
the file for people and ignored here. Below, "differentiating" means the node's ``success`` when the
file has it. A tree must be full: a non-differentiating node above depth D has exactly K children
(the children of a differentiating node are ignored, and nothing may sit below depth D).
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import Any, TypeVar

from divergent.errors import InvalidArgument, MissingExtra
from divergent.probegen import TREE_FORMAT, TREE_VERSION, Strategy, branching


def strategy_name(strategy: Strategy | str) -> str:
    """The name shown in tables, plots and JSON: "Full", "Decreasing", ..."""
    return Strategy(str(strategy).lower()).value.capitalize()


def parse_strategies(text: str) -> list[Strategy]:
    """``all`` or a comma-separated list of strategy names (any case)."""
    if text.strip().lower() == "all":
        return list(Strategy)
    by_name = {strategy.value: strategy for strategy in Strategy}
    chosen: list[Strategy] = []
    for name in (part.strip() for part in text.split(",")):
        if not name:
            continue
        strategy = by_name.get(name.lower())
        if strategy is None:
            names = ", ".join(strategy_name(s) for s in Strategy)
            raise InvalidArgument(f"unknown strategy {name!r}: choose all or from {names}")
        if strategy not in chosen:
            chosen.append(strategy)
    if not chosen:
        raise InvalidArgument("no strategy given: use all or names like Full,Decreasing")
    return chosen


def branching_schedule(strategy: Strategy | str, k: int, depth: int) -> tuple[int, ...]:
    """The number of children taken at depths 1..``depth`` (entry ``d - 1`` is the branching under a
    node at depth ``d - 1``; the root, depth 0, is the initial prompt), as the search makes them."""
    if k < 1 or depth < 1:
        raise InvalidArgument(f"K={k}, D={depth}: both must be at least 1")
    return tuple(branching(strategy, k, turn) for turn in range(depth))


def schedule_calls(schedule: Sequence[int]) -> int:
    """LLM calls of a full tree of this shape: the number of its non-root nodes."""
    calls, width = 0, 1
    for children in schedule:
        width *= children
        calls += width
    return calls


def strategy_calls(strategy: Strategy | str, k: int, depth: int) -> int:
    """The most LLM calls a search with this strategy, K and D makes (no counterexample found)."""
    return schedule_calls(branching_schedule(strategy, k, depth))


# --------------------------------------------------------------------------------------------- trees


class TreeFormatError(InvalidArgument):
    """A tree file that is not a valid ProbeGen tree (the message names the file and the node)."""


@dataclass(frozen=True, slots=True)
class TreeNode:
    """One LLM call of a sampled tree: its probe differentiated or not, and what it cost."""

    differentiating: bool
    children: tuple[TreeNode, ...] = ()
    path: str = ""
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    cost: float | None = None

    @property
    def tokens(self) -> int | None:
        if self.prompt_tokens is None and self.completion_tokens is None:
            return None
        return (self.prompt_tokens or 0) + (self.completion_tokens or 0)

    def walk(self) -> Iterable[TreeNode]:
        yield self
        for child in self.children:
            yield from child.walk()


@dataclass(frozen=True)
class SampledTree:
    """A full tree sampled for one pair, with branching ``k`` and depth ``depth``."""

    pair: str
    k: int
    depth: int
    children: tuple[TreeNode, ...]
    model: str | None = None
    source: Path | None = None

    def nodes(self) -> Iterable[TreeNode]:
        for child in self.children:
            yield from child.walk()

    @property
    def node_count(self) -> int:
        return sum(1 for _ in self.nodes())

    @property
    def disproved(self) -> bool:
        """Some node of the tree exposed a difference."""
        return any(node.differentiating for node in self.nodes())

    @property
    def tokens_known(self) -> bool:
        return all(node.tokens is not None for node in self.nodes())

    def to_json(self) -> dict[str, Any]:
        document: dict[str, Any] = {
            "format": TREE_FORMAT, "version": TREE_VERSION, "pair": self.pair, "K": self.k, "D": self.depth,
        }
        if self.model is not None:
            document["model"] = self.model
        document["children"] = [node_to_json(child, str(i)) for i, child in enumerate(self.children)]
        return document


def node_to_json(node: TreeNode, path: str) -> dict[str, Any]:
    """A node as the tree format has it; ``path`` is its position, used when the node has none."""
    document: dict[str, Any] = {"path": node.path or path, "differentiating": node.differentiating}
    usage = {
        name: value
        for name, value in (
            ("prompt_tokens", node.prompt_tokens), ("completion_tokens", node.completion_tokens), ("cost", node.cost)
        )
        if value is not None
    }
    if usage:
        document["usage"] = usage
    document["children"] = [
        node_to_json(child, f"{document['path']}.{i}") for i, child in enumerate(node.children)
    ]
    return document


def tree_from_json(document: Any, *, source: Path | None = None) -> SampledTree:
    """Check a decoded tree file and build the tree; errors say which file and which node."""
    where = str(source) if source is not None else "tree"

    def problem(message: str) -> TreeFormatError:
        return TreeFormatError(f"{where}: {message}")

    if not isinstance(document, dict):
        raise problem("expected a JSON object at the top level")
    if document.get("format") != TREE_FORMAT:
        raise problem(f"not a ProbeGen tree file (\"format\" must be {TREE_FORMAT!r})")
    if document.get("version") != TREE_VERSION:
        raise problem(f"unsupported version {document.get('version')!r} (this divergent reads {TREE_VERSION})")
    pair = document.get("pair")
    if not isinstance(pair, str) or not pair:
        raise problem('"pair" must be a non-empty string')
    k, depth = document.get("K"), document.get("D")
    for name, value in (("K", k), ("D", depth)):
        if not isinstance(value, int) or isinstance(value, bool) or value < 1:
            raise problem(f'"{name}" must be a positive integer, not {value!r}')
    model = document.get("model")
    if model is not None and not isinstance(model, str):
        raise problem('"model" must be a string')

    def build(raw: Any, path: str, node_depth: int) -> TreeNode:
        label = f"node {path} (depth {node_depth})"
        if not isinstance(raw, dict):
            raise problem(f"{label}: expected an object")
        differentiating = raw.get("differentiating")
        if not isinstance(differentiating, bool):
            raise problem(f'{label}: "differentiating" must be true or false')
        success = raw.get("success", differentiating)
        if not isinstance(success, bool):
            raise problem(f'{label}: "success" must be true or false')
        differentiating = success  # a difference the filter rejected does not end the search
        raw_children = raw.get("children", [])
        if not isinstance(raw_children, list):
            raise problem(f'{label}: "children" must be a list')
        if differentiating:
            raw_children = []  # a counterexample ends its branch: anything below does not count
        elif node_depth == depth and raw_children:
            raise problem(f"{label}: has children below the tree's depth D={depth}")
        elif node_depth < depth and len(raw_children) != k:
            raise problem(f"{label}: {len(raw_children)} children, a full tree has K={k}")
        prompt_tokens, completion_tokens, cost = _usage(raw.get("usage"), problem, label)
        children = tuple(build(child, f"{path}.{i}", node_depth + 1) for i, child in enumerate(raw_children))
        stated_path = raw.get("path")
        return TreeNode(
            differentiating=differentiating, children=children,
            path=stated_path if isinstance(stated_path, str) and stated_path else path,
            prompt_tokens=prompt_tokens, completion_tokens=completion_tokens, cost=cost,
        )

    raw_children = document.get("children")
    if not isinstance(raw_children, list):
        raise problem('"children" must be a list (the first turn\'s samples)')
    if len(raw_children) != k:
        raise problem(f"the root has {len(raw_children)} children, a full tree has K={k}")
    children = tuple(build(child, str(i), 1) for i, child in enumerate(raw_children))
    return SampledTree(pair=pair, k=k, depth=depth, children=children, model=model, source=source)


def _usage(raw: Any, problem: Callable[[str], TreeFormatError], label: str) -> tuple[int | None, int | None, float | None]:
    if raw is None:
        return None, None, None
    if not isinstance(raw, dict):
        raise problem(f'{label}: "usage" must be an object')
    tokens: list[int | None] = []
    for name in ("prompt_tokens", "completion_tokens"):
        value = raw.get(name)
        if value is not None and (not isinstance(value, int) or isinstance(value, bool) or value < 0):
            raise problem(f'{label}: usage "{name}" must be a non-negative integer, not {value!r}')
        tokens.append(value)
    cost = raw.get("cost")
    if cost is not None and (not isinstance(cost, int | float) or isinstance(cost, bool) or cost < 0):
        raise problem(f'{label}: usage "cost" must be a non-negative number, not {cost!r}')
    return tokens[0], tokens[1], None if cost is None else float(cost)


def load_tree(path: Path) -> SampledTree:
    """Read one tree file (see the module docstring for the format)."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise TreeFormatError(f"{path}: cannot read: {error}") from None
    try:
        document = json.loads(text)
    except json.JSONDecodeError as error:
        raise TreeFormatError(f"{path}: not JSON ({error.msg} at line {error.lineno})") from None
    return tree_from_json(document, source=path)


def write_tree(tree: SampledTree, path: Path) -> None:
    """Write a tree file (see :func:`write_tree_document`)."""
    write_tree_document(tree.to_json(), path)


def write_tree_document(document: dict[str, Any], path: Path) -> None:
    """Write a tree file after checking that it reads back, atomically (a half-written file never
    looks like a finished tree)."""
    tree_from_json(document, source=path)
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(path.name + ".partial")
    partial.write_text(json.dumps(document, indent=1, ensure_ascii=False), encoding="utf-8")
    partial.replace(path)


@dataclass(frozen=True)
class LoadedTrees:
    trees: list[SampledTree]
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
    trees: list[SampledTree] = []
    skipped: list[tuple[Path, str]] = []
    for file in files:
        try:
            trees.append(load_tree(file))
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


def _check_schedule(tree: SampledTree, schedule: Sequence[int]) -> tuple[int, ...]:
    schedule = tuple(schedule)
    if not schedule or any(k < 1 for k in schedule):
        raise InvalidArgument(f"schedule {schedule}: needs at least one depth, each taking at least 1 child")
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
        self, tree: SampledTree, *, exact: bool = False, weight: Callable[[TreeNode], float] = lambda node: 1.0
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

    def _find_nearest(self, node: TreeNode) -> int | None:
        found = [self._find_nearest(child) for child in node.children]
        below = [levels + 1 for levels in found if levels is not None]
        nearest = 0 if node.differentiating else min(below, default=None)
        if nearest is not None:
            self._nearest[id(node)] = nearest
        return nearest

    def success(self, schedule: Sequence[int]) -> Any:
        """sigma at the root for this schedule (a Fraction when exact)."""
        return self._at_least_one(self.tree.children, _check_schedule(self.tree, schedule))

    def expected(self, schedule: Sequence[int]) -> float:
        """The mean summed weight of the random sub-trees of this schedule's shape."""
        return self._below(self.tree.children, _check_schedule(self.tree, schedule))

    def _at_least_one(self, children: tuple[TreeNode, ...], schedule: tuple[int, ...]) -> Any:
        # the mean over k-subsets of P(some chosen child succeeds), by e_k of the failure chances
        k, rest = schedule[0], schedule[1:]
        failures = [self._one - self._node_sigma(child, rest) for child in children]
        return self._one - elementary_symmetric(failures, k) / math.comb(len(children), k)

    def _node_sigma(self, node: TreeNode, rest: tuple[int, ...]) -> Any:
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

    def _below(self, children: tuple[TreeNode, ...], schedule: tuple[int, ...]) -> float:
        # each child is in a random k-subset with probability k / n
        rest = schedule[1:]
        return schedule[0] / len(children) * sum(self._node_total(child, rest) for child in children)

    def _node_total(self, node: TreeNode, rest: tuple[int, ...]) -> float:
        if node.differentiating or not rest:
            return self.weight(node)
        key = (id(node), rest)
        value = self._total.get(key)
        if value is None:
            value = self._total[key] = self.weight(node) + self._below(node.children, rest)
        return value


def success_probability(tree: SampledTree, schedule: Sequence[int], *, exact: bool = False) -> float | Fraction:
    """sigma at the root: the probability that a uniformly drawn sub-tree with ``schedule[d]``
    children at depth ``d + 1`` holds a differentiating node (exact; a Fraction with ``exact``)."""
    return TreeEstimator(tree, exact=exact).success(schedule)


def expected_total(
    tree: SampledTree, schedule: Sequence[int], weight: Callable[[TreeNode], float] = lambda node: 1.0
) -> float:
    """The mean over the same random sub-trees of the summed ``weight`` of their nodes, where a
    differentiating node is not expanded (weight 1: LLM calls; node tokens: tokens)."""
    return TreeEstimator(tree, weight=weight).expected(schedule)


def _node_tokens(node: TreeNode) -> float:
    return float(node.tokens or 0)


# --------------------------------------------------------------------------------------------- analysis


COST_MEASURES = ("calls", "expected_calls", "tokens")


@dataclass(frozen=True)
class StrategyPoint:
    """One (strategy, K, D): its cost and its success probability averaged over the trees."""

    strategy: Strategy
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
    fronts: dict[Strategy, list[StrategyPoint]]
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
    trees: Sequence[SampledTree],
    strategies: Sequence[Strategy] = tuple(Strategy),
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


def cost_table(strategies: Sequence[Strategy], k_values: Sequence[int], depths: Sequence[int]) -> list[dict[str, Any]]:
    """The most LLM calls per strategy, K and D: rows ``{"strategy", "K", "D", "schedule", "calls"}``."""
    return [
        {"strategy": strategy_name(strategy), "K": k, "D": depth, "schedule": branching_schedule(strategy, k, depth),
         "calls": strategy_calls(strategy, k, depth)}
        for strategy in strategies
        for k in k_values
        for depth in depths
    ]


# --------------------------------------------------------------------------------------------- plots


def _figure_class() -> Any:
    try:
        from matplotlib.figure import Figure
    except ImportError:
        raise MissingExtra(
            "plots need matplotlib: pip install 'divergent[plots]' (or pip install matplotlib)"
        ) from None
    return Figure


def plot_analysis(analysis: StrategyAnalysis, directory: Path) -> list[Path]:
    """Figure 4-style plots, each as PNG and SVG: ``strategies.*`` (success over K and D per
    strategy, with its Pareto front traced) and ``pareto.*`` (each front's cost against success)."""
    figure_class = _figure_class()
    directory.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    for name, figure in (
        ("strategies", _strategy_grids(figure_class, analysis)),
        ("pareto", _pareto_plot(figure_class, analysis)),
    ):
        for suffix in ("png", "svg"):
            path = directory / f"{name}.{suffix}"
            figure.savefig(path, dpi=150, bbox_inches="tight")
            written.append(path)
    return written


def _strategy_grids(figure_class: Any, analysis: StrategyAnalysis) -> Any:
    import numpy as np

    strategies = list(analysis.fronts)
    columns = min(3, len(strategies))
    rows = math.ceil(len(strategies) / columns)
    figure = figure_class(figsize=(4.2 * columns, 3.6 * rows), layout="constrained")
    axes = figure.subplots(rows, columns, squeeze=False)
    image = None
    for index, strategy in enumerate(strategies):
        ax = axes[index // columns][index % columns]
        grid = np.full((analysis.max_depth, analysis.max_k), np.nan)
        for point in analysis.points:
            if point.strategy is strategy:
                grid[point.depth - 1, point.k - 1] = point.success
        masked = np.ma.masked_invalid(grid)
        edges_k = np.arange(0.5, analysis.max_k + 1)
        edges_d = np.arange(0.5, analysis.max_depth + 1)
        image = ax.pcolormesh(edges_k, edges_d, masked, vmin=0.0, vmax=1.0, cmap="viridis")
        for (row, column), value in np.ndenumerate(grid):
            if not np.isnan(value):
                ax.text(column + 1, row + 1, f"{value:.2f}", ha="center", va="center", fontsize=7,
                        color="black" if value > 0.6 else "white")
        front = analysis.fronts[strategy]
        ax.plot([p.k for p in front], [p.depth for p in front], color="red", marker="o", markersize=3, linewidth=1.0,
                alpha=0.8)
        ax.set_title(strategy_name(strategy))
        ax.set_xlabel("K")
        ax.set_ylabel("D (depth)")
        ax.set_xticks(range(1, analysis.max_k + 1))
        ax.set_yticks(range(1, analysis.max_depth + 1))
    for index in range(len(strategies), rows * columns):
        axes[index // columns][index % columns].set_visible(False)
    if image is not None:
        figure.colorbar(image, ax=axes, label="probability of success σ", shrink=0.8)
    figure.suptitle(f"success over K and D ({analysis.trees_used} trees; red: Pareto front by {analysis.cost_measure})")
    return figure


def _pareto_plot(figure_class: Any, analysis: StrategyAnalysis) -> Any:
    figure = figure_class(figsize=(6.0, 4.2), layout="constrained")
    ax = figure.subplots()
    markers, dashes = "os^vDx", ["-", "--", "-.", ":"]
    for index, (strategy, front) in enumerate(analysis.fronts.items()):
        # small K and D are one chain for every strategy: the styles keep overlapping fronts apart
        costs = [point.cost(analysis.cost_measure) for point in front]
        ax.step(costs, [point.success for point in front], where="post", marker=markers[index % len(markers)],
                markersize=4, linestyle=dashes[index % len(dashes)], alpha=0.85, label=strategy_name(strategy))
    ax.set_xscale("log")
    ax.set_xlabel({"calls": "LLM calls (most)", "expected_calls": "LLM calls (expected)",
                   "tokens": "tokens (expected)"}[analysis.cost_measure])
    ax.set_ylabel("probability of success σ")
    ax.set_ylim(0.0, 1.02)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(loc="lower right")
    ax.set_title("best success for a cost, per strategy")
    return figure
