"""Partition implementations by behaviour; pick the largest class (semantic self-consistency).

The search loop runs for the whole budget (or until the engines run dry or every implementation
stands alone). Each input that splits a current class refines the partition; the split is
confirmed on fresh workers first, so nondeterminism never splits a class. The result keeps, for
every split, the input that made it, so a reader can see *why* two classes differ.

A clustering is held to the verdict's rule (:mod:`divergent.search.verdict`): classes judged on
fewer inputs than the floor may lump implementations nobody told apart, so it then picks nothing.
Samples are untrusted and often broken: one that does not load (a syntax error, no such function,
a module that reads stdin or raises while it loads) is a class of its own named with its error, and
the others are clustered without it; one that ran past the limit on every input where the others
of its class answered was never told apart from them, and is set apart too.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from divergent.errors import BudgetSpent, LoadError
from divergent.kinds.base import ProgramKind
from divergent.kinds.registry import choose_kind
from divergent.records import ExitReason, Outcome, OutcomeKind, Report, Split, Verdict
from divergent.search import (
    ImplementationSpec,
    Partition,
    Search,
    SearchOptions,
    prepare,
    refine_partition,
)
from divergent.search.check import close_search
from divergent.search.verdict import judge_partition, report_of
from divergent.search.verdict import undecided as never_told_apart

#: samples the sandbox cannot load are set aside and the rest started again, at most this many times
LOAD_ATTEMPTS = 4


@dataclass(frozen=True)
class Unloadable:
    """A program that could not be loaded or started: its label and why (a class of its own)."""

    label: str
    error: str

    @property
    def display_name(self) -> str:
        return self.label


@dataclass(frozen=True)
class Clustering:
    """Behaviour classes of N implementations, largest first, with the inputs that split them."""

    report: Report
    #: classes of implementation indices, largest first (ties: in order of first member); the
    #: classes of implementations that do not load or were never told apart come last
    classes: tuple[tuple[int, ...], ...]
    splits: tuple[Split, ...]
    #: implementations (by index) that do not load, with why: each is a class of its own
    unloadable: Mapping[int, str] = field(default_factory=dict)
    #: implementations (by index) set apart because they ran past the limit on every input where the
    #: others of their class answered (never told apart from them), with what happened
    undecided: Mapping[int, str] = field(default_factory=dict)

    @property
    def implementations(self) -> tuple[str, ...]:
        return self.report.implementations

    @property
    def earned(self) -> bool:
        """Whether the classes rest on enough inputs (the verdict is not ``too-few-inputs``)."""
        return self.report.verdict is not Verdict.TOO_FEW_INPUTS

    @property
    def candidates(self) -> tuple[tuple[int, ...], ...]:
        """The classes the pick may come from: all but those of implementations that do not load or
        were never told apart (all of them when nothing else is left)."""
        apart = set(self.unloadable) | set(self.undecided)
        kept = tuple(members for members in self.classes if not (len(members) == 1 and members[0] in apart))
        return kept or self.classes

    @property
    def largest(self) -> tuple[int, ...]:
        """The semantic self-consistency pick's class: the largest."""
        return self.candidates[0]

    @property
    def tied_classes(self) -> tuple[tuple[int, ...], ...]:
        """Every class as large as the largest (one class when there is no tie)."""
        return tuple(c for c in self.candidates if len(c) == len(self.largest))

    @property
    def tied(self) -> bool:
        """Whether another class is as large as the largest (the pick is then ambiguous)."""
        return len(self.tied_classes) > 1

    def pick(self) -> int | None:
        """The representative of the largest class (its first member); None when the classes rest
        on too few inputs to tell (:attr:`earned`), or no implementation ran."""
        if not self.earned or not self.classes or self.largest[0] in self.unloadable:
            return None
        return self.largest[0]


def cluster(
    implementations: Sequence[ImplementationSpec | Unloadable], options: SearchOptions | None = None, **changes: Any
) -> Clustering:
    """Partition implementations into behaviour classes on every input the engines generate.

    ``options``/``changes``: a :class:`~divergent.search.SearchOptions` and/or its fields as keywords,
    as for :func:`divergent.search.check` (budget, engines, seeds, policy, ...). A spec that does not
    load, given or found (an :class:`Unloadable`, a program the sandbox cannot start), is a class
    of its own."""
    options = SearchOptions.of(options, **changes)
    kind = choose_kind([spec for spec in implementations if not isinstance(spec, Unloadable)] or implementations,
                       options)
    entries = load_each(kind, implementations, options)
    return cluster_loaded(entries, lambda programs: prepare(programs, options, minimum=1))


def load_each(kind: ProgramKind, specs: Sequence[Any], options: SearchOptions) -> list[Any]:
    """Every spec loaded (once, all together), or, when some do not load, each on its own: those
    that fail are :class:`Unloadable` records in their place."""
    if not any(isinstance(spec, Unloadable) for spec in specs):
        try:
            return list(kind.load(specs, options))
        except LoadError:
            pass  # one of them: find which, each on its own
    entries: list[Any] = []
    for spec in specs:
        if isinstance(spec, Unloadable):
            entries.append(spec)
            continue
        try:
            entries.extend(kind.load([spec], options))
        except LoadError as error:
            entries.append(Unloadable(label=str(getattr(spec, "label", spec)), error=_one_line(error)))
    loaded = [entry for entry in entries if not isinstance(entry, Unloadable)]
    if loaded:
        # labels numbered apart as one load would (a.py, a.py#2)
        relabelled = iter(kind.load(loaded, options))
        entries = [entry if isinstance(entry, Unloadable) else next(relabelled) for entry in entries]
    return entries


