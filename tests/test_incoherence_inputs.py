"""Gen(d) for incoherence: n independent draws with repeats (each different input run once) or n\ndistinct inputs."""

from __future__ import annotations

import json
import string
from pathlib import Path

import pytest

from divergent.datasets import Candidate, Task, load_tasks
from divergent.datasets.jobs import TaskJob
from divergent.incoherence.inputs import GEN_D, STACKED_MUTATIONS, GenD, InputMode, generate_inputs
from divergent.incoherence.metrics import task_metrics
from divergent.incoherence.run import Validity, run_task
from divergent.incoherence.study import StudyConfig
from divergent.policy import DEFAULT_POLICY
from divergent.preconditions import conforms
from divergent.programs import Parameter, Signature
from divergent.records import Input
from divergent.sandbox.limits import Limits

DOUBLE = {
    "task_id": "T/0", "entry_point": "double",
    "ground_truth": "def double(x: int) -> int:\n    return 2 * x\n",
    "tests": ["assert double(3) == 6", "assert double(-1) == -2"],
}  # fmt: skip


@pytest.fixture
def double_task(tmp_path: Path) -> Task:
    path = tmp_path / "tasks.jsonl"
    path.write_text(json.dumps(DOUBLE) + "\n")
    (task,) = load_tasks(str(path))
    return task


def test_draws_repeat_and_do_not_depend_on_n(double_task: Task) -> None:
    reference = double_task.reference()
    few = generate_inputs(double_task, reference, 100, seed=3, mode=InputMode.DRAWS)
    many = generate_inputs(double_task, reference, 1000, seed=3, mode=InputMode.DRAWS)
    assert len(many.inputs) == 1000 and many.generated == 1000
    # the first draws are the same whatever n: n only says how many to take from one distribution
    assert [i.key for i in many.inputs[:100]] == [i.key for i in few.inputs]
    assert all(conforms(i, reference.signature) for i in many.inputs)
    assert len({i.key for i in many.inputs}) < 500  # one int near the tests: many repeats
    assert max(abs(i.args[0]) for i in many.inputs) < 400  # and it stays near them (±100 steps)
    again = generate_inputs(double_task, reference, 1000, seed=3, mode=InputMode.DRAWS)
    assert [i.key for i in again.inputs] == [i.key for i in many.inputs]


def test_distinct_inputs_spread_to_reach_n(double_task: Task) -> None:
    reference = double_task.reference()
    chosen = generate_inputs(double_task, reference, 1000, seed=3, mode=InputMode.DISTINCT)
    keys = [i.key for i in chosen.inputs]
    assert len(keys) == len(set(keys)) == 1000
    assert max(abs(i.args[0]) for i in chosen.inputs) >= 499  # 1,000 different ints cannot stay near 3


LISTS = {
    "task_id": "T/1", "entry_point": "count",
    "ground_truth": "def count(xs):\n    return len(xs)\n",
    "tests": ["assert count([1, 2, 3]) == 3", "assert count([4, 5]) == 2"],
}  # fmt: skip


def test_each_draw_mutates_a_test_input_not_an_earlier_draw(tmp_path: Path) -> None:
    """Gen(d)'s draws are independent and alike (the paper's estimators and bounds need that):
    the last draws are no farther from the tests than the first. Drawn as mutants of earlier draws,
    lists drifted: the last thousand of 3,000 were 1.4 times as far from the tests' lengths."""
    path = tmp_path / "tasks.jsonl"
    path.write_text(json.dumps(LISTS) + "\n")
    (task,) = load_tasks(str(path))
    drawn = generate_inputs(task, task.reference(), 3000, seed=3, mode=InputMode.DRAWS).inputs[2:]
    lengths = [len(i.args[0]) for i in drawn]
    assert all(isinstance(x, int) for i in drawn for x in i.args[0])  # the type the tests show

    def spread(part: list[int]) -> float:
        return sum(abs(length - 2.5) for length in part) / len(part)

    assert 0.85 < spread(lengths[-1000:]) / spread(lengths[:300]) < 1.15


