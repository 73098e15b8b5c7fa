"""Semantic clustering and semantic self-consistency (ProbeGen, Sec. 5) through the real LLM client
against the scripted OpenAI-compatible server.

The implementations of ``f(x: int) -> int`` fall into known classes: absolute value (several ways),
identity (two ways), and ``max(x, 0)``. The scripted model's probe yields -3, 0 and 5, which tell all
three classes apart; the scripted filter calls every difference important unless a test says
otherwise.
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from pathlib import Path

import pytest

from divergent.clustering.semantic import (
    load_reference_tests,
    pick_pair,
    run_reference_tests,
    semantic_cluster,
)
from divergent.errors import InvalidArgument
from divergent.llm.client import LLMClient
from divergent.llm.config import LLMSettings
from divergent.load import load_source
from scripted_openai import Received, Reply, ScriptedOpenAI

SOURCES = {
    "abs_builtin": "def f(x: int) -> int:\n    return abs(x)\n",
    "abs_branch": "def f(x: int) -> int:\n    return x if x >= 0 else -x\n",
    "abs_square": "def f(x: int) -> int:\n    return int((x * x) ** 0.5) if abs(x) < 10**6 else abs(x)\n",
    "identity": "def f(x: int) -> int:\n    return x\n",
    "identity_plus_zero": "def f(x: int) -> int:\n    return x + 0\n",
    "relu": "def f(x: int) -> int:\n    return max(x, 0)\n",
}

PROBE = """The versions may differ on negative numbers.

