"""What the validator says about the children of an engine of texts, by the operators that made them.

Every child carries the keys of the operators that made it (``number:0.1:outside``: a number
moved out of the range the examples showed, in the slot ``0.1``; ``grow:1.0``; ``word:2.0``).
A child the search ran was valid, which counts for each of its keys; a child the validator rejected
counts against its key when one operator made it (with several, the culprit is unknown). A key
tried :data:`MIN_TRIES` times and rejected nearly always is a kind of input the validator never
takes (10^18 in a 0/1 cell, a fourth letter in a seat row of three): the engine stops making it,
but for one try in :data:`RETRY_ONE_IN` (a validator may reject for another reason at first).
The values a child set in the format's slots, when one operator made it, teach the engines of texts
what the validator takes there (:mod:`divergent.engines.text.lessons`). A child drawn whole (the
grammar's) sets every slot at once: when it is rejected, the blame falls on the one value beyond
what valid inputs held there, if only one is (``n = 3`` where valid inputs had 6 to 8, every other
value like theirs). Its integers teach the relations between them (``m <= n``): a valid child's
all, a rejected one's those of the one value a change set, or all when a draw had none to blame;
its lists whether they are taken in order only, and strictly.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from divergent.engines.base import TextServices
from divergent.engines.text.lessons import RETRY_ONE_IN, Lessons, SetValue
from divergent.engines.text.mending import integer_values, list_ends
from divergent.engines.text.slots import number_lists, set_values, tied_lists, unordered_lists
from divergent.formats.text_structure import Block
from divergent.records import TextInput

__all__ = ["MIN_TRIES", "RETRY_ONE_IN", "Rejections", "SizeLevels"]

MIN_TRIES = 8
#: rejected at least this share of the time: given up
_GIVE_UP = 0.95
#: children waiting for a verdict, at most (older ones are forgotten: their batch was cut short)
_WAITING = 4096


@dataclass(frozen=True)
class _Child:
    """A child waiting for the validator's verdict, and what it would teach."""

    child: TextInput
    keys: tuple[str, ...]
    values: tuple[SetValue, ...]
    unordered: tuple[str, ...]
    tied: tuple[str, ...] = ()
    #: its integers (for relations), by slot
    integers: tuple[tuple[str, int], ...] = ()
    #: the ends of its lists (``text_mending.list_ends``)
    ends: tuple[tuple[str, str], ...] = ()
    #: drawn whole: the one value beyond the lessons is to blame
    whole: bool = False


