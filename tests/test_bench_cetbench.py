"""CETBench: the 14 rewrites on the paper's examples, Algorithm 1 on real tasks (validated steps,
deterministic for a seed), the metrics against a hand-computed table, judging through the scripted
server and with divergent's execution judge."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from typer.testing import CliRunner

from divergent.bench.binary import Confusion
from divergent.bench.cetbench.generate import GeneratorSettings, PairGenerator, schedule
from divergent.bench.cetbench.pairs import read_pairs
from divergent.bench.cetbench.perturb import PerturbationType, apply_perturbation
from divergent.bench.cetbench.run import breakdown
from divergent.bench.cetbench.validate import VersionTester, task_tests
from divergent.cli import app
from divergent.datasets import Candidate, Task, TaskSet
from divergent.sandbox.limits import Limits

ROOT = Path(__file__).resolve().parents[1]
SHARED = next((p for p in (ROOT.parent.parent / "shared", ROOT.parent / "shared") if (p / "data").is_dir()), None)
EXAMPLES = SHARED / "data" / "cetbench" / "perturbation_examples.jsonl" if SHARED else None
needs_examples = pytest.mark.skipif(EXAMPLES is None or not EXAMPLES.is_file(), reason="shared/data/cetbench absent")


def _run(source: str, env: dict | None = None) -> str:
    """What a (trusted, test-written) snippet prints: the paper's examples are module-level code."""
    import contextlib
    import io

    namespace = dict(env or {})
    shown = namespace.pop("show", None)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(source, "<example>", "exec"), namespace)
    return out.getvalue() + (repr(namespace[shown]) if shown else "")


# the free variables of the paper's snippets, and values under which the breaking variant shows
ENVIRONMENTS = {
    "if_else_swap": [{"a": 1, "b": 2}, {"a": 3, "b": 2}],
    "for_while_swap": [{}],
    "if_condition_flip": [{"a": 1, "b": 2}, {"a": 3, "b": 2}],
    "variable_renaming": [{}],
    "boolean_inversion": [{}],
    "statement_reorder": [{}],
    "expression_reformat": [{"a": 1, "b": 2, "c": 3, "show": "ans"}],
}


@needs_examples
@pytest.mark.parametrize("preserving", [True, False], ids=["sp", "np"])
def test_every_rewrite_on_the_papers_example(preserving: bool) -> None:
    assert EXAMPLES is not None
    rows = [json.loads(line) for line in EXAMPLES.read_text().splitlines() if line.strip()]
    assert {r["perturbation"] for r in rows} == {k.value for k in PerturbationType}
    for row in rows:
        kind = PerturbationType(row["perturbation"])
        applied = apply_perturbation(row["original"], kind, preserving, random.Random(1))
        assert applied is not None, (kind, preserving)
        assert applied.kind is kind and applied.preserving is preserving and applied.source != row["original"]
        behaviours = []
        for env in ENVIRONMENTS[kind.value]:
            original = _run(row["original"], env)
            try:
                changed = _run(applied.source, env)
            except NameError:
                changed = "NameError"
            behaviours.append(original == changed)
        if preserving:
            assert all(behaviours), (kind, applied.source)
        else:
            assert not all(behaviours), (kind, applied.source)


@needs_examples
def test_rewrites_reproduce_the_papers_listings_where_deterministic() -> None:
    assert EXAMPLES is not None
    rows = {json.loads(line)["perturbation"]: json.loads(line) for line in EXAMPLES.read_text().splitlines()}
    for kind in ("if_else_swap", "if_condition_flip", "boolean_inversion"):
        for preserving, field in ((True, "semantic_preserving"), (False, "semantic_non_preserving")):
            applied = apply_perturbation(rows[kind]["original"], PerturbationType(kind), preserving, random.Random(0))
            assert applied is not None and applied.source.strip() == rows[kind][field].strip(), (kind, field)
    sp = apply_perturbation(rows["for_while_swap"]["original"], PerturbationType.FOR_WHILE_SWAP, True, random.Random(0))
    assert sp is not None and sp.source.strip() == rows["for_while_swap"]["semantic_preserving"].strip()
    reorder = apply_perturbation(rows["statement_reorder"]["original"], PerturbationType.STATEMENT_REORDER, False,
                                 random.Random(0))
    assert reorder is not None and reorder.source.strip() == rows["statement_reorder"]["semantic_non_preserving"].strip()


