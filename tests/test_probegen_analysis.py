"""The ProbeGen search-strategy analysis: tree files, the generalised pass@k estimator, Pareto fronts,
plots and the ``divergent probegen`` commands."""

from __future__ import annotations

import itertools
import json
import math
import random
from fractions import Fraction
from pathlib import Path

import pytest
from typer.testing import CliRunner

from divergent.cli import app
from divergent.errors import InvalidArgument
from divergent.llm.chat import Usage
from divergent.probegen.analysis import (
    StrategyPoint,
    analyze,
    cheapest_reaching,
    elementary_symmetric,
    expected_total,
    load_trees,
    pareto_front,
    require_full,
    success_probability,
)
from divergent.probegen.strategies import (
    TreeStrategy,
    branching_schedule,
    max_calls,
    parse_strategies,
    schedule_calls,
)
from divergent.probegen.tree import (
    ProbeNode,
    ProbeTree,
    TreeFormatError,
    read_tree,
    tree_from_json,
    write_tree,
)
from scripted_openai import Reply

runner = CliRunner()


def node(differentiating: bool = False, *children: ProbeNode, tokens: int | None = None) -> ProbeNode:
    """A node whose probe succeeded (differentiating, and no filter said otherwise) or not."""
    return ProbeNode(
        differentiating=differentiating, success=differentiating, children=list(children),
        usage=Usage(prompt_tokens=tokens) if tokens is not None else None,
    )


def leaf(differentiating: bool = False, tokens: int | None = None) -> ProbeNode:
    return node(differentiating, tokens=tokens)


def tree(*children: ProbeNode, k: int = 2, depth: int = 2, pair: str = "p") -> ProbeTree:
    return ProbeTree(root=ProbeNode(children=list(children)), pair=pair, k=k, depth=depth)


def read_full(document: object) -> ProbeTree:
    """A tree document read and checked to be full, as the analysis reads its files."""
    return require_full(tree_from_json(document))


# A K=2, D=2 tree: the first sample is a dead end, the second's second child differentiates.
SMALL = tree(node(False, leaf(), leaf()), node(False, leaf(), leaf(True)))


# ---------------------------------------------------------------------------------------- strategies


def test_strategy_schedules_follow_the_paper() -> None:
    assert branching_schedule("Full", 3, 3) == (3, 3, 3)
    assert branching_schedule("Top", 4, 3) == (4, 1, 1)
    assert branching_schedule("Decreasing", 3, 4) == (3, 2, 1, 1)
    assert branching_schedule("Increasing", 2, 3) == (2, 3, 4)
    assert branching_schedule("Halving", 5, 4) == (5, 2, 1, 1)
    assert branching_schedule("Doubling", 1, 3) == (1, 2, 4)


def test_node_counts_per_strategy() -> None:
    assert max_calls(TreeStrategy.DECREASING, 3, 4) == 3 + 6 + 6 + 6 == 21  # the paper's "at most 21"
    assert max_calls(TreeStrategy.FULL, 3, 2) == 3 + 9
    for k, depth in [(2, 3), (5, 5), (3, 4)]:
        assert max_calls(TreeStrategy.FULL, k, depth) == (k ** (depth + 1) - 1) // (k - 1) - 1
    assert max_calls(TreeStrategy.TOP, 5, 5) == 25
    assert max_calls(TreeStrategy.HALVING, 8, 4) == 8 + 32 + 64 + 64
    assert max_calls(TreeStrategy.INCREASING, 1, 3) == 1 + 2 + 6
    assert max_calls(TreeStrategy.DOUBLING, 1, 3) == 1 + 2 + 8
    assert schedule_calls((1,)) == 1


def test_parse_strategies() -> None:
    assert parse_strategies("all") == list(TreeStrategy)
    assert parse_strategies("decreasing, Full,full") == [TreeStrategy.DECREASING, TreeStrategy.FULL]
    with pytest.raises(InvalidArgument, match="unknown strategy 'Widest'"):
        parse_strategies("Full,Widest")
    with pytest.raises(InvalidArgument):
        parse_strategies(" , ")
    with pytest.raises(InvalidArgument):
        branching_schedule("Full", 0, 2)


