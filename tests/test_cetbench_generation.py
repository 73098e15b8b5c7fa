"""CETBench generation without pathological steps: a pair past its time budget is skipped with its
reason counted and stored (a resumed run does not try it again), an interrupted run resumes, and the
warm workers that tests and checks share load each version afresh."""

from __future__ import annotations

import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from divergent.bench.benchmark import Workbench
from divergent.bench.cetbench.generate import GeneratorSettings
from divergent.bench.cetbench.generation import GenerationConfig, generate_pairs, generation_parameters
from divergent.bench.cetbench.validate import (
    OverBudget,
    VersionTester,
    WarmWorkers,
    find_difference,
    task_tests,
)
from divergent.bench.common import ItemProgress
from divergent.datasets import Candidate, Task, TaskSet
from divergent.errors import InvalidArgument
from divergent.load import load_source
from divergent.records import Input
from divergent.sandbox.limits import Limits
from divergent.store import Store
from divergent.values import encode


def _task(task_id: str, entry: str, ground_truth: str, tests: list[str]) -> Task:
    return Task(task_id=task_id, description="", entry_point=entry, ground_truth=ground_truth,
                seeds_text="\n".join(tests), dataset="toy")


# a ground truth that takes 0.4 s a call: its tests alone outlast a 0.5 s pair budget
SLOW = TaskSet([
    _task(name, name, f"import time\n\ndef {name}(n):\n    time.sleep(0.4)\n    return n + 1\n",
          [f"assert {name}(1) == 2", f"assert {name}(5) == 6", f"assert {name}(-1) == 0"])
    for name in ("slow_a", "slow_b")
])
FAST = TaskSet([
    _task("inc", "inc", "def inc(n):\n    result = n + 1\n    return result\n",
          ["assert inc(1) == 2", "assert inc(5) == 6", "assert inc(-1) == 0"]),
    _task("double", "double", "def double(n):\n    total = n + n\n    return total\n",
          ["assert double(1) == 2", "assert double(0) == 0", "assert double(-3) == -6"]),
])
FAST_SAMPLES = {
    "inc": [Candidate("inc", "toy-model", 0.6, 0, "def inc(n):\n    return 1 + n\n"),
            Candidate("inc", "toy-model", 0.6, 1, "def inc(n):\n    return n + 2\n")],
    "double": [Candidate("double", "toy-model", 0.6, 0, "def double(n):\n    return 2 * n\n"),
               Candidate("double", "toy-model", 0.6, 1, "def double(n):\n    return n * n\n")],
}


def test_a_pair_past_its_budget_is_skipped_counted_stored_and_not_retried(tmp_path: Path) -> None:
    settings = GeneratorSettings(count=3, seed=3, k_max=2, check_executions=200, timeout=2.0, pair_budget=0.5)
    parameters = generation_parameters("slow", None, 5, None, settings)
    reason = "over the per-pair budget (0.5 s)"
    with Store(tmp_path / "runs.db") as store:
        generation = generate_pairs(GenerationConfig(list(SLOW), {}, settings, parameters, tmp_path / "pairs.jsonl"), Workbench(store))
        units = store.units(generation.run.id)
        assert generation.pairs == [] and generation.made_now == 0
        assert dict(generation.stats.skipped) == {reason: 3} and generation.stats.dropped == 0
        assert generation.stats.as_dict()["skipped"] == {reason: 3}
        assert [unit.result["skipped"] for unit in units] == [reason] * 3
        # the budget holds: a test run stops at the deadline, not after the task's every test
        assert all(unit.seconds < 0.5 + 2.0 for unit in units)
        started = time.monotonic()
        again = generate_pairs(GenerationConfig(list(SLOW), {}, settings, parameters, tmp_path / "pairs.jsonl"), Workbench(store))
        assert again.run.id == generation.run.id and again.progress.resumed == 3 and again.made_now == 0
        assert dict(again.stats.skipped) == {reason: 3}
        assert time.monotonic() - started < 5.0  # nothing ran again
    assert (tmp_path / "pairs.jsonl").read_text() == ""


def test_without_a_budget_the_slow_tasks_make_pairs_and_the_budget_is_an_option() -> None:
    with pytest.raises(InvalidArgument):
        GeneratorSettings(pair_budget=0)
    assert GeneratorSettings().pair_budget == 30.0
    assert GeneratorSettings(pair_budget=None).as_dict()["pair_budget"] is None