def test_rewrites_respect_scopes_and_refuse_unsafe_sites() -> None:
    program = (
        "def f(xs, limit):\n"
        "    total = 0\n"
        "    for i in range(len(xs)):\n"
        "        if xs[i] > limit:\n"
        "            continue\n"
        "        total += xs[i]\n"
        "    return total\n"
    )
    # the loop continues: no preserving while-rewrite of it
    assert apply_perturbation(program, PerturbationType.FOR_WHILE_SWAP, True, random.Random(0)) is None
    renamed = apply_perturbation(program, PerturbationType.VARIABLE_RENAMING, True, random.Random(2))
    assert renamed is not None and "def f(xs, limit):" in renamed.source  # parameters keep their names
    namespace: dict = {}
    exec(compile(renamed.source, "<renamed>", "exec"), namespace)
    assert namespace["f"]([1, 5, 2], 3) == 3
    with_flag = "def g(n):\n    seen = False\n    if n > 2:\n        seen = True\n    return seen == True\n"
    inverted = apply_perturbation(with_flag, PerturbationType.BOOLEAN_INVERSION, True, random.Random(0))
    assert inverted is not None and "(not seen) == True" in inverted.source
    namespace = {}
    exec(compile(inverted.source, "<inverted>", "exec"), namespace)
    assert [namespace["g"](n) for n in (1, 5)] == [False, True]


def test_schedule_follows_the_papers_proportions() -> None:
    plan = schedule(400, seed=1)
    counts = {(c, f): plan.count((c, f)) for c, f in set(plan)}
    assert len(plan) == 400
    assert sum(v for (c, _), v in counts.items() if c == "fe") == sum(v for (c, _), v in counts.items() if c == "ne")
    assert counts[("id", "sp")] + counts[("id", "np")] == 33 and counts[("fe", "sp")] + counts[("fe", "np")] == 167
    assert all(abs(counts[(c, "sp")] - counts[(c, "np")]) <= 1 for c in ("id", "fe", "ne", "di"))
    assert schedule(400, seed=1) == plan and schedule(400, seed=2) != plan


# -- the generator on small tasks -----------------------------------------------------------------------

def _task(task_id: str, entry: str, ground_truth: str, tests: list[str]) -> Task:
    return Task(task_id=task_id, description="", entry_point=entry, ground_truth=ground_truth,
                seeds_text="\n".join(tests), dataset="toy")


TASKS = TaskSet([
    _task("clip", "clip", "def clip(xs, low, high):\n    out = []\n    for i in range(len(xs)):\n"
          "        value = xs[i]\n        if value < low:\n            value = low\n        else:\n"
          "            value = min(value, high)\n        out.append(value)\n    return out\n",
          ["assert clip([1, 5, 9], 2, 8) == [2, 5, 8]", "assert clip([], 0, 1) == []",
           "assert clip([3, 3], 3, 3) == [3, 3]", "assert clip([0, 10, 4], 1, 9) == [1, 9, 4]"]),
    _task("span", "span", "def span(xs):\n    low = min(xs)\n    high = max(xs)\n    width = high - low + 0\n"
          "    return width\n",
          ["assert span([1, 4, 2]) == 3", "assert span([5]) == 0", "assert span([-3, 3]) == 6"]),
])
SAMPLES = {
    "clip": [
        Candidate("clip", "toy-model", 0.6, 0, "def clip(xs, low, high):\n    return [max(low, min(x, high)) for x in xs]\n"),
        Candidate("clip", "toy-model", 0.6, 1, "def clip(xs, low, high):\n    return [min(x, high) for x in xs]\n"),
    ],
    "span": [Candidate("span", "toy-model", 0.6, 0, "def span(xs):\n    return max(xs) - min(xs)\n")],
}