# ---------------------------------------------------------------------------------------- estimator


def test_hand_computed_success_on_a_small_tree() -> None:
    exact = {
        (2, 2): Fraction(1),  # everything: the differentiating node is in
        (2, 1): Fraction(1, 2),  # both first samples, one child each: 1 - 1 * 1/2
        (1, 2): Fraction(1, 2),  # the second first sample, then both its children
        (1, 1): Fraction(1, 4),  # the second sample, then its second child
        (2,): Fraction(0),  # one turn: nothing differentiates at depth 1
        (1,): Fraction(0),
    }
    for schedule, expected in exact.items():
        assert success_probability(SMALL, schedule, exact=True) == expected, schedule
        assert success_probability(SMALL, schedule) == pytest.approx(float(expected))


def test_pass_at_k_is_the_one_level_case() -> None:
    n, c = 5, 2
    one_level = tree(*(leaf(i < c) for i in range(n)), k=n, depth=1)
    for k in range(1, n + 1):
        pass_at_k = 1 - Fraction(math.comb(n - c, k), math.comb(n, k))
        assert success_probability(one_level, (k,), exact=True) == pass_at_k


def test_a_differentiating_node_ends_its_branch() -> None:
    # the first sample differentiates at depth 1, so its (ignored) sub-tree does not matter
    early = tree(leaf(True), node(False, leaf(), leaf()))
    assert success_probability(early, (1, 1), exact=True) == Fraction(1, 2)
    assert success_probability(early, (2, 2), exact=True) == 1
    # expected calls: the differentiating node is not expanded (1), the other costs 1 + 2
    assert expected_total(early, (2, 2)) == pytest.approx(1 + 3)
    assert expected_total(early, (1, 1)) == pytest.approx((1 + 2) / 2)


def test_expected_calls_and_tokens() -> None:
    with_tokens = tree(
        node(False, leaf(tokens=30), leaf(tokens=50), tokens=10),
        node(False, leaf(tokens=70), leaf(True, tokens=90), tokens=20),
    )
    assert expected_total(with_tokens, (2, 2)) == 6 == schedule_calls((2, 2))
    assert expected_total(with_tokens, (1, 1)) == pytest.approx(2)
    tokens = expected_total(with_tokens, (1, 1), lambda n: float(n.tokens or 0))
    assert tokens == pytest.approx(((10 + (30 + 50) / 2) + (20 + (70 + 90) / 2)) / 2)


def test_schedule_must_fit_in_the_tree() -> None:
    with pytest.raises(InvalidArgument, match="does not fit"):
        success_probability(SMALL, (3,))
    with pytest.raises(InvalidArgument, match="does not fit"):
        success_probability(SMALL, (1, 1, 1))


def test_elementary_symmetric() -> None:
    values = [Fraction(1, 2), Fraction(1, 3), Fraction(1, 5), Fraction(2, 7)]
    for order in range(len(values) + 1):
        brute = sum(
            (math.prod(subset, start=Fraction(1)) for subset in itertools.combinations(values, order)), Fraction(0)
        )
        assert elementary_symmetric(values, order) == brute


def _random_full_tree(rng: random.Random, k: int, depth: int, p: float) -> ProbeTree:
    def grow(level: int) -> ProbeNode:
        differentiating = rng.random() < p
        if differentiating or level == depth:
            return leaf(differentiating)
        return node(False, *(grow(level + 1) for _ in range(k)))

    return tree(*(grow(1) for _ in range(k)), k=k, depth=depth)