```python
def create_fn_inputs():
    for x in (-3, 0, 5):
        yield {"args": [x], "kwargs": {}}
```
"""
ONLY_POSITIVE_PROBE = """```python
def create_fn_inputs():
    yield {"args": [4], "kwargs": {}}
```
"""
IMPORTANT = "They disagree on negatives.\nRATIONALE: negatives handled differently\nDIFFERENCES: IMPORTANT"
IRRELEVANT = "Negative inputs are outside the task.\nRATIONALE: precondition violation\nDIFFERENCES: IRRELEVANT"

TESTS = "import math\n\nassert f(-3) == 3\nassert f(2) == 2\n\ndef test_zero():\n    assert f(0) == 0\n"


def is_filter(received: Received) -> bool:
    return "RATIONALE" in received.prompt and "DIFFERENCES" in received.prompt


def responder(filter_answer: str = IMPORTANT, probe: str = PROBE):
    def answer(received: Received) -> Reply:
        return Reply(text=filter_answer if is_filter(received) else probe)

    return answer


@pytest.fixture
def client(openai_server: ScriptedOpenAI, llm_home: Path):
    settings = LLMSettings(
        model="scripted", base_url=openai_server.base_url, max_retries=1, backoff_base=0.0, timeout=10.0
    )
    with LLMClient(settings, store=llm_home / "store.db") as llm:
        yield llm


def implementations(*names: str):
    return [load_source(SOURCES[name], function="f", label=name) for name in names]


def run(impls, client, **options):
    options.setdefault("engines", "llm")  # no cheap phase: the probes do the splitting
    # a probe's few inputs back these classes (the floor of judged inputs has its own tests)
    options.setdefault("min_inputs", 0)
    options.setdefault("k", 1)
    options.setdefault("d", 1)
    return semantic_cluster(impls, client, store=False, budget=10.0, **options)


def classes_by_label(clustering) -> set[frozenset[str]]:
    labels = clustering.implementations
    return {frozenset(labels[i] for i in members) for members in clustering.classes}


# -- clustering -------------------------------------------------------------------------------


def test_probes_split_five_implementations_into_their_known_classes(client, openai_server):
    openai_server.responder = responder()
    impls = implementations("abs_builtin", "identity", "abs_branch", "relu", "identity_plus_zero")
    clustering = run(impls, client, probes=10)
    assert classes_by_label(clustering) == {
        frozenset({"abs_builtin", "abs_branch"}),
        frozenset({"identity", "identity_plus_zero"}),
        frozenset({"relu"}),
    }
    # Every split is backed by a confirmed input and the filter's verdict.
    assert clustering.splits
    for split in clustering.splits:
        assert split.engine == "probegen"
        assert split.filter is not None and split.filter.relevant
        assert split.input.args[0] < 0
    assert not clustering.filtered_out
    # The first probe already split all three classes, and the next probes are drawn from the
    # (tied) largest classes, never twice the same pair.
    pairs = [probe.pair for probe in clustering.probes]
    assert len(pairs) == len(set(pairs))
    assert clustering.probes[0].inputs == 3 and clustering.probes[0].clusters_after == 3
    assert clustering.usage.calls == len(openai_server.chat_requests)
    assert clustering.usage.calls >= len(clustering.probes) + 1  # probes, and at least one filter call


def test_pairs_come_from_the_largest_class_and_are_reproducible():
    classes = [(0, 1), (2, 3, 4), (5,)]
    picks = [pick_pair(classes, set(), random.Random(7)) for _ in range(3)]
    assert len(set(picks)) == 1 and set(picks[0]) <= {2, 3, 4}
    picked: set[tuple[int, int]] = {(2, 3), (2, 4), (3, 4)}
    assert pick_pair(classes, picked, random.Random(7)) == (0, 1)  # the largest is exhausted
    assert pick_pair([(0,), (1,)], set(), random.Random(7)) is None


def test_a_split_judged_spurious_is_not_applied(client, openai_server):
    openai_server.responder = responder(filter_answer=IRRELEVANT)
    impls = implementations("abs_builtin", "identity", "relu")
    clustering = run(impls, client, probes=2)
    assert len(clustering.classes) == 1
    assert not clustering.splits
    assert clustering.filtered_out
    verdict = clustering.filtered_out[0].filter
    assert verdict is not None and not verdict.relevant and "precondition" in verdict.rationale
    # The filter saw every implementation's outcome on the probe's input.
    filter_prompts = [r.prompt for r in openai_server.chat_requests if is_filter(r)]
    assert filter_prompts and all("f(-3)" in prompt for prompt in filter_prompts)


def test_without_the_filter_every_confirmed_difference_splits(client, openai_server):
    openai_server.responder = responder(filter_answer=IRRELEVANT)
    impls = implementations("abs_builtin", "identity", "relu")
    clustering = run(impls, client, probes=1, spurious_filter=False)
    assert len(clustering.classes) == 3
    assert not any(is_filter(r) for r in openai_server.chat_requests)


def test_self_consistency_pick_and_pass_at_1(client, openai_server, tmp_path):
    openai_server.responder = responder()
    tests = tmp_path / "tests.py"
    tests.write_text(TESTS)
    impls = implementations("identity", "abs_builtin", "abs_branch", "abs_square", "relu")
    clustering = run(impls, client, probes=3, tests=tests)
    labels = clustering.implementations
    assert not clustering.tied
    assert {labels[i] for i in clustering.largest} == {"abs_builtin", "abs_branch", "abs_square"}
    assert labels[clustering.pick()] == "abs_builtin"
    assert clustering.tests is not None and clustering.tests.total == 3
    assert clustering.pass_at_1 == 1.0
    assert clustering.baseline_pass_at_1 == pytest.approx(3 / 5)


def test_tied_classes_are_reported_and_pass_at_1_averages_them(client, openai_server, tmp_path):
    openai_server.responder = responder()
    tests = tmp_path / "tests.py"
    tests.write_text(TESTS)
    impls = implementations("identity", "abs_builtin", "identity_plus_zero", "abs_branch")
    clustering = run(impls, client, probes=3, tests=tests)
    assert clustering.tied
    assert len(clustering.tied_classes) == 2
    assert clustering.implementations[clustering.pick()] == "identity"  # the tie: first member order
    # abs passes every test, identity fails f(-3) == 3: the tied classes average to one half.
    assert clustering.pass_at_1 == 0.5
    failures = clustering.tests.first_failure
    assert "f(-3) == 3" in failures[0] and failures[1] == ""


def test_probes_that_find_nothing_leave_one_class(client, openai_server):
    openai_server.responder = responder(probe=ONLY_POSITIVE_PROBE)
    impls = implementations("abs_builtin", "identity", "relu")
    clustering = run(impls, client, probes=2)
    assert len(clustering.classes) == 1 and not clustering.splits
    assert [probe.reason for probe in clustering.probes] == ["exhausted", "exhausted"]
    assert not clustering.tied


def test_a_dead_endpoint_keeps_what_the_cheap_engines_found(llm_home):
    settings = LLMSettings(model="scripted", base_url="http://127.0.0.1:9/v1", max_retries=0, timeout=2.0)
    impls = implementations("abs_builtin", "identity", "abs_branch")
    with LLMClient(settings, store=llm_home / "store.db") as dead:
        clustering = semantic_cluster(
            impls, dead, store=False, budget=4.0, probes=3, spurious_filter=False, seeds=[(-2,), (3,)],
        )  # the default engines: all but the model's
    assert classes_by_label(clustering) == {frozenset({"abs_builtin", "abs_branch"}), frozenset({"identity"})}
    assert clustering.probes and clustering.probes[0].reason.startswith("failed")
    assert any("semantic clustering stopped" in note for note in clustering.report.notes)
    assert {stats.name for stats in clustering.report.engines} >= {"seeds", "mutation"}
    assert "llm" not in {stats.name for stats in clustering.report.engines}


# -- reference tests ---------------------------------------------------------------------------


def test_reference_tests_run_in_the_sandbox_per_implementation(tmp_path):
    tests = tmp_path / "tests.py"
    tests.write_text(TESTS + "\ndef test_loops():\n    if f(-1) == -1:\n        while True:\n            pass\n")
    reference = load_reference_tests(tests)
    assert len(reference.tests) == 4
    impls = implementations("abs_builtin", "identity")
    from divergent.sandbox.limits import Limits

    results = run_reference_tests(impls, reference, limits=Limits(timeout=0.5))
    assert results.passed == (4, 2)
    assert results.passes(0) and not results.passes(1)


def test_humaneval_style_check_function(tmp_path):
    tests = tmp_path / "check.py"
    tests.write_text("def check(candidate):\n    assert candidate(-4) == 4\n    assert candidate(1) == 1\n")
    results = run_reference_tests(implementations("abs_branch", "relu"), load_reference_tests(tests))
    assert results.total == 1 and results.passed == (1, 0)


@pytest.mark.parametrize(
    ("text", "message"),
    [("x = 1\n", "no tests found"), ("assert f(1 ==\n", "line 1")],
)
def test_bad_reference_test_files_are_clear_errors(tmp_path, text, message):
    tests = tmp_path / "tests.py"
    tests.write_text(text)
    with pytest.raises(InvalidArgument, match=message):
        load_reference_tests(tests)
    with pytest.raises(InvalidArgument, match="cannot read"):
        load_reference_tests(tmp_path / "missing.py")


# -- the command line --------------------------------------------------------------------------


def cluster_cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "divergent", "cluster", *args], capture_output=True, text=True, timeout=180,
        env=os.environ.copy(),
    )


def write_samples(tmp_path: Path, *names: str) -> list[str]:
    paths = []
    for name in names:
        path = tmp_path / f"{name}.py"
        path.write_text(SOURCES[name])
        paths.append(str(path))
    return paths


def test_cli_semantic_clustering_with_a_model_and_reference_tests(openai_server, llm_home, tmp_path):
    openai_server.responder = responder()
    tests = tmp_path / "tests.py"
    tests.write_text(TESTS)
    samples = write_samples(tmp_path, "identity", "abs_builtin", "abs_branch", "relu")
    result = cluster_cli(
        *samples, "--function", "f", "--model", "scripted", "--base-url", openai_server.base_url,
        "--engines", "llm", "--probes", "2", "-K", "1", "-D", "1", "--tests", str(tests), "--json",
        "--min-inputs", "0",  # a probe's few inputs back these classes
    )
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    assert [c["size"] for c in data["classes"]] == [2, 1, 1]
    assert data["pick"].endswith("abs_builtin.py") and data["tied"] is False
    assert data["pass_at_1"] == 1.0 and data["baseline_pass_at_1"] == 0.5
    # The probe ran on all four; after it only the equivalent pair is left, and it was probed already.
    assert [probe["clusters_after"] for probe in data["probes"]] == [3]
    assert any("every pair was probed" in note for note in data["notes"])
    assert data["usage"]["calls"] >= 2 and data["llm"]["model"] == "scripted"
    assert all(split["filter"]["differences"] == "IMPORTANT" for split in data["splits"])
    # A rerun in replay mode is answered from the response cache: the server hears nothing.
    asked = len(openai_server.chat_requests)
    text = cluster_cli(
        *samples, "--function", "f", "--model", "scripted", "--base-url", openai_server.base_url,
        "--engines", "llm", "--probes", "2", "-K", "1", "-D", "1", "--tests", str(tests), "--replay",
        "--min-inputs", "0",
    )
    assert text.returncode == 0, text.stderr
    assert len(openai_server.chat_requests) == asked
    assert "3 behaviour class(es)" in text.stdout and "stopped after" not in text.stdout
    assert "self-consistency pick" in text.stdout and "pass@1: 1.000" in text.stdout
    assert "ProbeGen probe" in text.stdout


def test_cli_without_a_model_keeps_the_plain_clustering_and_scores_tests(llm_home, tmp_path):
    tests = tmp_path / "tests.py"
    tests.write_text(TESTS)
    samples = write_samples(tmp_path, "identity", "abs_builtin", "abs_branch")
    result = cluster_cli(*samples, "--function", "f", "--engines", "seeds", "--seeds", str(write_seeds(tmp_path)),
                         "--tests", str(tests), "--json", "--budget", "3", "--min-inputs", "2")
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    assert [c["size"] for c in data["classes"]] == [2, 1]
    # the same seeds under the default floor: too few inputs to pick (exit 4), the classes kept
    thin = cluster_cli(*samples, "--function", "f", "--engines", "seeds", "--seeds", str(write_seeds(tmp_path)),
                       "--tests", str(tests), "--json", "--budget", "3")
    assert thin.returncode == 4, thin.stderr
    thin_data = json.loads(thin.stdout)
    assert thin_data["pick"] is None and thin_data["pass_at_1"] is None and thin_data["verdict"] == "too-few-inputs"
    assert "probes" not in data and data["llm"] is None
    assert data["pass_at_1"] == 1.0


def test_cli_bad_tests_file_is_exit_2(llm_home, tmp_path):
    tests = tmp_path / "tests.py"
    tests.write_text("print('no tests here')\n")
    samples = write_samples(tmp_path, "identity", "abs_builtin")
    result = cluster_cli(*samples, "--function", "f", "--engines", "seeds", "--tests", str(tests))
    assert result.returncode == 2
    assert "no tests found" in result.stderr and len(result.stderr.strip().splitlines()) == 1


def write_seeds(tmp_path: Path) -> Path:
    seeds = tmp_path / "seeds.txt"
    seeds.write_text("f(-2)\nf(3)\n")
    return seeds