def test_version_tester_splits_asserts_and_reports_each_test() -> None:
    tester = VersionTester(task_tests(TASKS[0]), limits=Limits(timeout=1.0))
    correct, wrong = tester.results([TASKS[0].ground_truth, SAMPLES["clip"][1].source])
    assert correct == (True, True, True, True)
    assert wrong == (False, True, True, False)
    assert tester.result("def clip(:\n") == (False,) * 4


@pytest.mark.slow
def test_generation_is_validated_and_deterministic(tmp_path) -> None:
    settings = GeneratorSettings(count=6, seed=3, k_max=3, check_executions=200, timeout=1.0)
    made = []
    for _ in range(2):
        generator = PairGenerator(TASKS, SAMPLES, settings)
        pairs: list = []
        stats = generator.run(on_pair=lambda pair, index, total, into=pairs: into.append(pair))
        made.append([p.as_dict(3) if p else None for p in pairs])
    first, second = made
    for a, b in zip(first, second, strict=True):
        if a is not None:
            a.pop("seconds")
            b.pop("seconds")
    assert first == second  # deterministic for the seed
    kept = [p for p in first if p is not None]
    assert kept and stats.pairs == len(kept)
    for pair in kept:
        assert 1 <= pair["k"] <= 3 and pair["label"] == f"<{pair['category']}, {pair['k']}, {pair['flag']}>"
        assert pair["equivalent"] == (pair["category"] in ("id", "fe") and pair["flag"] == "sp")
        flags = [step["flag"] for step in pair["steps"]]
        assert ("np" in flags) == (pair["flag"] == "np")
        if pair["category"] == "ne":
            assert pair["original_witness"] is not None
        assert bool(pair["tests"]) == (pair["category"] != "di")
    file = tmp_path / "pairs.jsonl"
    file.write_text("".join(json.dumps(p) + "\n" for p in kept) + "not json\n")
    loaded, problems = read_pairs(file)
    assert len(loaded) == len(kept) and len(problems) == 1


# -- metrics ---------------------------------------------------------------------------------------------


def test_cetbench_breakdown_matches_a_hand_computed_table() -> None:
    def item(category: str, flag: str, k: int, truth: bool, prediction: bool, kinds: list[str]) -> dict:
        return {"category": category, "flag": flag, "k": k, "truth": truth, "prediction": prediction, "kinds": kinds}

    results = [
        item("id", "sp", 1, True, True, ["variable_renaming"]),
        item("id", "np", 2, False, True, ["variable_renaming", "if_else_swap"]),
        item("fe", "sp", 1, True, False, ["if_else_swap"]),
        item("fe", "np", 3, False, False, ["statement_reorder"]),
        item("ne", "sp", 1, False, False, ["variable_renaming"]),
        item("ne", "np", 2, False, False, ["expression_reformat"]),
        item("di", "sp", 1, False, False, ["variable_renaming"]),
        item("di", "np", 1, False, True, ["if_condition_flip"]),
    ]
    table = breakdown(results)
    # positives: 2 (1 right); negatives: 6 (4 right)
    assert table.overall == Confusion(tp=1, fn=1, fp=2, tn=4)
    assert table.overall.accuracy == pytest.approx(5 / 8)
    assert table.overall.balanced_accuracy == pytest.approx((1 / 2 + 4 / 6) / 2)
    assert table.overall.f1_positive == pytest.approx(2 / 5)
    assert table.overall.f1_negative == pytest.approx(8 / 11)
    assert table.cells[("id", "np")].accuracy == 0.0 and table.cells[("fe", "np")].accuracy == 1.0
    assert table.by_k[1].total == 5 and table.by_k[1].accuracy == pytest.approx(3 / 5)
    assert table.by_kind["variable_renaming"].total == 4
    assert table.by_kind["variable_renaming"].accuracy == pytest.approx(3 / 4)


# -- judging ----------------------------------------------------------------------------------------------


