"""Partition implementations by behaviour; pick the largest class (semantic self-consistency).

The search loop runs for the whole budget (or until the engines run dry or every implementation
stands alone). Each input that splits a current class refines the partition; the split is
confirmed on fresh workers first, so nondeterminism never splits a class. The result keeps, for
every split, the input that made it, so a reader can see *why* two classes differ.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from divergent.records import Report, Split, Verdict
from divergent.search import (
    ImplementationSpec,
    Partition,
    Search,
    SearchOptions,
    prepare,
    refine_partition,
)


@dataclass(frozen=True)
class Clustering:
    """Behaviour classes of N implementations, largest first, with the inputs that split them."""

    report: Report
    #: classes of implementation indices, largest first (ties: in order of first member)
    classes: tuple[tuple[int, ...], ...]
    splits: tuple[Split, ...]

    @property
    def implementations(self) -> tuple[str, ...]:
        return self.report.implementations

    @property
    def largest(self) -> tuple[int, ...]:
        """The semantic self-consistency pick: the largest class."""
        return self.classes[0]

    @property
    def tied_classes(self) -> tuple[tuple[int, ...], ...]:
        """Every class as large as the largest (one class when there is no tie)."""
        return tuple(c for c in self.classes if len(c) == len(self.classes[0]))

    @property
    def tied(self) -> bool:
        """Whether another class is as large as the largest (the pick is then ambiguous)."""
        return len(self.tied_classes) > 1

    def pick(self) -> int:
        """The representative of the largest class (its first member)."""
        return self.largest[0]


def cluster(
    implementations: Sequence[ImplementationSpec], options: SearchOptions | None = None, **changes: Any
) -> Clustering:
    """Partition implementations into behaviour classes on every input the engines generate.

    ``options``/``changes``: a :class:`~divergent.search.SearchOptions` and/or its fields as keywords,
    as for :func:`divergent.search.check` (budget, engines, seeds, policy, ...)."""
    search = prepare(implementations, options, minimum=1, **changes)
    try:
        return run_cluster(search)
    finally:
        search.close()


def run_cluster(search: Search) -> Clustering:
    partition = Partition(classes=(tuple(range(len(search.implementations))),))
    exit_reason = refine_partition(search, partition)
    partition.classes = tuple(sorted(partition.classes, key=lambda members: (-len(members), members[0])))
    report = search.report(
        verdict=Verdict.DIVERGENT if len(partition.classes) > 1 else Verdict.NO_DIFFERENCE_FOUND,
        counterexample=None,
        partition=partition,
        exit_reason=exit_reason,
    )
    return Clustering(report=report, classes=partition.classes, splits=tuple(partition.splits))