def _paper_definition(sampled: ProbeTree, schedule: tuple[int, ...]) -> Fraction:
    """The paper's recursion taken literally: the mean over every k-subset of the children."""

    def sigma(n: ProbeNode, level: int) -> Fraction:
        if n.success:
            return Fraction(1)
        if level == len(schedule):
            return Fraction(0)
        return over_subsets(n.children, level + 1)

    def over_subsets(children: list[ProbeNode], level: int) -> Fraction:
        subsets = list(itertools.combinations(children, schedule[level - 1]))
        total = sum(
            (1 - math.prod((1 - sigma(c, level) for c in subset), start=Fraction(1)) for subset in subsets),
            Fraction(0),
        )
        return total / len(subsets)

    return over_subsets(sampled.children, 1)


def _draw_sub_tree_succeeds(
    rng: random.Random, children: list[ProbeNode], schedule: tuple[int, ...], level: int
) -> bool:
    """One random sub-tree of the schedule's shape: does it hold a differentiating node?"""
    for child in rng.sample(children, schedule[level - 1]):
        if child.success or (
            level < len(schedule) and _draw_sub_tree_succeeds(rng, child.children, schedule, level + 1)
        ):
            return True
    return False


def test_exact_computation_matches_the_definition_and_monte_carlo_on_random_trees() -> None:
    rng = random.Random(7)
    for _ in range(12):
        sampled = _random_full_tree(rng, k=3, depth=3, p=0.25)
        schedule = tuple(rng.randint(1, 3) for _ in range(rng.randint(1, 3)))
        exact = success_probability(sampled, schedule, exact=True)
        assert exact == _paper_definition(sampled, schedule)

        draws = 4000
        hits = sum(_draw_sub_tree_succeeds(rng, sampled.children, schedule, 1) for _ in range(draws))
        assert hits / draws == pytest.approx(float(exact), abs=4 * math.sqrt(0.25 / draws) + 1e-9)


def test_estimator_is_unbiased_over_every_tree_labelling() -> None:
    # Each node differentiates independently with probability p: a strategy succeeds unless every
    # node of its shape fails, so its true success is 1 - (1 - p) ** calls. Averaging the estimator
    # over all 2**6 labellings of a K=2, D=2 tree, weighted by their probability, must give exactly that.
    p = Fraction(1, 3)
    for schedule in [(1,), (2,), (1, 1), (1, 2), (2, 1), (2, 2)]:
        mean = Fraction(0)
        for labels in itertools.product([False, True], repeat=6):
            first, second, *below = labels
            sampled = tree(node(first, leaf(below[0]), leaf(below[1])), node(second, leaf(below[2]), leaf(below[3])))
            weight = math.prod((p if label else 1 - p for label in labels), start=Fraction(1))
            mean += weight * success_probability(sampled, schedule, exact=True)
        assert mean == 1 - (1 - p) ** schedule_calls(schedule), schedule


# ---------------------------------------------------------------------------------------- Pareto fronts


def _point(strategy: TreeStrategy, k: int, depth: int, calls: int, success: float) -> StrategyPoint:
    return StrategyPoint(
        strategy=strategy, k=k, depth=depth, schedule=(k,) * depth, calls=calls, success=success, stderr=0.0,
        expected_calls=float(calls), expected_tokens=None,
    )


def test_pareto_front_keeps_only_undominated_points() -> None:
    a = _point(TreeStrategy.FULL, 1, 1, 1, 0.2)
    b = _point(TreeStrategy.FULL, 2, 1, 2, 0.2)  # dominated by a (costlier, no better)
    c = _point(TreeStrategy.FULL, 1, 2, 2, 0.5)
    d = _point(TreeStrategy.FULL, 3, 1, 3, 0.4)  # dominated by c
    e = _point(TreeStrategy.FULL, 2, 2, 6, 0.9)
    f = _point(TreeStrategy.FULL, 1, 3, 3, 0.5)  # ties c on success at a higher cost: dominated
    front = pareto_front([e, d, b, a, f, c])
    assert front == [a, c, e]
    assert cheapest_reaching(front, 0.5) == c
    assert cheapest_reaching(front, 0.95) is None
    # exact ties keep the smallest K, then D
    g = _point(TreeStrategy.TOP, 1, 2, 2, 0.5)
    assert pareto_front([g, c]) == [c]
    with pytest.raises(InvalidArgument, match="tokens"):
        pareto_front([a], "tokens")


