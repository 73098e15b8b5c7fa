"""Incoherence of sampled programs: estimating correctness without an oracle (DiffTrust).

The paper (shared/papers/001, "incoherence") samples ``m`` programs for a task ``d``, runs them on
``n`` generated inputs and compares outputs. Its quantities, as implemented here:

* pointwise error ``E(d) = P(Pi(X) != f*(X))`` (eq. 6) and pointwise incoherence
  ``I(d) = P(Pi1(X) != Pi2(X))`` for two independently drawn programs (eq. 8);
* Theorem 4.1: ``I(d) <= 2 E(d)`` -- if two programs disagree, at least one is wrong, so a non-zero
  incoherence proves a non-zero error with no ground truth;
* the empirical estimators of Sec. 6.3 (eqs. 9-10) over the uniform distribution on the ``m``
  sampled programs (``Coder_m``, Sec. 5.1), and their aggregates (eqs. 11-16);
* the PAC sample sizes of Theorems 4.2/4.3 (Appendix B) and functional incoherence (Appendix C).

Everything here is pure: the runner executes the programs and hands over, per task, the *behaviour
class labels* of the candidates on each input (equal labels = equal outputs under the equality
policy, e.g. :data:`divergent.incoherence.difftrust.DIFFTRUST_POLICY`), plus the ground truth's
label when there is one. Orientation is always ``[input][candidate]``. The artifact's own logs are
read in :mod:`divergent.incoherence.difftrust`.

Undefined ratios (a detection rate with no erroneous task, a Spearman correlation of a constant) are
NaN; values that need a ground truth are ``None`` when there is none.
"""

from __future__ import annotations

import math
import random
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from divergent.errors import InvalidArgument

# -- per-task input ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class TaskBehaviour:
    """What ``m`` candidates did on ``n`` inputs of one task.

    ``classes[i][j]`` is the behaviour class of candidate ``j`` on input ``i``: candidates ``j`` and
    ``k`` agree on input ``i`` exactly when their labels are equal. ``gt_equal[i][j]`` says whether
    candidate ``j`` matches the ground truth on input ``i`` (``None``: no ground truth).

    Build it with :func:`behaviour_from_classes` when the ground truth's class label is known: that
    keeps ground-truth equality consistent with candidate agreement, which Theorem 4.1 relies on
    (two candidates that both match the ground truth must agree with each other). Passing
    ``gt_equal`` directly is allowed for runners that compare with the ground truth separately.
    """

    classes: tuple[tuple[int, ...], ...]
    gt_equal: tuple[tuple[bool, ...], ...] | None = None

    def __post_init__(self) -> None:
        classes = tuple(tuple(row) for row in self.classes)
        if not classes or not classes[0]:
            raise InvalidArgument("classes must describe at least one input and one candidate")
        width = len(classes[0])
        for index, row in enumerate(classes):
            if len(row) != width:
                raise InvalidArgument(
                    f"classes[{index}] has {len(row)} candidates, classes[0] has {width}: one label per candidate per input"
                )
        object.__setattr__(self, "classes", classes)
        if self.gt_equal is not None:
            gt_equal = tuple(tuple(bool(flag) for flag in row) for row in self.gt_equal)
            if len(gt_equal) != len(classes) or any(len(row) != width for row in gt_equal):
                raise InvalidArgument(
                    f"gt_equal must have the shape of classes ({len(classes)} inputs x {width} candidates)"
                )
            object.__setattr__(self, "gt_equal", gt_equal)

    @property
    def n_inputs(self) -> int:
        return len(self.classes)

    @property
    def n_candidates(self) -> int:
        return len(self.classes[0])

    @property
    def has_ground_truth(self) -> bool:
        return self.gt_equal is not None

    def agree(self, input_index: int, first: int, second: int) -> bool:
        """Whether candidates ``first`` and ``second`` behave alike on input ``input_index``."""
        row = self.classes[input_index]
        return row[first] == row[second]


