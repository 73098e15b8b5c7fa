"""What the validator says about the children of an engine of texts, by the operators that made them.

Every child carries the keys of the operators that made it (``number:0.1:outside``: a number
moved out of the range the examples showed, in the slot ``0.1``; ``grow:1.0``; ``word:2.0``).
A child the search ran was valid, which counts for each of its keys; a child the validator rejected
counts against its key when one operator made it (with several, the culprit is unknown). A key
tried :data:`MIN_TRIES` times and rejected nearly always is a kind of input the validator never
takes (10^18 in a 0/1 cell, a fourth letter in a seat row of three): the engine stops making it,
but for one try in :data:`RETRY_ONE_IN` (a validator may reject for another reason at first).

The values the children set are learnt too, per slot of the input format (:class:`LearntRange`):
the lowest and highest the validator accepted, and the nearest it rejected beyond them (in a child
of that one change). A bound seen only in the examples (``n`` was 1 to 20 there) is then found
where the validator puts it (1 to 25): a value past a rejected one is steered back, into the gap
still unknown (halved in each try, geometrically when it spans orders of magnitude: 20 to 10^18 is
closed in a dozen tries) or, once the bound is known, onto the highest accepted value and below.
One try in :data:`RETRY_ONE_IN` still goes past it (a rejection may have had another cause).
"""

from __future__ import annotations

import bisect
import math
import random
from collections import Counter
from collections.abc import Sequence

from divergent.engines.base import TextServices
from divergent.records import TextInput

__all__ = ["MIN_TRIES", "LearntRange", "Rejections", "SizeLevels"]

MIN_TRIES = 8
#: rejected at least this share of the time: given up
_GIVE_UP = 0.95
RETRY_ONE_IN = 25
#: children waiting for a verdict, at most (older ones are forgotten: their batch was cut short)
_WAITING = 4096
#: rejected values kept per slot (the nearest beyond the accepted ones are what matter)
_REFUSED_KEPT = 64

#: a value one change set: the slot's key in the format, and the value (a count: the list's size)
SetValue = tuple[str, int]


class LearntRange:
    """What the validator said of the values one slot held: the lowest and highest it accepted,
    and the values it rejected when they were a child's only change."""

    def __init__(self) -> None:
        self.low: int | None = None
        self.high: int | None = None
        self._refused: list[int] = []  # sorted

    def accepted(self, value: int) -> None:
        self.low = value if self.low is None else min(self.low, value)
        self.high = value if self.high is None else max(self.high, value)

    def refused(self, value: int) -> None:
        if self.low is not None and self.high is not None and self.low <= value <= self.high:
            return  # rejected for another reason (a relation with another token)
        bisect.insort(self._refused, value)
        if len(self._refused) > _REFUSED_KEPT:  # keep the nearest on each side: drop an outermost
            below = bisect.bisect_left(self._refused, self.low) if self.low is not None else 0
            del self._refused[0 if below > len(self._refused) - below else -1]

    def too_high(self) -> int | None:
        """The lowest rejected value above every accepted one."""
        above = bisect.bisect_right(self._refused, self.high) if self.high is not None else 0
        return self._refused[above] if above < len(self._refused) else None

    def too_low(self) -> int | None:
        """The highest rejected value below every accepted one."""
        below = bisect.bisect_left(self._refused, self.low) if self.low is not None else len(self._refused)
        return self._refused[below - 1] if below > 0 else None

    def steer(self, value: int, rng: random.Random) -> int:
        """``value``, or one in the gap still unknown or within the accepted range when ``value``
        lies at or past a rejected one. One try in :data:`RETRY_ONE_IN` goes past: with ``value``
        while a gap is open, with the rejected value next to the accepted ones once the bound is
        found (in another context, as when ``k <= n`` and ``n`` has grown, it may be valid; in the
        same one it is an input made before, so a small space can be exhausted)."""
        if self.low is None or self.high is None:
            return value
        high, low = self.too_high(), self.too_low()
        if high is not None and value >= high:
            if high - self.high > 1:
                return value if rng.randrange(RETRY_ONE_IN) == 0 else _between(self.high, high, rng)
            return high if rng.randrange(RETRY_ONE_IN) == 0 else _within(self, self.high, rng)
        if low is not None and value <= low:
            if self.low - low > 1:
                return value if rng.randrange(RETRY_ONE_IN) == 0 else _between(low, self.low, rng)
            return low if rng.randrange(RETRY_ONE_IN) == 0 else _within(self, self.low, rng)
        return value

    def known(self) -> tuple[int, int] | None:
        """The range the validator takes, when both of its ends are found (the values next to them
        rejected)."""
        if self.low is None or self.high is None:
            return None
        if self.too_high() == self.high + 1 and self.too_low() == self.low - 1:
            return self.low, self.high
        return None