def test_analyze_grid_fronts_and_limits() -> None:
    rng = random.Random(3)
    trees = [_random_full_tree(rng, k=3, depth=3, p=0.2) for _ in range(6)]
    trees.append(tree(*(node(False, *(node(False, leaf(), leaf(), leaf()) for _ in range(3))) for _ in range(3)),
                      k=3, depth=3))  # never differentiates
    analysis = analyze(trees)
    assert analysis.trees_undisproved == 1
    assert analysis.trees_used == sum(t.disproved for t in trees) - 0
    by_key = {(p.strategy, p.k, p.depth): p for p in analysis.points}
    # Doubling with K=2 needs 4 children at depth 2: only D=1 fits in K=3 trees
    assert (TreeStrategy.DOUBLING, 2, 1) in by_key and (TreeStrategy.DOUBLING, 2, 2) not in by_key
    assert (TreeStrategy.INCREASING, 2, 2) in by_key and (TreeStrategy.INCREASING, 2, 3) not in by_key
    # K=1 is one chain whatever the halving/decreasing rule
    assert by_key[(TreeStrategy.DECREASING, 1, 3)].success == by_key[(TreeStrategy.FULL, 1, 3)].success
    # more of the same tree can only help
    assert by_key[(TreeStrategy.FULL, 3, 3)].success >= by_key[(TreeStrategy.FULL, 2, 3)].success
    assert by_key[(TreeStrategy.FULL, 3, 3)].calls == 39
    for strategy, front in analysis.fronts.items():
        costs = [p.calls for p in front]
        assert costs == sorted(costs) and len(set(costs)) == len(costs)
        assert [p.success for p in front] == sorted(p.success for p in front)
        for p in analysis.points:
            if p.strategy is strategy:
                assert not any(q.calls <= p.calls and q.success > p.success for q in analysis.points
                               if q.strategy is strategy and p in front)
    assert analysis.overall_front[-1].success == max(p.success for p in analysis.points)
    limited = analyze(trees, [TreeStrategy.TOP], max_k=2, max_depth=2)
    assert {(p.k, p.depth) for p in limited.points} == {(1, 1), (1, 2), (2, 1), (2, 2)}
    with pytest.raises(InvalidArgument, match="--max-k 4"):
        analyze(trees, max_k=4)
    with pytest.raises(InvalidArgument, match="cost measure"):
        analyze(trees, cost_measure="dollars")
    with pytest.raises(InvalidArgument, match="token usage"):
        analyze(trees, cost_measure="tokens")
    with pytest.raises(InvalidArgument, match="include-undisproved"):
        analyze([trees[-1]])
    assert analyze([trees[-1]], include_undisproved=True).overall_front[0].success == 0.0


# ---------------------------------------------------------------------------------------- tree files


def _document(**changes: object) -> dict:
    document = json.loads(json.dumps(SMALL.to_json()))
    document.update(changes)
    return document


def test_tree_files_round_trip(tmp_path: Path) -> None:
    with_usage = tree(node(False, leaf(tokens=5), leaf(tokens=6), tokens=1), node(True, tokens=2), pair="x")
    write_tree(with_usage, tmp_path / "x.json")
    loaded = require_full(read_tree(tmp_path / "x.json"))
    assert loaded.pair == "x" and loaded.k == 2 and loaded.depth == 2 and loaded.tokens_known
    assert [n.tokens for n in loaded.nodes()] == [1, 5, 6, 2]
    assert loaded.children[0].children[1].path == "0.1"
    assert not list(tmp_path.glob("*.partial"))


