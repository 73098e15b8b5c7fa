"""Small input spaces a search ran whole: an engine knows every valid input of one (``valid_space``:
the validator's bounds found; ``whole_space``: listed from edges known for sure), and each ran.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any, Protocol

from divergent.records import SpaceJudged

if TYPE_CHECKING:
    from divergent.engines.base import Engine


class Search(Protocol):
    """What of a search (``divergent.search.loop.Search``) tells whether it ran a space whole."""

    engines: list[Engine]
    ran: set[str]
    inconclusive: int

    @property
    def escalator(self) -> Any: ...

__all__ = ["space_judged", "space_seen"]


def space_seen(search: Search) -> str | None:
    """What small input space the search has run whole (an engine knows every valid input, and
    each ran), if it has."""
    return next((space[0] for space in _answers(search.engines, "valid_space")
                 if all(item.key in search.history.ran for item in space[1])), None)


def space_judged(search: Search) -> SpaceJudged | None:
    """The finite space an engine listed, once each of its valid inputs ran and was judged (none
    left inconclusive nor being re-run: ``Verdict.EQUIVALENT_ON_ALL_INPUTS``), else None."""
    if search.tally.inconclusive or search.escalator.waiting():
        return None
    return next((SpaceJudged(description=what, inputs=len(items), listed=listed, judge=judge)
                 for what, items, listed, judge in _answers(search.engines, "whole_space")
                 if all(item.key in search.history.ran for item in items)), None)


def _answers(engines: Sequence[Engine], hook: str) -> Iterator[Any]:
    """Each engine's answer to ``hook`` (a method without arguments) that is not None."""
    for engine in engines:
        answer = None
        with contextlib.suppress(Exception):
            answer = getattr(engine, hook)()
        if answer is not None:
            yield answer
