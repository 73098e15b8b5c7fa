"""Compatibility with the DiffTrust artifact (the incoherence paper's code, shared/papers/001): its
comparison of outputs as a value rule, and readers of its logs.

Everything here serves reproducing the paper's numbers one to one (``--compat difftrust``,
``benchmarks/reproduce_difftrust.py``); divergent's own rule is :class:`~divergent.policy.ValueRules`.

The artifact's comparison (:data:`DIFFTRUST_POLICY`): every number, bools included, compared as a
float with relative tolerance 1e-3; a list equals a tuple with equal items; dicts and sets compared
in order, item by item; exceptions equal when their types match whatever the message; neither
argument mutation nor stdout compared. One deviation is forced: the artifact compared sets in
Python's iteration order, which the encoding does not keep (it sorts set items canonically), so
sets are compared in that sorted order. NaN handling is not described for the artifact; the
default (NaN equals NaN) is kept.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

from divergent.errors import InvalidArgument
from divergent.incoherence.metrics import ModelMetrics, measures_from_values
from divergent.policy import EqualityPolicy, ExceptionEquality, ValueRules, floats_equal

__all__ = [
    "DIFFTRUST_POLICY",
    "DIFFTRUST_VALUES",
    "DiffTrustValues",
    "PaperTask",
    "aggregate_paper",
    "paper_task_results",
]


# -- the artifact's comparison ----------------------------------------------------------------------


@dataclass(frozen=True)
class DiffTrustValues(ValueRules):
    """The artifact's value rule: numbers as floats, dicts and sets in order (the rest is divergent's)."""

    name: ClassVar[str] = "difftrust"

    def numbers_equal(self, a: Any, b: Any, policy: EqualityPolicy) -> bool:
        """Every number (ints and bools too) as a float under the tolerances, so that with
        ``rel_tol=1e-3`` the ints 1000 and 1001 are equal; ints beyond the float range exactly."""
        return floats_equal(a, b, policy)

    def sets_equal(self, a: list, b: list, policy: EqualityPolicy) -> bool:
        """Item by item in the encoding's canonical sorted order (not the original iteration order,
        which the encoding does not keep)."""
        return self.sequences_equal(a, b, policy, ordered=True)

    def mappings_equal(self, a: list, b: list, policy: EqualityPolicy) -> bool:
        """Item by item in insertion order, keys compared like values."""
        if len(a) != len(b):
            return False
        return all(
            self.equal(key_a, key_b, policy) and self.equal(value_a, value_b, policy)
            for (key_a, value_a), (key_b, value_b) in zip(a, b, strict=True)
        )


DIFFTRUST_VALUES = DiffTrustValues()

#: the DiffTrust artifact's comparison (see this module's docstring)
DIFFTRUST_POLICY = EqualityPolicy(
    rel_tol=1e-3,
    abs_tol=0.0,
    values=DIFFTRUST_VALUES,
    list_equals_tuple=True,
    exceptions=ExceptionEquality.TYPE,
    compare_mutation=False,
    compare_stdout=False,
)


# -- the artifact's logs ----------------------------------------------------------------------------


@dataclass(frozen=True)
class PaperTask:
    """One entry of the artifact's ``experiment-pointwise_<m>_candidate.json``: ``Dis`` is the
    empirical incoherence and ``Err`` the empirical error (n = 1000), or a ``Failed`` reason."""

    name: str
    task_id: str
    incoherence: float | None
    error: float | None
    total_time: float | None
    failure: str | None

    @property
    def failed(self) -> bool:
        return self.failure is not None


def paper_task_results(path: str | Path) -> list[PaperTask]:
    """Read an artifact log (a JSON list of ``{name, task_id, Dis, Err, TotalTime}`` or
    ``{name, task_id, Failed}``); failed entries are kept, with ``failure`` set."""
    path = Path(path)
    entries = json.loads(path.read_text(encoding="utf-8"))
    if not isinstance(entries, list):
        raise InvalidArgument(f"{path}: expected a JSON list of task results")
    results = []
    for index, entry in enumerate(entries):
        if not isinstance(entry, dict) or "task_id" not in entry:
            raise InvalidArgument(f"{path}: entry {index} is not a task result: {entry!r:.200}")
        failure = entry.get("Failed")
        if failure is None and ("Dis" not in entry or "Err" not in entry):
            raise InvalidArgument(
                f"{path}: entry {index} ({entry['task_id']}) has neither Dis/Err nor Failed"
            )
        results.append(
            PaperTask(
                name=str(entry.get("name", "")),
                task_id=str(entry["task_id"]),
                incoherence=None if failure is not None else float(entry["Dis"]),
                error=None if failure is not None else float(entry["Err"]),
                total_time=None if entry.get("TotalTime") is None else float(entry["TotalTime"]),
                failure=None if failure is None else str(failure),
            )
        )
    return results


def aggregate_paper(tasks: Sequence[PaperTask]) -> ModelMetrics:
    """The paper's aggregates from the artifact's logged per-task values. Failed tasks are left out
    (counted in ``excluded_tasks``): that reproduces the HumanEval rows of Table 4 (the artifact's
    report script would instead count them as zero error and zero incoherence, which does not)."""
    kept = [task for task in tasks if not task.failed]
    if not kept:
        raise InvalidArgument("aggregate_paper needs at least one task that did not fail")
    summary = measures_from_values(
        [t.incoherence for t in kept if t.incoherence is not None],
        [t.error for t in kept if t.error is not None],
    )
    return ModelMetrics(
        tasks=len(kept),
        estimator="paper-log",
        pass_at_1=None,
        pass_at_1_expected=None,
        excluded_tasks=len(tasks) - len(kept),
        **summary,
    )