@pytest.mark.parametrize(
    ("document", "message"),
    [
        ([], "JSON object"),
        (_document(format="something-else"), "not a ProbeGen tree file"),
        (_document(version=2), "unsupported version 2"),
        (_document(pair=""), '"pair"'),
        (_document(K=0), '"K" must be a positive integer'),
        (_document(D="5"), '"D" must be a positive integer'),
        (_document(children=None), '"children" must be a list'),
        (_document(children=[]), "root has 0 children, a full tree has K=2"),
        (_document(children=[{"differentiating": False, "children": []}, {"differentiating": True}]),
         r"node 0 \(depth 1\): 0 children, a full tree has K=2"),
        (_document(children=[{"differentiating": "no"}, {"differentiating": True}]), '"differentiating"'),
        (_document(children=[{"differentiating": True, "usage": {"prompt_tokens": -1}}, {"differentiating": True}]),
         'usage "prompt_tokens"'),
        (_document(children=[{"differentiating": True, "usage": {"cost": "free"}}, {"differentiating": True}]),
         'usage "cost"'),
    ],
)
def test_malformed_tree_documents(document: object, message: str) -> None:
    with pytest.raises(TreeFormatError, match=message):
        read_full(document)


def test_nodes_below_depth_are_rejected() -> None:
    deep = _document(D=1)
    with pytest.raises(TreeFormatError, match="below the tree's depth D=1"):
        read_full(deep)


# A file as the analysis wrote it before the session and the analysis shared one tree model: the
# least the format asks for, a filter-vetoed node (differentiating, not a success) that the search
# went on below, a success with (ignored) children, and usage without token counts.
OLD_ANALYSIS_FILE = {
    "format": "divergent.probegen-tree", "version": 1, "pair": "old", "K": 2, "D": 2, "model": "m",
    "children": [
        {"path": "0", "differentiating": True, "success": False, "usage": {"prompt_tokens": 7, "cost": 0.1},
         "children": [{"path": "0.0", "differentiating": False}, {"path": "0.1", "differentiating": True}]},
        {"path": "1", "differentiating": True, "usage": {"cost": 0.2},
         "children": [{"differentiating": False, "children": [{"differentiating": True}]}]},
    ],
}


def test_files_in_the_earlier_formats_still_load() -> None:
    old = read_full(OLD_ANALYSIS_FILE)
    assert (old.pair, old.k, old.depth, old.model) == ("old", 2, 2, "m")
    vetoed, found = old.children
    assert vetoed.differentiating and not vetoed.success and found.success
    assert [n.path for n in old.nodes()] == ["0", "0.0", "0.1", "1"]  # nothing below a success counts
    assert vetoed.tokens == 7 and found.tokens is None and not old.tokens_known
    # the vetoed node does not end its branch; its second child does: one of the two first samples
    assert success_probability(old, (1, 2), exact=True) == 1
    assert success_probability(old, (1,), exact=True) == Fraction(1, 2)
    # a search's tree (no K and D) reads as a tree, but is no full tree to estimate strategies on
    searched = tree_from_json({**OLD_ANALYSIS_FILE, "K": None, "D": None})
    assert searched.k is None and searched.node_count == 4
    with pytest.raises(TreeFormatError, match='"K" must be a positive integer'):
        require_full(searched)
    with pytest.raises(InvalidArgument, match="no K and D"):
        success_probability(searched, (1,))


def test_loading_a_directory(tmp_path: Path) -> None:
    with pytest.raises(InvalidArgument, match="no such file"):
        load_trees([tmp_path / "missing"])
    with pytest.raises(InvalidArgument, match="no tree files"):
        load_trees([tmp_path])
    write_tree(SMALL, tmp_path / "a.json")
    (tmp_path / "b.json").write_text("{not json", encoding="utf-8")
    with pytest.raises(TreeFormatError, match=r"b\.json: not JSON"):
        load_trees([tmp_path])
    loaded = load_trees([tmp_path], skip_malformed=True)
    assert len(loaded.trees) == 1 and loaded.skipped[0][0].name == "b.json"


