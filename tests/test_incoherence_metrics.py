"""Incoherence and error of sampled programs (the DiffTrust paper, shared/papers/001), the artifact's
logs, and the DIFFTRUST_POLICY equality preset."""

from __future__ import annotations

import dataclasses
import json
import math
import random
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from divergent.datasets import default_data_dir
from divergent.errors import InvalidArgument
from divergent.incoherence.difftrust import (
    DIFFTRUST_POLICY,
    DIFFTRUST_VALUES,
    PaperTask,
    aggregate_paper,
    paper_task_results,
)
from divergent.incoherence.metrics import (
    ModelMetrics,
    TaskBehaviour,
    aggregate,
    average_ranks,
    behaviour_from_classes,
    functional_incoherence,
    pac_detection_samples,
    pac_estimation_samples,
    ranking_agreement,
    spearman,
    task_metrics,
)
from divergent.policy import DEFAULT_POLICY, DEFAULT_VALUE_RULES, EqualityPolicy
from divergent.records import ExceptionInfo, Outcome, OutcomeKind
from divergent.values import encode

ARTIFACT = (default_data_dir() or Path("/nonexistent")) / "HumanEval" / "experiments"


@st.composite
def tasks_with_ground_truth(draw: st.DrawFn) -> tuple[list[list[int]], list[int]]:
    """Small class-label matrices ([input][candidate]) and a ground-truth label per input (label 4
    is one no candidate has: the ground truth then differs from every candidate)."""
    inputs = draw(st.integers(1, 5))
    candidates = draw(st.integers(1, 6))
    labels = st.integers(0, 3)
    classes = draw(
        st.lists(st.lists(labels, min_size=candidates, max_size=candidates), min_size=inputs, max_size=inputs)
    )
    gt_class = draw(st.lists(st.integers(0, 4), min_size=inputs, max_size=inputs))
    return classes, gt_class


# -- Theorem 4.1 and the exact estimators ----------------------------------------------------------


@settings(max_examples=150, deadline=None)
@given(tasks_with_ground_truth(), st.integers(0, 2**32))
def test_incoherence_is_at_most_twice_the_error(task: tuple[list[list[int]], list[int]], seed: int) -> None:
    classes, gt_class = task
    metrics = task_metrics(classes, gt_class, seed=seed)
    assert metrics.error_exact is not None and metrics.functional_error is not None
    assert metrics.incoherence_exact <= 2 * metrics.error_exact + 1e-12  # Theorem 4.1
    assert metrics.functional_incoherence <= 2 * metrics.functional_error + 1e-12  # Theorem C.1
    # zero error forces zero incoherence: the detector has no false positives
    if metrics.any_candidate_wrong is False:
        assert metrics.incoherence == metrics.incoherence_exact == 0.0
    assert metrics.any_disagreement == (metrics.incoherence_exact > 0)
    assert metrics.any_candidate_wrong == (metrics.error_exact > 0)
    assert 0.0 <= metrics.incoherence <= 1.0 and 0.0 <= (metrics.error or 0.0) <= 1.0


@settings(max_examples=50, deadline=None)
@given(st.integers(1, 6), st.integers(1, 8), st.integers(0, 5), st.integers(0, 2**32))
def test_candidates_that_always_agree_have_no_incoherence(
    inputs: int, candidates: int, label: int, seed: int
) -> None:
    classes = [[label + i] * candidates for i in range(inputs)]
    metrics = task_metrics(classes, seed=seed, pairs_per_input=3)
    assert metrics.incoherence == metrics.incoherence_exact == metrics.functional_incoherence == 0.0
    assert not metrics.any_disagreement
    assert metrics.error is metrics.error_exact is metrics.first_candidate_correct is None