class Rejections:
    """Accepted and rejected children per operator key; the values they set teach ``lessons``."""

    def __init__(self, lessons: Lessons | None = None) -> None:
        self.tried: Counter[str] = Counter()
        self.rejected: Counter[str] = Counter()
        self.lessons = lessons if lessons is not None else Lessons()
        self._waiting: dict[str, _Child] = {}

    def made(self, child: TextInput, keys: Sequence[str], values: Sequence[SetValue] = (),
             unordered: Sequence[str] = (), *, tied: Sequence[str] = (), integers: Sequence[tuple[str, int]] = (),
             ends: Sequence[tuple[str, str]] = (), whole: bool = False) -> None:
        """A child was made by the operators ``keys``, which set the slots ``values`` (given only
        when they are what tells it from its parent: a later change may move or remove what an
        earlier one set). One value alone is to blame when the validator rejects the child; with
        ``whole`` (every value of the child given), the one value beyond the lessons.
        ``unordered``: the slots whose lists the child has in no order; ``tied``: in order, with
        two equal neighbours; ``integers``: the child's integers by slot; ``ends``: its lists' ends."""
        if not keys:
            return
        if len(self._waiting) >= _WAITING:
            self._waiting.pop(next(iter(self._waiting)))
        self._waiting[child.key] = _Child(child, tuple(keys), tuple(values), tuple(unordered), tuple(tied),
                                          tuple(integers), tuple(ends), whole)

    def ran(self, key: str) -> None:
        """The search ran this child: the validator accepted it."""
        waiting = self._waiting.pop(key, None)
        if waiting is not None:
            self.tried.update(waiting.keys)
            for slot, value in waiting.values:
                self.lessons.accepted(slot, value)
            if waiting.integers:
                self.lessons.relations.accepted(waiting.integers)
            for end, value in waiting.ends:
                self.lessons.ends[end].accepted(value)

    def settle(self, services: TextServices) -> None:
        """Count the children the validator rejected since the last call. A rejected child made by
        several operators says nothing about which one broke it: only those made by one count."""
        lessons = self.lessons
        for key, waiting in list(self._waiting.items()):
            if services.rejection_reason(waiting.child):
                del self._waiting[key]
                if len(set(waiting.keys)) == 1:
                    self.tried.update(waiting.keys)
                    self.rejected.update(waiting.keys)
                values = waiting.values
                # the slots a pattern broken in it may be blamed on: the one a change set, or any
                # in a draw with no new value (None); none when a new value explains the rejection
                suspects: set[str] | None = set()
                if waiting.whole and len(values) > 1:
                    values = tuple(value for value in values if lessons.novel(*value))
                    if not values:
                        suspects = None
                elif not waiting.whole and len(values) == 1:
                    suspects = {values[0][0]}
                if waiting.integers and suspects != set():
                    lessons.relations.rejected(waiting.integers, None if suspects is None else next(iter(suspects)))
                for end, value in waiting.ends:
                    if end in lessons.ends and (suspects is None or end.split("@")[0] in suspects):
                        lessons.ends[end].rejected(value)
                if len(values) == 1:
                    lessons.refused(*values[0])
                for slot in waiting.unordered:
                    lessons.orders[slot].refused += 1
                for slot in waiting.tied:
                    lessons.orders[slot].tied_refused += 1

    def made_tree(self, child: TextInput, keys: Sequence[str], tree: Block | None,
                  values: Sequence[SetValue] = (), *, whole: bool = False) -> None:
        """:meth:`made`, with what the child's ``tree`` (read by the format; None: too large to
        read) shows: its lists' orders and ends, its integers, and with ``whole`` (a draw) every
        value it sets as ``values``."""
        if tree is None:
            self.made(child, keys, values)
            return
        self.made(child, keys, set_values(tree) if whole else values, unordered_lists(tree), tied=tied_lists(tree),
                  integers=integer_values(tree), ends=list_ends(tree), whole=whole)

    def valid_tree(self, tree: Block) -> None:
        """The tree of an input known to be valid (an example, another engine's): every value,
        relation between integers, list end and list order it holds is one the validator takes."""
        lessons = self.lessons
        for slot, value in set_values(tree):
            lessons.accepted(slot, value)
        lessons.relations.accepted(integer_values(tree))
        for end, value in list_ends(tree):
            lessons.ends[end].accepted(value)
        for spec, rep in number_lists(tree):
            lessons.orders[spec.key].accepted([int(item) for item in rep.items])

    def allowed(self, key: str, rng: random.Random) -> bool:
        """Whether to make a child with this operator key (no: the validator rejects them all)."""
        tried = self.tried[key]
        if tried < MIN_TRIES or self.rejected[key] < _GIVE_UP * tried:
            return True
        return rng.randrange(RETRY_ONE_IN) == 0

    def given_up(self) -> list[str]:
        return sorted(key for key, tried in self.tried.items()
                      if tried >= MIN_TRIES and self.rejected[key] >= _GIVE_UP * tried)

    def explored(self) -> str:
        """An engine's ``explored`` line: the kinds of input the validator always rejected, which
        it stopped making ("" when none)."""
        given_up = self.given_up()
        if not given_up:
            return ""
        shown = ", ".join(given_up[:4]) + (f" and {len(given_up) - 4} more" if len(given_up) > 4 else "")
        return f"stopped making what the validator always rejected: {shown}"


class SizeLevels:
    """The cap on an engine's input sizes, one level after another: it rises after two rounds in a
    row that showed no new behaviour (small inputs first, large ones once the small are spent)."""

    def __init__(self, caps: Sequence[int]) -> None:
        self.caps = tuple(caps)
        self.level = 0
        self._quiet_rounds = 0

    @property
    def cap(self) -> int:
        return self.caps[self.level]

    def after_round(self, observed: bool, novel: int) -> None:
        """A round of ``observed`` results, ``novel`` of them new behaviours."""
        if novel:
            self._quiet_rounds = 0
        elif observed:
            self._quiet_rounds += 1
            if self._quiet_rounds >= 2 and self.level < len(self.caps) - 1:
                self.level += 1
                self._quiet_rounds = 0