def behaviour_from_classes(
    classes: Sequence[Sequence[int]], gt_class: Sequence[int] | None = None
) -> TaskBehaviour:
    """A :class:`TaskBehaviour` from class labels; ``gt_class[i]`` is the ground truth's label on
    input ``i`` (a label no candidate has when the ground truth differs from all of them)."""
    behaviour = TaskBehaviour(classes=tuple(tuple(row) for row in classes))
    if gt_class is None:
        return behaviour
    if len(gt_class) != behaviour.n_inputs:
        raise InvalidArgument(f"gt_class has {len(gt_class)} labels for {behaviour.n_inputs} inputs")
    gt_equal = tuple(
        tuple(label == truth for label in row) for row, truth in zip(behaviour.classes, gt_class, strict=True)
    )
    return TaskBehaviour(classes=behaviour.classes, gt_equal=gt_equal)


def _as_behaviour(
    classes: Sequence[Sequence[int]] | TaskBehaviour, gt_class: Sequence[int] | None
) -> TaskBehaviour:
    if isinstance(classes, TaskBehaviour):
        if gt_class is not None:
            raise InvalidArgument(
                "give gt_class with class labels, not with a TaskBehaviour (it has gt_equal)"
            )
        return classes
    return behaviour_from_classes(classes, gt_class)


# -- per-task metrics -------------------------------------------------------------------------------


@dataclass(frozen=True)
class TaskMetrics:
    """Error and incoherence of one task (fields needing a ground truth are ``None`` without one).

    ``error`` and ``incoherence`` are the paper's estimators Ê(d,m,n) and Î(d,m,n) (eqs. 9-10):
    per input, one candidate ``y_i`` (and for incoherence a second, independent ``y'_i``) drawn
    uniformly from the ``m`` candidates. These are what the paper's numbers (and the artifact's
    ``Err``/``Dis`` logs) are. ``error_exact`` and ``incoherence_exact`` are their expectations over
    those draws -- the pointwise error and incoherence of ``Coder_m`` (Sec. 5.1) on the ``n`` inputs --
    free of the draw noise: they satisfy Theorem 4.1 exactly, and a disagreement that exists among
    the candidates is never missed by an unlucky draw.
    """

    task_id: str
    n_inputs: int
    n_candidates: int
    incoherence: float
    incoherence_exact: float
    error: float | None
    error_exact: float | None
    #: some two candidates differ on some input (``incoherence_exact > 0``)
    any_disagreement: bool
    #: some candidate differs from the ground truth on some input (``error_exact > 0``)
    any_candidate_wrong: bool | None
    #: candidate 1 (index 0) matches the ground truth on every input: the term of eq. 13
    first_candidate_correct: bool | None
    #: share of candidates matching the ground truth on every input: eq. 3 under ``Coder_m``
    correct_candidate_share: float | None
    #: Appendix C (eq. 17) under ``Coder_m``, candidates "functionally different" when they differ
    #: on any of the inputs (see :func:`functional_incoherence`)
    functional_incoherence: float
    #: the functional error of ``Coder_m`` on these inputs: ``1 - correct_candidate_share``
    functional_error: float | None


def task_metrics(
    classes: Sequence[Sequence[int]] | TaskBehaviour,
    gt_class: Sequence[int] | None = None,
    *,
    seed: int,
    pairs_per_input: int = 1,
    task_id: str = "",
) -> TaskMetrics:
    """Error and incoherence of one task from its behaviour class labels (``[input][candidate]``).

    ``pairs_per_input`` draws per input (the paper: 1); more draws average them, and the sampled
    estimators converge to the exact ones. Draws come from ``random.Random(seed)`` in a fixed order
    (per input: ``y``, then ``y'``), and are the same with or without a ground truth. As in the
    notation of eqs. 9-10, the error's ``y_i`` is also the first program of the incoherence pair
    (the artifact drew fresh inputs for each; with one input set, the literal reading is kept).
    """
    if pairs_per_input < 1:
        raise InvalidArgument(f"pairs_per_input={pairs_per_input!r} must be >= 1")
    behaviour = _as_behaviour(classes, gt_class)
    m, n = behaviour.n_candidates, behaviour.n_inputs
    gt_equal = behaviour.gt_equal
    rng = random.Random(seed)

    error_hits = disagreement_hits = 0
    error_sum = incoherence_sum = 0.0
    for i, row in enumerate(behaviour.classes):
        for _ in range(pairs_per_input):
            # y and y' are independent and uniform, so y == y' is possible (then they agree)
            first, second = rng.randrange(m), rng.randrange(m)
            disagreement_hits += row[first] != row[second]
            if gt_equal is not None:
                error_hits += not gt_equal[i][first]
        # P(y, y' in different classes) = 1 - sum over classes of (share of the class)^2
        incoherence_sum += 1.0 - sum(count * count for count in Counter(row).values()) / (m * m)
        if gt_equal is not None:
            error_sum += (m - sum(gt_equal[i])) / m

    draws = n * pairs_per_input
    correct_share: float | None = None
    first_correct: bool | None = None
    any_wrong: bool | None = None
    if gt_equal is not None:
        always_correct = [all(gt_equal[i][j] for i in range(n)) for j in range(m)]
        correct_share = sum(always_correct) / m
        first_correct = always_correct[0]
        any_wrong = not all(always_correct)
    incoherence_exact = incoherence_sum / n
    return TaskMetrics(
        task_id=task_id,
        n_inputs=n,
        n_candidates=m,
        incoherence=disagreement_hits / draws,
        incoherence_exact=incoherence_exact,
        error=None if gt_equal is None else error_hits / draws,
        error_exact=None if gt_equal is None else error_sum / n,
        any_disagreement=any(len(set(row)) > 1 for row in behaviour.classes),
        any_candidate_wrong=any_wrong,
        first_candidate_correct=first_correct,
        correct_candidate_share=correct_share,
        functional_incoherence=functional_incoherence(behaviour),
        functional_error=None if correct_share is None else 1.0 - correct_share,
    )