def test_an_interrupted_generation_resumes_to_the_same_pairs(tmp_path: Path) -> None:
    # (200 executions: 100 inputs, the floor of judged inputs behind "no difference")
    settings = GeneratorSettings(count=3, seed=5, k_max=1, check_executions=200, timeout=1.0)
    parameters = generation_parameters("fast", None, 5, None, settings)
    with Store(tmp_path / "whole.db") as store:
        whole = generate_pairs(GenerationConfig(list(FAST), FAST_SAMPLES, settings, parameters, tmp_path / "whole.jsonl"),
                               Workbench(store))
    assert whole.pairs and whole.stats.skipped == {}

    def stop_after_the_first(progress: ItemProgress) -> None:
        if progress.done:
            raise KeyboardInterrupt

    with Store(tmp_path / "split.db") as store:
        before = set(threading.enumerate())
        with pytest.raises(KeyboardInterrupt):
            generate_pairs(GenerationConfig(list(FAST), FAST_SAMPLES, settings, parameters, tmp_path / "split.jsonl"),
                           Workbench(store, on_progress=stop_after_the_first))
        # a killed run resumes in a new process: let the interrupted run's threads (a position still
        # in flight, whose warm workers the interrupt closed) end before the resumed run starts
        for thread in set(threading.enumerate()) - before:
            thread.join(timeout=60)
        resumed = generate_pairs(GenerationConfig(list(FAST), FAST_SAMPLES, settings, parameters, tmp_path / "split.jsonl"),
                                 Workbench(store))
    assert resumed.progress.resumed == 1 and resumed.progress.total == 3

    def without_seconds(pairs: list[dict]) -> list[dict]:
        return [{key: value for key, value in pair.items() if key != "seconds"} for pair in pairs]

    assert without_seconds(resumed.pairs) == without_seconds(whole.pairs)


def test_warm_workers_load_each_version_afresh() -> None:
    counting = "calls = []\n\ndef f(n):\n    calls.append(n)\n    return len(calls)\n"
    workers = WarmWorkers(Limits(timeout=2.0))
    try:
        for expected_label in ("first", "second"):
            pool = workers.pool([load_source(counting, function="f", label=expected_label)], compare_mutation=False)
            rows = pool.run([Input(args=(1,)), Input(args=(2,))])
            # module state starts anew with each load: no calls left over from the last version
            assert [row[0].value for row in rows] == [encode(1), encode(2)]
        other = workers.pool([load_source("def f(n):\n    return n * 10\n", function="f", label="other")],
                             compare_mutation=False)
        assert other.run([Input(args=(4,))])[0][0].value == encode(40)
        assert workers.started == 1 and workers.reloaded == 2
    finally:
        workers.close()


def test_version_tester_on_warm_workers_gives_each_version_its_own_results() -> None:
    tests = task_tests(FAST[0])
    workers = WarmWorkers(Limits(timeout=1.0))
    try:
        tester = VersionTester(tests, limits=Limits(timeout=1.0), workers=workers)
        right, wrong, broken = tester.results([FAST[0].ground_truth, FAST_SAMPLES["inc"][1].source, "def inc(:\n"])
        assert right == (True, True, True) and wrong == (False, False, False) and broken == (False,) * 3
        looping = "def inc(n):\n    while True:\n        pass\n"
        assert tester.first_change(looping, right, breaking=True) == 0
        assert tester.first_change("def inc(n):\n    return n + 1\n", right, breaking=False) is None
    finally:
        workers.close()


def test_variable_renaming_picks_the_same_read_in_every_process() -> None:
    # libcst keeps references in sets ordered by object address: another allocation history (here
    # a different number of objects made first) must not change which read a seed breaks
    program = ("def shift(x, k):\n    text = str(x)\n    size = len(text)\n    k = k % size\n"
               "    return text[-k:] + text[:-k] + text[0] + str(size) + str(size)\n")
    script = (
        "import random, sys\n"
        "junk = [object() for _ in range(int(sys.argv[1]))]\n"
        "from divergent.bench.cetbench.perturb import PerturbationType, apply_perturbation\n"
        f"source = {program!r}\n"
        "for seed in range(8):\n"
        "    applied = apply_perturbation(source, PerturbationType.VARIABLE_RENAMING, False, random.Random(seed))\n"
        "    print(applied.source if applied else None)\n"
    )
    outputs = {subprocess.run([sys.executable, "-c", script, str(count)], capture_output=True, text=True,
                              check=True, cwd=Path(__file__).resolve().parents[1]).stdout for count in (0, 4321)}
    assert len(outputs) == 1 and "None" not in outputs.pop()


def test_a_check_stopped_by_the_pair_s_deadline_gives_no_verdict() -> None:
    task = _task("nap", "nap", "import time\n\ndef nap(n):\n    time.sleep(0.02)\n    return n\n",
                 ["assert nap(1) == 1", "assert nap(2) == 2"])
    same = task.ground_truth + "\n# the same\n"
    workers = WarmWorkers(Limits(timeout=1.0))
    try:
        with pytest.raises(OverBudget):  # 2,000 calls of 20 ms do not fit in 1.5 s
            find_difference(task.ground_truth, same, task, executions=2000, seed=1, limits=Limits(timeout=1.0),
                            workers=workers, deadline=time.monotonic() + 1.5)
        # with time enough for its executions, the same check answers (400 executions: over 100 inputs,
        # the floor of judged inputs behind "no difference"; 20 are too few to say)
        quick = find_difference(task.ground_truth, same, task, executions=400, seed=1, limits=Limits(timeout=1.0),
                                workers=workers, deadline=time.monotonic() + 30)
        assert not quick.found and not quick.error
        thin = find_difference(task.ground_truth, same, task, executions=20, seed=1, limits=Limits(timeout=1.0),
                               workers=workers, deadline=time.monotonic() + 20)
        assert not thin.found and thin.error.startswith("too few inputs to tell: --executions ended the search")
    finally:
        workers.close()
