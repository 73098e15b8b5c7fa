"""Gen(d) for incoherence: n draws with repeats (each different input run once) or n distinct inputs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from divergent.datasets import Candidate, Task, load_tasks
from divergent.engines.base import EngineContext
from divergent.engines.constants import Constants
from divergent.engines.mutation import MutationEngine
from divergent.errors import InvalidArgument
from divergent.incoherence.inputs import InputMode, generate_inputs
from divergent.incoherence.metrics import task_metrics
from divergent.incoherence.run import TaskJob, Validity, run_task
from divergent.policy import DEFAULT_POLICY
from divergent.preconditions import conforms
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


def test_draw_needs_the_table6_operators(double_task: Task) -> None:
    reference = double_task.reference()
    context = EngineContext(
        implementations=(reference,), signature=reference.signature, seeds=(), constants=Constants(), seed=0
    )
    with pytest.raises(InvalidArgument, match="table6"):
        MutationEngine(context).draw(5)


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