def functional_incoherence(
    classes: Sequence[Sequence[int]] | TaskBehaviour, *, distinct_pairs: bool = False
) -> float:
    """Functional incoherence (Appendix C, eq. 17): the probability that two independently drawn
    candidates are not functionally equivalent, approximated from the observed behaviour (two
    candidates are "functionally different" when they differ on any of the inputs, so this is a
    lower bound of the true value: more inputs can only reveal more differences).

    Exact over all pairs of the ``m`` candidates. ``distinct_pairs=False`` draws the two candidates
    independently from ``Coder_m`` (a candidate may meet itself), matching the pointwise estimators
    and Theorem C.1 under ``Coder_m``; ``distinct_pairs=True`` averages over the ``m(m-1)`` ordered
    pairs of different candidates, the unbiased estimate of eq. 17 for the model itself.
    """
    behaviour = _as_behaviour(classes, None)
    m = behaviour.n_candidates
    # a candidate's whole observed behaviour: its labels on every input
    signatures = Counter(zip(*behaviour.classes, strict=True))
    same_behaviour_pairs = sum(count * count for count in signatures.values())  # ordered, self included
    if not distinct_pairs:
        return 1.0 - same_behaviour_pairs / (m * m)
    if m < 2:
        raise InvalidArgument(f"distinct_pairs needs at least 2 candidates, got {m}")
    return 1.0 - (same_behaviour_pairs - m) / (m * (m - 1))


# -- aggregates over tasks --------------------------------------------------------------------------


@dataclass(frozen=True)
class ModelMetrics:
    """The paper's per-model measures over a set of tasks (Sec. 6.3, Table 2/4, Figure 1).

    ``estimator`` says which per-task values were aggregated: the paper's sampled estimators,
    their exact expectations, or the artifact's logged values.
    """

    tasks: int
    estimator: Literal["sampled", "exact", "paper-log"]
    #: eq. 11: mean empirical error (Table 2 "Mean Error")
    mean_error: float | None
    #: eq. 12: mean empirical incoherence (Table 2 "Mean Incoherence")
    mean_incoherence: float
    #: Spearman's rho between per-task incoherence and error (Table 2 "Spearman Correlation")
    error_incoherence_spearman: float | None
    #: eq. 15: share of tasks with non-zero error whose incoherence is non-zero (Table 2)
    detection_rate: float | None
    #: eq. 16: mean error of the tasks with zero incoherence (Table 2 "Undetected Mean Error")
    undetected_mean_error: float | None
    #: Figure 1 x-axis, "1 - pass@1": share of tasks with non-zero empirical error
    nonzero_error_share: float | None
    #: Figure 1 y-axis: share of tasks with non-zero empirical incoherence
    nonzero_incoherence_share: float
    #: eq. 13: share of tasks whose first candidate matches the ground truth on all n inputs
    pass_at_1: float | None
    #: eq. 3 under Coder_m: mean over tasks of the share of candidates correct on all inputs
    pass_at_1_expected: float | None
    #: tasks left out (the artifact's ``Failed`` entries)
    excluded_tasks: int = 0


