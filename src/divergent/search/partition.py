"""Behaviour classes: a :class:`Partition` of implementation indices and how one observation
:func:`refine` splits it."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from divergent.comparison import Comparison
from divergent.records import Counterexample, Input, Observation, Split


def refine(
    classes: Sequence[tuple[int, ...]], observation: Observation, policy: Comparison
) -> tuple[tuple[int, ...], ...]:
    """Split each class whose members behaved differently on this observation.

    Members whose outcome is inconclusive (a timeout, by default) cannot be told apart from the
    others by it: they stay with the first class of their old class."""
    refined: list[tuple[int, ...]] = []
    for members in classes:
        conclusive = [i for i in members if i not in observation.inconclusive]
        undecided = [i for i in members if i in observation.inconclusive]
        if not conclusive:
            refined.append(tuple(members))
            continue
        subclasses = [
            [conclusive[j] for j in sub] for sub in policy.partition([observation.outcomes[i] for i in conclusive])
        ]
        subclasses[0] = sorted(subclasses[0] + undecided)
        refined.extend(tuple(sub) for sub in subclasses)
    return tuple(refined)


@dataclass
class Partition:
    """Behaviour classes found so far, with the confirmed input behind each split."""

    classes: tuple[tuple[int, ...], ...]
    splits: list[Split] = field(default_factory=list)
    nondeterministic: list[Input] = field(default_factory=list)
    failed_confirmations: int = 0
    #: confirmed differences the spurious-counterexample filter judged irrelevant
    filtered_out: list[Counterexample] = field(default_factory=list)
    #: differences on inputs a claim may not rest on (``Subjects.claimable``), set apart
    set_apart: int = 0
    #: why the filter's model is not asked any more (it failed, or did not answer within the budget)
    filter_down: str = ""
