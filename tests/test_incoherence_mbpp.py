"""MBPP under the incoherence study: which inputs count (``--validity``), and a regression check
against the DiffTrust artifact's own per-task MBPP logs (shared/data/difftrust/MBPP/experiments)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from divergent.datasets import Candidate, load_candidates_jsonl, load_tasks
from divergent.datasets.jobs import TaskJob
from divergent.datasets.jsonl import default_data_dir
from divergent.incoherence.difftrust import paper_task_results
from divergent.incoherence.inputs import InputMode
from divergent.incoherence.metrics import task_metrics
from divergent.incoherence.run import Validity, run_task
from divergent.incoherence.study import StudyConfig
from divergent.policy import DEFAULT_POLICY
from divergent.sandbox.limits import Limits

DATA = default_data_dir() or Path("/nonexistent")
MBPP_LOGS = DATA / "MBPP" / "experiments"
needs_artifact = pytest.mark.skipif(
    not (MBPP_LOGS.is_dir() and (DATA / "candidates_MBPP_dev.jsonl.gz").is_file()),
    reason="the shared DiffTrust artifact (MBPP logs and samples) is not available",
)


def test_auto_validity_is_the_artifact_rule_under_compat_difftrust() -> None:
    artifact_like = StudyConfig(tasks="mbpp", samples="s.jsonl", compat="difftrust")
    assert artifact_like.validity is Validity.AUTO and artifact_like.effective_validity is Validity.GT_RAISES
    # stored as the rule in force: the same run as one asked for with --validity gt-raises
    explicit = StudyConfig(tasks="mbpp", samples="s.jsonl", compat="difftrust", validity=Validity.GT_RAISES)
    assert artifact_like.parameters() == explicit.parameters()
    own = StudyConfig(tasks="mbpp", samples="s.jsonl")
    assert own.effective_validity is Validity.AUTO and own.parameters()["validity"] == "auto"
    kept = StudyConfig(tasks="mbpp", samples="s.jsonl", compat="difftrust", validity=Validity.GT_TIMEOUT)
    assert kept.effective_validity is Validity.GT_TIMEOUT


def test_auto_validity_follows_the_task(tmp_path: Path) -> None:
    path = tmp_path / "tasks.jsonl"
    records = [
        {"task_id": "a", "entry_point": "f", "ground_truth": "def f(x):\n    return x\n"},
        {"task_id": "b", "entry_point": "f", "ground_truth": "def f(x):\n    return x\n", "raising_is_specified": False},
    ]
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    specified, accidental = load_tasks(str(path))
    assert Validity.AUTO.for_task(specified) is Validity.GT_TIMEOUT
    assert Validity.AUTO.for_task(accidental) is Validity.GT_RAISES
    assert Validity.GT_TIMEOUT.for_task(accidental) is Validity.GT_TIMEOUT
    path.write_text(json.dumps({**records[0], "raising_is_specified": "no"}) + "\n")
    problems = load_tasks(str(path)).problems
    assert len(problems) == 1 and "raising_is_specified" in problems[0].message


@needs_artifact
def test_mbpp_ground_truths_raise_only_by_accident_humaneval_keeps_its_rule() -> None:
    mbpp = load_tasks("mbpp")
    assert len(mbpp) == 427 and not any(task.raising_is_specified for task in mbpp)
    assert all(task.raising_is_specified for task in load_tasks("humaneval"))


def test_auto_drops_the_inputs_a_task_does_not_specify(tmp_path: Path) -> None:
    """A ground truth that crashes below zero and a sample that answers there: with AUTO the
    sample is wrong on those inputs only when the task says raising is specified."""
    record = {"task_id": "t", "entry_point": "root", "tests": ["assert root(9) == 3", "assert root(-4) == 0"],
              "ground_truth": "import math\ndef root(n: int) -> int:\n    return math.isqrt(n)\n"}
    sample = "def root(n):\n    return 0 if n < 0 else int(n ** 0.5 + 1e-9)\n"
    errors = {}
    for specified in (True, False):
        path = tmp_path / f"{specified}.jsonl"
        path.write_text(json.dumps({**record, "raising_is_specified": specified}) + "\n")
        (task,) = load_tasks(str(path))
        candidates = [Candidate("t", "toy", 0.5, k, sample) for k in range(2)]
        (unit,) = run_task(TaskJob(task=task, candidates={("toy", 0.5): candidates}), n=200, seed=1,
                           policy=DEFAULT_POLICY, limits=Limits(timeout=2.0), validity=Validity.AUTO)
        metrics = task_metrics(unit.labels, unit.gt_labels, seed=0)
        errors[specified] = (metrics.error_exact, unit.inputs)
    assert errors[False][0] == 0.0
    assert errors[True][0] > 0.1 and errors[True][1] > errors[False][1]


#: (MBPP task, error with gt-raises ~ the log, error when inputs the ground truth raises on stay):
#: power recurses forever below b = 0, divisor reads an unbound local for n <= 0, magic_square_test
#: indexes past a non-square matrix, sum_list indexes past short rows. On those inputs the samples
#: answer, so keeping them counts every sample wrong there (the issue's 0.05 gap).
REGRESSION_TASKS = ("93", "96", "129", "728")


#: a model whose MBPP logs ship with the artifact
MBPP_MODEL = ("gpt_4o", 0.6)


def _gpt_4o_jobs(task_ids: tuple[str, ...]) -> tuple[list[TaskJob], dict]:
    """A job per task (gpt_4o's first 10 samples) and the artifact's logged results by task."""
    tasks = load_tasks("mbpp").select(task_ids)
    samples = load_candidates_jsonl(
        DATA / "candidates_MBPP_dev.jsonl.gz", models=[MBPP_MODEL], tasks=set(task_ids), per_task=10
    ).source(*MBPP_MODEL)
    logged = {
        t.task_id: t
        for t in paper_task_results(MBPP_LOGS / "gpt_4o_temp0.6/logs/experiment-pointwise_10_candidate.json")
    }
    return [TaskJob(task=task, candidates={MBPP_MODEL: samples.candidates(task, 10)}) for task in tasks], logged


@needs_artifact
def test_mbpp_errors_match_the_artifact_logs() -> None:
    jobs, logged = _gpt_4o_jobs(REGRESSION_TASKS)
    compat = StudyConfig(tasks="mbpp", samples="unused", compat="difftrust")
    for job in jobs:
        task = job.task
        errors = {}
        for validity in (compat.effective_validity, Validity.GT_TIMEOUT):
            (unit,) = run_task(job, n=400, seed=0, policy=compat.policy, limits=Limits(timeout=2.0),
                               validity=validity, input_mode=InputMode.DRAWS)
            metrics = task_metrics(unit.labels, unit.gt_labels, seed=0, task_id=task.task_id)
            errors[validity] = (metrics.error_exact, metrics.incoherence_exact)
        error, incoherence = errors[Validity.GT_RAISES]
        paper = logged[task.task_id]
        assert error == pytest.approx(paper.error, abs=0.05), task.task_id
        assert incoherence == pytest.approx(paper.incoherence, abs=0.05), task.task_id
        assert errors[Validity.GT_TIMEOUT][0] > paper.error + 0.25, task.task_id


#: MBPP tasks where every sample reads the task one way and the ground truth another on inputs away
#: from the tests (sum_digits and last_Digit_Factorial on negative numbers, merge on rows of unequal
#: length). When Gen(d) drew mutants of earlier draws, those inputs piled up and the error was 0.2 to
#: 0.27 above the logs for every model (0.28, 0.44, 0.79 against 0.07, 0.21, 0.52 for gpt_4o); as
#: independent draws from the tests, it is the logs' within 0.06.
INDEPENDENT_DRAW_TASKS = ("566", "577", "612")


@needs_artifact
def test_mbpp_inputs_are_drawn_near_the_tests_as_the_paper_draws_them() -> None:
    jobs, logged = _gpt_4o_jobs(INDEPENDENT_DRAW_TASKS)
    compat = StudyConfig(tasks="mbpp", samples="unused", compat="difftrust")
    for job in jobs:
        task = job.task
        (unit,) = run_task(job, n=400, seed=0, policy=compat.policy, limits=Limits(timeout=2.0),
                           validity=compat.effective_validity, input_mode=InputMode.DRAWS)
        metrics = task_metrics(unit.labels, unit.gt_labels, seed=0, task_id=task.task_id)
        assert metrics.error_exact == pytest.approx(logged[task.task_id].error, abs=0.06), task.task_id