def _pairs_file(tmp_path: Path) -> Path:
    rows = [
        {"pair_id": "p0", "category": "id", "flag": "sp", "k": 1, "equivalent": True,
         "program_1": "def f(x):\n    return x + 1\n", "program_2": "def f(x):\n    y = x\n    return y + 1\n",
         "tests": "assert f(1) == 2\nassert f(-4) == -3",
         "original_1": "def f(x):\n    return x + 1\n", "original_2": "def f(x):\n    return x + 1\n",
         "entry_points": ["f", "f"], "steps": [{"program": 2, "type": "expression_reformat", "flag": "sp"}]},
        {"pair_id": "p1", "category": "fe", "flag": "np", "k": 1, "equivalent": False,
         "tests": "assert f(3) == 3\nassert f(0) == 0",
         "program_1": "def f(x):\n    return abs(x)\n", "program_2": "def f(x):\n    return x if x > 0 else x\n",
         "original_1": "def f(x):\n    return abs(x)\n", "original_2": "def f(x):\n    return x if x > 0 else -x\n",
         "entry_points": ["f", "f"], "steps": [{"program": 2, "type": "expression_reformat", "flag": "np"}]},
    ]
    file = tmp_path / "pairs.jsonl"
    file.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return file


def test_cetbench_cot_run_through_the_scripted_server(openai_server, llm_home, tmp_path) -> None:
    def answer(received) -> str:
        if "abs(x)" in received.last_user:
            return "Program 2 returns negative numbers unchanged.\nFINAL_ANSWER_IS_NO"
        return "They compute the same value.\nFINAL_ANSWER_IS_YES"

    openai_server.responder = answer
    out = tmp_path / "out.json"
    result = CliRunner().invoke(app, ["bench", "cetbench", "run", "--pairs", str(_pairs_file(tmp_path)),
                                      "--prompt", "cot", "--originals", "--model", "m",
                                      "--base-url", openai_server.base_url, "--json", str(out)])
    assert result.exit_code == 0, result.output
    document = json.loads(out.read_text())
    perturbed = document["summary"]["perturbed"]
    assert perturbed["accuracy"] == 1.0 and perturbed["w_avg"] == 1.0 and perturbed["pairs"] == 2
    originals = document["summary"]["originals"]
    assert originals["pairs"] == 2 and originals["accuracy"] == 0.5  # the fe original is equivalent, judged NO
    assert "FINAL_ANSWER_IS_YES" in openai_server.chat_requests[0].last_user


@pytest.mark.slow
def test_cetbench_execution_judge(tmp_path, llm_home) -> None:
    out = tmp_path / "exec.json"
    result = CliRunner().invoke(app, ["bench", "cetbench", "run", "--pairs", str(_pairs_file(tmp_path)),
                                      "--judge", "execution", "--budget", "3", "--json", str(out)])
    assert result.exit_code == 0, result.output
    items = {item["pair_id"]: item for item in json.loads(out.read_text())["items"]}
    assert items["p0"]["prediction"] is True and items["p0"]["execution"]["verdict"] == "no-difference-found"
    assert items["p1"]["prediction"] is False and items["p1"]["execution"]["witness"]["outputs"]


def test_cetbench_basic_prompt_exact_and_verbose_answers(openai_server, llm_home, tmp_path) -> None:
    openai_server.responder = lambda received: "No, they differ." if "abs(x)" in received.last_user else "Yes"
    out = tmp_path / "basic.json"
    result = CliRunner().invoke(app, ["bench", "cetbench", "run", "--pairs", str(_pairs_file(tmp_path)),
                                      "--prompt", "basic", "--model", "m", "--base-url", openai_server.base_url,
                                      "--json", str(out)])
    assert result.exit_code == 0, result.output
    items = {item["pair_id"]: item for item in json.loads(out.read_text())["items"]}
    assert items["p0"]["llm"]["votes"] == [{"equivalent": True, "source": "exact"}]
    assert items["p1"]["llm"]["votes"] == [{"equivalent": False, "source": "sentences"}]
    assert "Yes or No" in openai_server.chat_requests[0].last_user