def test_sampled_estimators_converge_to_the_exact_ones() -> None:
    classes = [[0, 0, 1, 2], [0, 1, 1, 1], [3, 3, 3, 3], [0, 1, 2, 3]]
    gt_class = [0, 1, 3, 9]
    many = task_metrics(classes, gt_class, seed=7, pairs_per_input=5_000)
    assert many.error is not None and many.error_exact is not None
    assert abs(many.incoherence - many.incoherence_exact) < 0.02
    assert abs(many.error - many.error_exact) < 0.02


def test_sampled_estimators_draw_as_documented() -> None:
    """Eqs. 9-10: per input one y_i and one y'_i, uniform over the m candidates, from Random(seed)."""
    classes = [[0, 1, 1], [2, 2, 0], [1, 0, 1], [0, 0, 0], [5, 6, 7]]
    gt_class = [1, 2, 1, 0, 5]
    rng = random.Random(11)
    errors = disagreements = 0
    for row, truth in zip(classes, gt_class, strict=True):
        y, y_prime = rng.randrange(3), rng.randrange(3)
        errors += row[y] != truth
        disagreements += row[y] != row[y_prime]
    metrics = task_metrics(classes, gt_class, seed=11)
    assert metrics.error == errors / 5 and metrics.incoherence == disagreements / 5
    assert task_metrics(classes, seed=11).incoherence == metrics.incoherence  # same draws without a truth


def test_task_metrics_by_hand() -> None:
    # input 0: classes {0: 2, 1: 1}; input 1: three different outputs, none the ground truth's
    metrics = task_metrics([[0, 0, 1], [0, 1, 2]], [0, 5], seed=0, task_id="t")
    assert metrics.task_id == "t" and (metrics.n_inputs, metrics.n_candidates) == (2, 3)
    assert metrics.incoherence_exact == pytest.approx(((1 - 5 / 9) + (1 - 3 / 9)) / 2)  # 5/9
    assert metrics.error_exact == pytest.approx((1 / 3 + 1) / 2)
    assert metrics.first_candidate_correct is False and metrics.correct_candidate_share == 0.0
    assert metrics.any_candidate_wrong is True and metrics.any_disagreement is True
    assert metrics.functional_incoherence == pytest.approx(2 / 3) and metrics.functional_error == 1.0

    # candidate 1 matches the ground truth everywhere; candidates 0 and 2 do not
    other = task_metrics([[0, 0, 1], [0, 1, 2]], [0, 1], seed=0)
    assert other.error_exact == pytest.approx((1 / 3 + 2 / 3) / 2)
    assert other.correct_candidate_share == pytest.approx(1 / 3) and other.first_candidate_correct is False


def test_functional_incoherence_by_hand() -> None:
    # candidates 0 and 1 behave alike on every input, candidate 2 differs on input 1
    classes = [[0, 0, 0], [1, 1, 2]]
    assert functional_incoherence(classes) == pytest.approx(1 - (4 + 1) / 9)
    assert functional_incoherence(classes, distinct_pairs=True) == pytest.approx(4 / 6)
    assert functional_incoherence([[0, 1]], distinct_pairs=True) == 1.0
    with pytest.raises(InvalidArgument, match="at least 2"):
        functional_incoherence([[0]], distinct_pairs=True)


def test_behaviour_from_classes_and_validation() -> None:
    behaviour = behaviour_from_classes([[0, 1], [2, 2]], [1, 3])
    assert behaviour.gt_equal == ((False, True), (False, False))
    assert behaviour.agree(1, 0, 1) and not behaviour.agree(0, 0, 1)
    assert task_metrics(behaviour, seed=1).error_exact == pytest.approx((1 / 2 + 1) / 2)
    direct = TaskBehaviour(classes=((0, 1),), gt_equal=((True, False),))
    assert task_metrics(direct, seed=1).error_exact == 0.5
    with pytest.raises(InvalidArgument, match=r"classes\[1\]"):
        behaviour_from_classes([[0, 1], [0]])
    with pytest.raises(InvalidArgument, match="gt_class"):
        behaviour_from_classes([[0, 1]], [0, 0])
    with pytest.raises(InvalidArgument, match="at least one"):
        behaviour_from_classes([])
    with pytest.raises(InvalidArgument, match="pairs_per_input"):
        task_metrics([[0]], seed=0, pairs_per_input=0)
    with pytest.raises(InvalidArgument, match="TaskBehaviour"):
        task_metrics(behaviour, [1, 3], seed=0)