def _between(accepted: int, rejected: int, rng: random.Random) -> int:
    """A value strictly between an accepted and a rejected one (either may be the larger): their
    middle, geometric when both are positive and far apart, else one at random."""
    low, high = min(accepted, rejected), max(accepted, rejected)
    if rng.random() < 0.25:
        return rng.randint(low + 1, high - 1)
    middle = (low + high) // 2
    if low > 0 and high > 4 * low:
        middle = round(math.sqrt(low) * math.sqrt(high))
    elif high < 0 and low < 4 * high:
        middle = -round(math.sqrt(-low) * math.sqrt(-high))
    return max(low + 1, min(high - 1, middle))


def _within(learnt: LearntRange, end: int, rng: random.Random) -> int:
    """For a value past a known bound: the bound itself, or a value accepted before at random."""
    assert learnt.low is not None and learnt.high is not None
    return end if rng.random() < 0.6 else rng.randint(learnt.low, learnt.high)


class Rejections:
    """Accepted and rejected children per operator key, and the values of the format's slots."""

    def __init__(self) -> None:
        self.tried: Counter[str] = Counter()
        self.rejected: Counter[str] = Counter()
        self.ranges: dict[str, LearntRange] = {}
        self._waiting: dict[str, tuple[TextInput, tuple[str, ...], tuple[SetValue, ...]]] = {}

    def made(self, child: TextInput, keys: Sequence[str], values: Sequence[SetValue] = ()) -> None:
        """A child was made by the operators ``keys``, which set the slots ``values``."""
        if not keys:
            return
        if len(self._waiting) >= _WAITING:
            self._waiting.pop(next(iter(self._waiting)))
        self._waiting[child.key] = (child, tuple(keys), tuple(values))

    def ran(self, key: str) -> None:
        """The search ran this child: the validator accepted it."""
        waiting = self._waiting.pop(key, None)
        if waiting is not None:
            self.tried.update(waiting[1])
            for slot, value in waiting[2]:
                self.range_of(slot).accepted(value)

    def settle(self, services: TextServices) -> None:
        """Count the children the validator rejected since the last call. A rejected child made by
        several operators says nothing about which one broke it: only those made by one count."""
        for key, (child, keys, values) in list(self._waiting.items()):
            if services.rejection_reason(child):
                del self._waiting[key]
                if len(set(keys)) == 1:
                    self.tried.update(keys)
                    self.rejected.update(keys)
                    if len(values) == 1:
                        self.range_of(values[0][0]).refused(values[0][1])

    def range_of(self, slot: str) -> LearntRange:
        learnt = self.ranges.get(slot)
        if learnt is None:
            learnt = self.ranges[slot] = LearntRange()
        return learnt

    def seen(self, slot: str, value: int) -> None:
        """A value the slot held in an input known to be valid (an example)."""
        self.range_of(slot).accepted(value)

    def steer(self, slot: str, value: int, rng: random.Random) -> int:
        """A value for a slot: ``value`` unless the validator is known to reject it
        (:meth:`LearntRange.steer`)."""
        learnt = self.ranges.get(slot)
        return value if learnt is None else learnt.steer(value, rng)

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