def aggregate(tasks: Sequence[TaskMetrics], *, exact: bool = False) -> ModelMetrics:
    """The paper's aggregates over tasks, from the sampled estimators (``exact=False``, the paper's
    numbers) or from their exact expectations.

    pass@1: eq. 13 is implemented as written -- the share of tasks whose *first* candidate ``pi_1``
    matches the ground truth on every input. Eq. 14 equates it with ``1 - mean error(S, 1, n)``, which
    only holds reading the error as a per-task indicator, and Figure 1 ranks by "1 - pass@1 (i.e. the
    proportion of tasks with non-zero empirical error)" with ``m`` candidates: that is
    ``nonzero_error_share``, which :func:`ranking_agreement` uses. ``pass_at_1_expected`` is eq. 3
    (the expected pass@1 of one draw) under ``Coder_m``: the mean share of fully correct candidates.
    """
    if not tasks:
        raise InvalidArgument("aggregate needs at least one task")
    incoherences = [t.incoherence_exact if exact else t.incoherence for t in tasks]
    known_errors = [e for t in tasks if (e := t.error_exact if exact else t.error) is not None]
    # error measures only when every task has a ground truth: a partial mean would mislead
    with_truth = len(known_errors) == len(tasks)
    summary = measures_from_values(incoherences, known_errors if with_truth else None)
    pass_at_1 = pass_expected = None
    if with_truth:
        pass_at_1 = sum(bool(t.first_candidate_correct) for t in tasks) / len(tasks)
        pass_expected = sum(float(t.correct_candidate_share or 0.0) for t in tasks) / len(tasks)
    return ModelMetrics(
        tasks=len(tasks),
        estimator="exact" if exact else "sampled",
        pass_at_1=pass_at_1,
        pass_at_1_expected=pass_expected,
        **summary,
    )


def measures_from_values(incoherences: Sequence[float], errors: Sequence[float] | None) -> dict[str, Any]:
    """The :class:`ModelMetrics` fields computable from per-task incoherence (and error) values alone
    (``errors`` None: no ground truth)."""
    count = len(incoherences)
    summary: dict[str, Any] = {
        "mean_incoherence": math.fsum(incoherences) / count,
        "nonzero_incoherence_share": sum(value != 0 for value in incoherences) / count,
        "mean_error": None,
        "error_incoherence_spearman": None,
        "detection_rate": None,
        "undetected_mean_error": None,
        "nonzero_error_share": None,
    }
    if errors is None:
        return summary
    erroneous = [inc for inc, err in zip(incoherences, errors, strict=True) if err != 0]  # S_x
    undetected = [err for inc, err in zip(incoherences, errors, strict=True) if inc == 0]  # S_u
    summary.update(
        mean_error=math.fsum(errors) / count,
        error_incoherence_spearman=spearman(incoherences, errors),
        detection_rate=sum(inc != 0 for inc in erroneous) / len(erroneous) if erroneous else math.nan,
        undetected_mean_error=math.fsum(undetected) / len(undetected) if undetected else math.nan,
        nonzero_error_share=len(erroneous) / count,
    )
    return summary


# -- ranking agreement (Figure 1, RQ-2) -------------------------------------------------------------


@dataclass(frozen=True)
class RankingAgreement:
    """Figure 1: models ranked by ``1 - pass@1`` (share of tasks with non-zero error) and by the
    share of tasks with non-zero incoherence; rank 1 is the best (lowest share), ties share the
    average rank. ``ranks`` tuples are aligned with ``models``."""

    models: tuple[str, ...]
    error_ranks: tuple[float, ...]
    incoherence_ranks: tuple[float, ...]
    #: Spearman's rho between the two rankings (paper: 0.92 MBPP, 0.94 HumanEval)
    ranking_spearman: float