# -- aggregates -------------------------------------------------------------------------------------


def test_aggregate_by_hand() -> None:
    tasks = [
        task_metrics([[0, 0]], [0], seed=0),  # correct and coherent
        task_metrics([[0, 0], [0, 0]], [0, 1], seed=0),  # wrong but coherent: an undetected error
        task_metrics([[0, 1]], [0], seed=0),  # half wrong, incoherent
        task_metrics([[0, 1], [0, 0]], [1, 1], seed=0),
    ]
    # exact values: errors [0, 1/2, 1/2, 3/4], incoherences [0, 0, 1/2, 1/4]
    model = aggregate(tasks, exact=True)
    assert model.estimator == "exact" and model.tasks == 4
    assert model.mean_error == pytest.approx(1.75 / 4)  # eq. 11
    assert model.mean_incoherence == pytest.approx(0.75 / 4)  # eq. 12
    assert model.detection_rate == pytest.approx(2 / 3)  # eq. 15: tasks 2 and 3 of the 3 erroneous
    assert model.undetected_mean_error == pytest.approx(0.25)  # eq. 16: tasks 0 and 1
    assert model.nonzero_error_share == 0.75 and model.nonzero_incoherence_share == 0.5
    assert model.pass_at_1 == 0.5  # eq. 13: the first candidate is right on tasks 0 and 2
    assert model.pass_at_1_expected == pytest.approx((1 + 0 + 0.5 + 0) / 4)
    # ranks: incoherence [1.5, 1.5, 4, 3], error [1, 2.5, 2.5, 4]
    assert model.error_incoherence_spearman == pytest.approx(0.5)


def test_aggregate_sampled_and_without_ground_truth() -> None:
    tasks = [task_metrics([[0, 1, 1], [2, 2, 2]], [1, 2], seed=s) for s in range(3)]
    sampled = aggregate(tasks)
    assert sampled.estimator == "sampled"
    assert sampled.mean_error == pytest.approx(sum(t.error or 0 for t in tasks) / 3)
    blind = aggregate([task_metrics([[0, 1]], seed=0), task_metrics([[0, 0]], seed=0)], exact=True)
    assert blind.mean_incoherence == 0.25 and blind.nonzero_incoherence_share == 0.5
    assert (blind.mean_error, blind.detection_rate, blind.pass_at_1, blind.error_incoherence_spearman) == (
        None,
    ) * 4
    # all tasks coherent and correct: the detection rate is 0/0
    perfect = aggregate([task_metrics([[0, 0]], [0], seed=0)] * 2, exact=True)
    assert math.isnan(perfect.detection_rate or 0.0) and perfect.undetected_mean_error == 0.0
    with pytest.raises(InvalidArgument):
        aggregate([])


def _model(nonzero_error_share: float, nonzero_incoherence_share: float) -> ModelMetrics:
    base = aggregate([task_metrics([[0, 0]], [0], seed=0)], exact=True)
    return dataclasses.replace(
        base, nonzero_error_share=nonzero_error_share, nonzero_incoherence_share=nonzero_incoherence_share
    )


def test_ranking_agreement_by_hand() -> None:
    agreement = ranking_agreement({"a": _model(0.1, 0.05), "b": _model(0.3, 0.2), "c": _model(0.2, 0.2)})
    assert agreement.models == ("a", "b", "c")
    assert agreement.error_ranks == (1.0, 3.0, 2.0)
    assert agreement.incoherence_ranks == (1.0, 2.5, 2.5)
    assert agreement.ranking_spearman == pytest.approx(spearman([0.1, 0.3, 0.2], [0.05, 0.2, 0.2]))
    assert agreement.ranking_spearman == pytest.approx(1.5 / math.sqrt(2 * 1.5))
    with pytest.raises(InvalidArgument, match="at least 2"):
        ranking_agreement({"a": _model(0.1, 0.1)})