# ---------------------------------------------------------------------------------------- CLI


def _synthetic_trees(directory: Path, count: int = 8) -> None:
    rng = random.Random(11)
    for index in range(count):
        sampled = _random_full_tree(rng, k=3, depth=3, p=0.15)
        document = sampled.to_json() | {"pair": f"pair{index}", "model": "synthetic"}
        (directory / f"pair{index}.json").write_text(json.dumps(document), encoding="utf-8")


def test_cli_analyze_writes_json_and_plots(tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    trees_dir = tmp_path / "trees"
    trees_dir.mkdir()
    _synthetic_trees(trees_dir)
    out_json, plots = tmp_path / "analysis.json", tmp_path / "plots"
    result = runner.invoke(
        app, ["probegen", "analyze", str(trees_dir), "--strategies", "Full,Decreasing,Top", "--json", str(out_json),
              "--plots", str(plots)],
    )
    assert result.exit_code == 0, result.output
    assert "Decreasing" in result.output and "Pareto" in result.output
    written = json.loads(out_json.read_text())
    assert set(written["pareto_fronts"]) == {"Full", "Decreasing", "Top"}
    assert written["max_K"] == 3 and written["max_D"] == 3
    assert sorted(p.name for p in plots.iterdir()) == ["pareto.png", "pareto.svg", "strategies.png", "strategies.svg"]
    assert (plots / "pareto.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_cli_analyze_bad_input_exits_2(tmp_path: Path) -> None:
    result = runner.invoke(app, ["probegen", "analyze", str(tmp_path / "nothing")])
    assert result.exit_code == 2
    (tmp_path / "bad.json").write_text('{"format": "divergent.probegen-tree"}', encoding="utf-8")
    result = runner.invoke(app, ["probegen", "analyze", str(tmp_path)])
    assert result.exit_code == 2
    assert "bad.json: unsupported version" in result.output
    _synthetic_trees(tmp_path, count=2)
    result = runner.invoke(app, ["probegen", "analyze", str(tmp_path), "--strategies", "Sideways"])
    assert result.exit_code == 2 and "unknown strategy" in result.output
    result = runner.invoke(app, ["probegen", "analyze", str(tmp_path), "--skip-malformed"])
    assert result.exit_code == 0, result.output
    assert "skipped" in result.output and "bad.json" in result.output


def test_cli_costs_table() -> None:
    result = runner.invoke(app, ["probegen", "costs", "-K", "3", "-D", "4", "--markdown"])
    assert result.exit_code == 0, result.output
    rows = {tuple(cell.strip() for cell in line.split("|")[1:3]): line.split("|")[3:-1]
            for line in result.output.splitlines() if line.startswith("| ") and not line.startswith("| strategy")}
    assert [cell.strip() for cell in rows[("Decreasing", "3")]] == ["3", "9", "15", "21"]
    assert [cell.strip() for cell in rows[("Full", "2")]] == ["2", "6", "14", "30"]


# ---------------------------------------------------------------------------------------- sample


FIRST_GUESS = '''Let me try small inputs first.

```python
def create_fn_inputs():
    for x in [0, 1, 2]:
        yield {"args": [x], "kwargs": {}}
```
'''

SECOND_GUESS = '''The versions differ around 7.

```python
def create_fn_inputs():
    yield {"args": [7], "kwargs": {}}
```
'''


def _answer_by_turn(received: object) -> Reply:
    # the first turn has one user message; later turns carry the earlier answers and their feedback
    turns = sum(1 for message in received.messages if message.get("role") == "user")
    return Reply(FIRST_GUESS if turns == 1 else SECOND_GUESS, prompt_tokens=100 * turns, completion_tokens=40)


def test_cli_sample_grows_full_trees_against_the_scripted_server(tmp_path: Path, openai_server, llm_home) -> None:
    pair = tmp_path / "sevens"
    pair.mkdir()
    (pair / "a.py").write_text("def f(x: int) -> int:\n    return x * 2\n", encoding="utf-8")
    (pair / "b.py").write_text("def f(x: int) -> int:\n    return x * 2 if x != 7 else 0\n", encoding="utf-8")
    (pair / "meta.json").write_text('{"function": "f"}', encoding="utf-8")
    openai_server.responder = _answer_by_turn
    out = tmp_path / "trees"
    command = ["probegen", "sample", str(pair), "--model", "scripted", "--base-url", openai_server.base_url,
               "-K", "2", "-D", "2", "--out", str(out)]
    result = runner.invoke(app, command)
    assert result.exit_code == 0, result.output
    assert len(openai_server.chat_requests) == 2 + 4  # a full K=2, D=2 tree
    sampled = require_full(read_tree(out / "sevens.json"))
    assert (sampled.k, sampled.depth, sampled.node_count) == (2, 2, 6)
    assert [n.success for n in sampled.children] == [False, False]
    assert all(child.differentiating and child.success for n in sampled.children for child in n.children)
    assert [n.tokens for n in sampled.nodes()] == [140, 240, 240, 140, 240, 240]
    second_prompt = next(r for r in openai_server.chat_requests if len(r.messages) > 2).last_user
    assert "f(0)" in second_prompt or "0" in second_prompt  # the feedback on the first probes

    # a rerun skips the finished tree; --force samples it again, all from the response cache
    result = runner.invoke(app, command)
    assert result.exit_code == 0 and "skipped" in result.output
    result = runner.invoke(app, [*command, "--force"])
    assert result.exit_code == 0, result.output
    assert len(openai_server.chat_requests) == 6
    assert [n.tokens for n in read_tree(out / "sevens.json").nodes()] == [140, 240, 240, 140, 240, 240]

    result = runner.invoke(app, ["probegen", "analyze", str(out), "--json", str(tmp_path / "a.json")])
    assert result.exit_code == 0, result.output
    points = {(p["strategy"], p["K"], p["D"]): p for p in json.loads((tmp_path / "a.json").read_text())["points"]}
    assert points[("Full", 1, 1)]["success"] == 0.0 and points[("Top", 1, 2)]["success"] == 1.0


def test_cli_sample_bad_input(tmp_path: Path, openai_server, llm_home) -> None:
    result = runner.invoke(app, ["probegen", "sample", str(tmp_path / "missing"), "--model", "m",
                                 "--base-url", openai_server.base_url])
    assert result.exit_code == 2 and "not a directory" in result.output
    (tmp_path / "a.py").write_text("def f(x: int) -> int:\n    return x\n", encoding="utf-8")
    (tmp_path / "b.py").write_text("def f(x: int) -> int:\n    return -x\n", encoding="utf-8")
    openai_server.script(*[Reply(status=500)] * 20)
    no_retries = tmp_path / "llm.toml"
    no_retries.write_text("[llm]\nmax_retries = 0\nbackoff_base = 0.0\n", encoding="utf-8")
    out = tmp_path / "trees"
    result = runner.invoke(app, ["probegen", "sample", f"{tmp_path / 'a.py'},{tmp_path / 'b.py'}", "-f", "f",
                                 "--model", "m", "--base-url", openai_server.base_url, "--llm-config",
                                 str(no_retries), "-K", "1", "-D", "1", "--out", str(out)])
    assert result.exit_code == 2
    assert "a_vs_b: the model failed, tree not written" in result.output
    assert not out.exists() or not list(out.iterdir())


def test_plots_without_matplotlib_name_the_extra(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import sys

    from divergent.errors import MissingExtra
    from divergent.probegen.plots import plot_analysis

    monkeypatch.setitem(sys.modules, "matplotlib.figure", None)  # import fails as if not installed
    with pytest.raises(MissingExtra, match=r"divergent\[plots\]"):
        plot_analysis(analyze([SMALL]), tmp_path)