def test_a_study_stored_with_another_gen_d_is_not_resumed() -> None:
    parameters = StudyConfig(tasks="mbpp", samples="s.jsonl").parameters()
    assert parameters["gen_d"] == GEN_D == "independent-draws"


def test_a_draw_stacks_1_10_or_30_basic_mutations_per_argument(double_task: Task) -> None:
    """Each argument of a draw gets 1, 10 or 30 of Table 6's mutations; a number moves by ±1, ±10 or
    a random number no larger, so a draw stays within 300 of its test input (and reaches past 100)."""
    reference = double_task.reference()
    draws = GenD(double_task.seed_inputs(reference.signature), reference.signature, 5).draw(2000)
    values = [i.args[0] for i in draws]
    assert all(min(abs(x - 3), abs(x + 1)) <= 10 * max(STACKED_MUTATIONS) for x in values)
    assert max(abs(x) for x in values) > 100
    texts = GenD([Input(("abc",))], Signature((Parameter("s", annotation_source="str", annotation=str),)), 5)
    assert all(set(text.args[0]) <= set(string.printable) for text in texts.draw(300))


def test_a_draw_mutates_nested_values_at_any_depth() -> None:
    """The position a mutation changes is drawn over the whole value, its elements included: the
    items of a list of pairs change, and the pairs keep their length (the tests show pairs)."""
    signature = Signature((Parameter("pairs"),))
    seed = Input(([(1, "a"), (2, "b"), (3, "c")],))
    drawn = GenD([seed], signature, 1).draw(500)
    pairs = [pair for i in drawn for pair in i.args[0]]
    assert all(len(pair) == 2 and isinstance(pair[0], int) and isinstance(pair[1], str) for pair in pairs)
    assert any(pair[0] not in (1, 2, 3) for pair in pairs)
    assert any(pair[1] not in "abc" for pair in pairs)
    assert seed.args[0] == [(1, "a"), (2, "b"), (3, "c")]  # the test input itself is left as it was


def test_a_repeated_draw_counts_as_often_as_it_was_drawn(double_task: Task) -> None:
    """A sample wrong on the non-zero multiples of 5: its error is their share among the draws,
    repeats included (not their share among the different inputs)."""
    wrong_on_fives = "def double(x):\n    return 2 * x if x % 5 else 0\n"
    right = "def double(x):\n    return x + x\n"
    candidates = [Candidate("T/0", "toy", 0.5, k, source) for k, source in enumerate([right, wrong_on_fives, right])]
    job = TaskJob(task=double_task, candidates={("toy", 0.5): candidates})
    n, seed = 400, 11
    drawn = [i.args[0] for i in generate_inputs(double_task, double_task.reference(), n, seed, InputMode.DRAWS).inputs]
    wrong = [x % 5 == 0 and x != 0 for x in drawn]
    by_draws = sum(wrong) / n
    by_distinct = len({x for x, bad in zip(drawn, wrong, strict=True) if bad}) / len(set(drawn))
    assert abs(by_draws - by_distinct) > 0.01, "pick another seed: this one cannot tell the two apart"
    (unit,) = run_task(job, n=n, seed=seed, policy=DEFAULT_POLICY, limits=Limits(timeout=2.0),
                       validity=Validity.GT_RAISES, input_mode=InputMode.DRAWS)
    assert unit.inputs == n and unit.generated_inputs == n
    assert unit.distinct_inputs == len(set(drawn)) < n
    metrics = task_metrics(unit.labels, unit.gt_labels, seed=0)
    assert metrics.error_exact == pytest.approx(by_draws / 3)
    # one of three samples apart on those draws: a pair disagrees with probability 1 - (2/3)² - (1/3)²
    assert metrics.incoherence_exact == pytest.approx(by_draws * (1 - (2 / 3) ** 2 - (1 / 3) ** 2))