# -- Spearman and PAC sizes -------------------------------------------------------------------------


def test_spearman_by_hand() -> None:
    assert spearman([1, 2, 3, 4], [10, 20, 30, 40]) == pytest.approx(1.0)
    assert spearman([1, 2, 3, 4], [4, 3, 2, 1]) == pytest.approx(-1.0)
    # ties: ranks [1, 2.5, 2.5, 4] and [1, 3, 2, 4] give 4.5 / sqrt(4.5 * 5) = 3 / sqrt(10)
    assert spearman([1, 2, 2, 3], [1, 3, 2, 4]) == pytest.approx(3 / math.sqrt(10))
    assert average_ranks([0.5, 0.1, 0.5, 0.5]) == [3.0, 1.0, 3.0, 3.0]
    assert math.isnan(spearman([1, 1, 1], [1, 2, 3])) and math.isnan(spearman([1], [2]))
    with pytest.raises(InvalidArgument, match="equal length"):
        spearman([1, 2], [1])
    with pytest.raises(InvalidArgument, match="NaN"):
        spearman([1, math.nan], [1, 2])


def test_pac_sample_sizes_by_hand() -> None:
    assert pac_estimation_samples(0.05, 0.05) == 738  # log(40) / 0.005 = 737.8
    assert pac_estimation_samples(0.1, 0.05) == 185  # log(40) / 0.02 = 184.4
    assert pac_detection_samples(0.1, 0.01) == 44  # log(0.01) / log(0.9) = 43.7
    assert pac_detection_samples(0.01, 0.05) == 299  # 298.07
    assert pac_detection_samples(0.5, 0.25) == 2  # exactly 2, not 3 from rounding
    for bad in (0, 1, -0.1, 1.5, math.nan, True):
        with pytest.raises(InvalidArgument, match="epsilon="):
            pac_estimation_samples(bad, 0.1)
        with pytest.raises(InvalidArgument, match="delta="):
            pac_detection_samples(0.1, bad)


# -- the artifact's logs ----------------------------------------------------------------------------


def test_paper_task_results_reads_failed_entries(tmp_path: Path) -> None:
    log = tmp_path / "log.json"
    log.write_text(
        json.dumps(
            [
                {"name": "f", "task_id": "T/0", "Dis": 0.0, "Err": 0.5, "TotalTime": 1.0},
                {"name": "g", "task_id": "T/1", "Failed": "Timeout"},
                {"name": "h", "task_id": "T/2", "Dis": 0.25, "Err": 0.5, "TotalTime": 2.0},
            ]
        )
    )
    tasks = paper_task_results(log)
    assert tasks[1] == PaperTask("g", "T/1", None, None, None, "Timeout") and tasks[1].failed
    model = aggregate_paper(tasks)
    assert (model.tasks, model.excluded_tasks, model.estimator) == (2, 1, "paper-log")
    assert model.detection_rate == 0.5 and model.undetected_mean_error == 0.5 and model.pass_at_1 is None
    log.write_text(json.dumps([{"task_id": "T/0", "Dis": 0.1}]))
    with pytest.raises(InvalidArgument, match="neither"):
        paper_task_results(log)


