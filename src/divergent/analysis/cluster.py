"""Partition implementations by behaviour; pick the largest class (semantic self-consistency).

The search loop runs for the whole budget (or until the engines run dry or every implementation
stands alone). Each input that splits a current class refines the partition; the split is
confirmed on fresh workers first, so nondeterminism never splits a class. The result keeps, for
every split, the input that made it, so a reader can see *why* two classes differ.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from divergent.model import Budget, ExitReason, Input, Observation, Report, Split, Verdict
from divergent.policy import DEFAULT_POLICY, EqualityPolicy
from divergent.sandbox import Limits
from divergent.search import ImplementationSpec, Progress, Search, SeedSpec, prepare


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
    def tied(self) -> bool:
        """Whether another class is as large as the largest (the pick is then ambiguous)."""
        return len(self.classes) > 1 and len(self.classes[1]) == len(self.classes[0])

    def pick(self) -> int:
        """The representative of the largest class (its first member)."""
        return self.largest[0]


def refine(
    classes: Sequence[tuple[int, ...]], observation: Observation, policy: EqualityPolicy
) -> tuple[tuple[int, ...], ...]:
    """Split each class whose members behaved differently on this observation."""
    refined: list[tuple[int, ...]] = []
    for members in classes:
        outcomes = [observation.outcomes[i] for i in members]
        for sub in policy.partition(outcomes):
            refined.append(tuple(members[j] for j in sub))
    return tuple(refined)


def cluster(
    implementations: Sequence[ImplementationSpec],
    *,
    function: str | None = None,
    budget: Budget | float | int = Budget(),
    engines: Sequence[str] | str | None = None,
    seeds: Iterable[SeedSpec] | SeedSpec | None = None,
    require: str | Callable[..., bool] | None = None,
    policy: EqualityPolicy = DEFAULT_POLICY,
    limits: Limits = Limits(),
    isolation: str | None = None,
    seed: int = 0,
    progress: Callable[[Progress], None] | None = None,
) -> Clustering:
    """Partition implementations into behaviour classes on every input the engines generate."""
    search = prepare(
        implementations, function=function, budget=budget, engines=engines, seeds=seeds, require=require,
        policy=policy, limits=limits, isolation=isolation, seed=seed, progress=progress, minimum=1,
    )
    try:
        return run_cluster(search)
    finally:
        search.close()


def run_cluster(search: Search) -> Clustering:
    count = len(search.implementations)
    classes: tuple[tuple[int, ...], ...] = (tuple(range(count)),)
    splits: list[Split] = []
    nondeterministic: list[Input] = []
    exit_reason = ExitReason.EXHAUSTED
    try:
        while len(classes) < count:
            reason = search.out_of_budget()
            if reason is not None:
                exit_reason = reason
                break
            if not search.portfolio.active:
                break
            observations = search.step()
            if not observations and search.portfolio.waiting_on_background:
                time.sleep(0.05)
            for engine_name, observation in observations:
                refined = refine(classes, observation, search.policy)
                if len(refined) == len(classes):
                    continue
                confirmed, why = search.confirm(observation)
                if confirmed is None:
                    if why.startswith("not deterministic"):
                        nondeterministic.append(observation.input)
                    search.notes.append(f"{observation.input.call('f', max_length=60)}: {why}")
                    continue
                refined = refine(classes, confirmed, search.policy)
                if len(refined) > len(classes):
                    classes = refined
                    splits.append(
                        Split(input=confirmed.input, classes=classes, outcomes=confirmed.outcomes, engine=engine_name)
                    )
        else:
            exit_reason = ExitReason.FOUND
    except KeyboardInterrupt:
        exit_reason = ExitReason.INTERRUPTED
    ordered = tuple(sorted(classes, key=lambda members: (-len(members), members[0])))
    report = Report(
        verdict=Verdict.DIVERGENT if len(ordered) > 1 else Verdict.NO_DIFFERENCE_FOUND,
        implementations=tuple(impl.label for impl in search.implementations),
        counterexample=None,
        classes=ordered,
        seconds=round(search.elapsed, 3),
        executions=search.executions,
        inputs=search.inputs_run,
        engines=search.portfolio.stats(),
        exit_reason=exit_reason,
        isolation=search.pool.level.value,
        policy=search.policy.describe(),
        seed=search.seed,
        notes=tuple(search.notes),
        nondeterministic=tuple(nondeterministic),
    )
    return Clustering(report=report, classes=ordered, splits=tuple(splits))