def cluster_loaded(entries: Sequence[Any], start: Callable[[list[Any]], Search]) -> Clustering:
    """Cluster the loaded ``entries`` in a search ``start`` prepares; those the sandbox cannot
    start are set aside (each a class of its own, like the :class:`Unloadable` among ``entries``)
    and the search started again without them."""
    unloadable = {position: entry.error for position, entry in enumerate(entries) if isinstance(entry, Unloadable)}
    for _ in range(LOAD_ATTEMPTS):
        loaded = {position: entry for position, entry in enumerate(entries) if position not in unloadable}
        if not loaded:
            break
        try:
            search = start(list(loaded.values()))
        except BudgetSpent as error:
            if not isinstance(error.report, Report):
                raise
            return _with_unloadable(Clustering(report=error.report, classes=error.report.classes, splits=()), entries,
                                    list(loaded), unloadable)
        except LoadError as error:
            position_of = {entry.label: position for position, entry in loaded.items()}
            failed = [position_of[label] for label in error.programs if label in position_of]
            if not failed:
                raise
            unloadable.update({position: f"does not load in the sandbox: {_one_line(error)}" for position in failed})
            continue
        try:
            clustering = run_cluster(search)
        finally:
            close_search(search)
        return _with_unloadable(clustering, entries, list(loaded), unloadable)
    return _nothing_ran(entries, unloadable)


def run_cluster(search: Search) -> Clustering:
    partition = Partition(classes=(tuple(range(len(search.implementations))),))
    exit_reason = refine_partition(search, partition)
    return clustering_of(search, partition, exit_reason)


def clustering_of(search: Search, partition: Partition, exit_reason: ExitReason, *,
                  record: type[Clustering] = Clustering, **fields: Any) -> Clustering:
    """The clustering a search's partition earned: implementations never told apart set apart,
    the classes sorted, the verdict by the rule (``record``: a :class:`Clustering` subclass, with
    its ``fields``)."""
    undecided = never_told_apart(search, partition.classes)
    classes = [tuple(i for i in members if i not in undecided) for members in partition.classes]
    classes = [members for members in classes if members] + [(i,) for i in sorted(undecided)]
    # the set-apart last: they were never told apart, so they never make the largest class
    partition.classes = tuple(sorted(classes, key=lambda members: (members[0] in undecided, -len(members), members[0])))
    ruling = judge_partition(search, exit_reason, partition.classes)
    report = report_of(search, ruling=ruling, counterexample=None, partition=partition, exit_reason=exit_reason)
    return record(report=report, classes=partition.classes, splits=tuple(partition.splits), undecided=undecided,
                  **fields)


def with_unloadable(entries: Sequence[Any], clustering: Clustering) -> Clustering:
    """A clustering of the loaded ones among ``entries`` in terms of them all (each
    :class:`Unloadable` a class of its own)."""
    unloadable = {position: entry.error for position, entry in enumerate(entries) if isinstance(entry, Unloadable)}
    positions = [position for position in range(len(entries)) if position not in unloadable]
    return _with_unloadable(clustering, entries, positions, unloadable)


def _with_unloadable(clustering: Clustering, entries: Sequence[Any], positions: list[int],
                     unloadable: Mapping[int, str]) -> Clustering:
    """The clustering of the loaded entries (at ``positions`` among all) in terms of every entry:
    each unloadable one a class of its own, after the others (and in each split's classes, with a
    crash for its outcome)."""
    if not unloadable:
        return clustering
    apart = tuple((position,) for position in sorted(unloadable))

    def placed(classes: tuple[tuple[int, ...], ...]) -> tuple[tuple[int, ...], ...]:
        return tuple(tuple(positions[i] for i in members) for members in classes) + apart

    def split_of(split: Split) -> Split:
        outcomes = dict(zip(positions, split.outcomes, strict=True))
        return replace(split, classes=placed(split.classes), outcomes=tuple(
            outcomes.get(position) or Outcome(kind=OutcomeKind.CRASH, detail=f"does not load: {unloadable[position]}")
            for position in range(len(entries))))

    labels = tuple(entry.label for entry in entries)
    report = clustering.report
    notes = (*report.notes, *(f"{labels[position]} does not load: {why}" for position, why in sorted(unloadable.items())))
    splits = tuple(split_of(split) for split in report.splits)
    report = replace(report, implementations=labels, classes=placed(report.classes), notes=notes, splits=splits,
                     nondeterministic=report.nondeterministic)
    return replace(clustering, report=report, classes=placed(clustering.classes), splits=splits,
                   unloadable=dict(unloadable), undecided={positions[i]: why for i, why in clustering.undecided.items()})


def _nothing_ran(entries: Sequence[Any], unloadable: Mapping[int, str]) -> Clustering:
    """No implementation loads: every one a class of its own, nothing judged."""
    from divergent.search.verdict import unjudged_report

    labels = tuple(entry.label for entry in entries)
    classes = tuple((position,) for position in range(len(entries)))
    report = unjudged_report(labels, "no implementation loads", classes=classes,
                             notes=tuple(f"{labels[p]} does not load: {why}" for p, why in sorted(unloadable.items())))
    return Clustering(report=report, classes=classes, splits=(), unloadable=dict(unloadable))


def _one_line(error: BaseException) -> str:
    first = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
    return " ".join(first.split())[:300]