@pytest.mark.skipif(not ARTIFACT.is_dir(), reason="the shared DiffTrust artifact is not available")
def test_artifact_logs_reproduce_table_4_and_figure_1() -> None:
    tasks = paper_task_results(ARTIFACT / "gpt_4o_temp0.6/logs/experiment-pointwise_10_candidate.json")
    assert len(tasks) == 150 and sum(task.failed for task in tasks) == 5
    gpt_4o = aggregate_paper(tasks)
    # Table 4, HumanEval, GPT-4o
    assert gpt_4o.mean_error == pytest.approx(0.0927, abs=5e-5)
    assert gpt_4o.mean_incoherence == pytest.approx(0.0483, abs=5e-5)
    assert gpt_4o.error_incoherence_spearman == pytest.approx(0.7181, abs=5e-5)
    assert gpt_4o.detection_rate == pytest.approx(0.7042, abs=5e-5)
    assert gpt_4o.undetected_mean_error == pytest.approx(0.0460, abs=5e-5)
    # Figure 1 / RQ-2: the 16 models at temperature 0.6 rank alike (paper: rho = 0.94)
    models = {
        directory.name: aggregate_paper(
            paper_task_results(directory / "logs/experiment-pointwise_10_candidate.json")
        )
        for directory in sorted(ARTIFACT.glob("*_temp0.6"))
    }
    assert len(models) == 16
    assert ranking_agreement(models).ranking_spearman == pytest.approx(0.94, abs=0.01)


# -- DIFFTRUST_POLICY -------------------------------------------------------------------------------


def returned(value: object, args: object = None) -> Outcome:
    return Outcome(kind=OutcomeKind.RETURNED, value=encode(value), args_after=args)


def raised(name: str, message: str) -> Outcome:
    return Outcome(kind=OutcomeKind.RAISED, exception=ExceptionInfo(type_name=name, message=message))


def test_difftrust_policy_rules() -> None:
    policy = DIFFTRUST_POLICY
    assert policy.outcomes_equal(returned(1), returned(1.0005))
    assert policy.outcomes_equal(returned(True), returned(1.0))
    assert policy.outcomes_equal(returned(1000), returned(1001))  # ints as floats, rel_tol 1e-3
    assert not policy.outcomes_equal(returned(1000), returned(1002))
    assert policy.outcomes_equal(returned([1]), returned((1,)))
    assert not policy.outcomes_equal(returned({"a": 1, "b": 2}), returned({"b": 2, "a": 1}))
    assert policy.outcomes_equal(returned({"a": 1.0}), returned({"a": 1.0004}))
    assert policy.outcomes_equal(returned({1, 2}), returned(frozenset({2, 1})))  # canonical sorted order
    assert policy.outcomes_equal(returned({1.0, 5.0}), returned({1.0002, 5.0}))
    assert policy.outcomes_equal(raised("ValueError", "a"), raised("ValueError", "b"))
    assert not policy.outcomes_equal(raised("ValueError", "a"), raised("TypeError", "a"))
    mutated = returned(None, encode([[[1, 2]], {}]))
    assert policy.outcomes_equal(mutated, returned(None, encode([[[2, 1]], {}])))
    assert "values=difftrust" in policy.describe()


def test_the_default_value_rule_is_unchanged_and_the_difftrust_rule_composes() -> None:
    assert EqualityPolicy().values == DEFAULT_VALUE_RULES and EqualityPolicy().values != DIFFTRUST_VALUES
    assert DEFAULT_POLICY.describe() == "default"
    assert not DEFAULT_POLICY.outcomes_equal(returned(1000), returned(1001))
    assert DEFAULT_POLICY.outcomes_equal(returned({"a": 1, "b": 2}), returned({"b": 2, "a": 1}))
    # the rule composes with the policy's other settings: default tolerances, numbers as floats
    huge = DEFAULT_POLICY.with_(values=DIFFTRUST_VALUES)
    assert huge.describe() == "values=difftrust"
    assert not huge.outcomes_equal(returned(1000), returned(1001))  # rel_tol 1e-9
    assert huge.outcomes_equal(returned(10**17), returned(10**17 + 1))  # as floats, they are one number
    assert not DEFAULT_POLICY.outcomes_equal(returned(10**17), returned(10**17 + 1))
    assert not huge.outcomes_equal(returned({"a": 1, "b": 2}), returned({"b": 2, "a": 1}))  # in order
    assert huge.outcomes_equal(returned(10**400), returned(10**400))  # beyond float range: exact
    assert not huge.outcomes_equal(returned(10**400), returned(10**400 + 1))