def ranking_agreement(models: Mapping[str, ModelMetrics]) -> RankingAgreement:
    """Agreement between the error-based and the incoherence-based ranking of models (RQ-2)."""
    names = tuple(models)
    if len(names) < 2:
        raise InvalidArgument(f"ranking_agreement needs at least 2 models, got {len(names)}")
    error_shares = []
    for name in names:
        share = models[name].nonzero_error_share
        if share is None:
            raise InvalidArgument(
                f"model {name!r} has no error measure (no ground truth): cannot rank by pass@1"
            )
        error_shares.append(share)
    incoherence_shares = [models[name].nonzero_incoherence_share for name in names]
    error_ranks, incoherence_ranks = average_ranks(error_shares), average_ranks(incoherence_shares)
    return RankingAgreement(
        models=names,
        error_ranks=tuple(error_ranks),
        incoherence_ranks=tuple(incoherence_ranks),
        ranking_spearman=_pearson(error_ranks, incoherence_ranks),
    )


# -- Spearman ---------------------------------------------------------------------------------------


def average_ranks(values: Sequence[float]) -> list[float]:
    """1-based ranks, smallest value first; tied values get the mean of the ranks they span."""
    order = sorted(range(len(values)), key=lambda index: values[index])
    ranks = [0.0] * len(values)
    start = 0
    while start < len(order):
        end = start
        while end + 1 < len(order) and values[order[end + 1]] == values[order[start]]:
            end += 1
        shared = (start + end) / 2 + 1  # mean of the 1-based positions start..end
        for position in range(start, end + 1):
            ranks[order[position]] = shared
        start = end + 1
    return ranks


def spearman(x: Sequence[float], y: Sequence[float]) -> float:
    """Spearman's rank correlation: Pearson's correlation of the average ranks (ties share the mean
    rank, as in the usual "fractional ranking" definition, so it equals scipy's ``spearmanr``).

    NaN when either side is constant (its ranks have no variance: the correlation is undefined) or
    has fewer than two values. NaN inside the data is refused, since it has no rank.
    """
    if len(x) != len(y):
        raise InvalidArgument(f"spearman needs sequences of equal length, got {len(x)} and {len(y)}")
    if any(math.isnan(value) for value in (*x, *y)):
        raise InvalidArgument("spearman got a NaN value, which has no rank")
    if len(x) < 2:
        return math.nan
    return _pearson(average_ranks(x), average_ranks(y))


def _pearson(x: Sequence[float], y: Sequence[float]) -> float:
    count = len(x)
    mean_x, mean_y = math.fsum(x) / count, math.fsum(y) / count
    covariance = math.fsum((a - mean_x) * (b - mean_y) for a, b in zip(x, y, strict=True))
    spread_x = math.fsum((a - mean_x) ** 2 for a in x)
    spread_y = math.fsum((b - mean_y) ** 2 for b in y)
    if spread_x == 0 or spread_y == 0:
        return math.nan
    return covariance / math.sqrt(spread_x * spread_y)


# -- PAC sample sizes -------------------------------------------------------------------------------


def _check_probability(name: str, value: float) -> None:
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 < value < 1:
        raise InvalidArgument(f"{name} must be strictly between 0 and 1, got {name}={value!r}")


def _ceil(value: float) -> int:
    # The ratio is computed in floating point: a value within rounding of an integer is that integer
    # (epsilon=0.5, delta=0.25 needs exactly 2 samples, not 3 because log() rounded up).
    nearest = round(value)
    if abs(value - nearest) <= 1e-9 * max(1.0, abs(value)):
        return int(nearest)
    return math.ceil(value)


def pac_estimation_samples(epsilon: float, delta: float) -> int:
    """Theorem 4.2 / Appendix B.1-B.2 (Hoeffding): ``N = ceil(log(2/delta) / (2 epsilon^2))`` draws
    estimate the pointwise incoherence (or error) within ``epsilon`` with probability ``1 - delta``."""
    _check_probability("epsilon", epsilon)
    _check_probability("delta", delta)
    return _ceil(math.log(2 / delta) / (2 * epsilon * epsilon))


def pac_detection_samples(epsilon: float, delta: float) -> int:
    """Theorem 4.3 / Appendix B.3: ``N = ceil(log(delta) / log(1 - epsilon))`` draws of a pair and an
    input find a disagreement with probability ``1 - delta`` whenever the incoherence is
    ``>= epsilon`` (and never report one when it is 0)."""
    _check_probability("epsilon", epsilon)
    _check_probability("delta", delta)
    return _ceil(math.log(delta) / math.log1p(-epsilon))
