"""What the validator taught the engines of texts about each slot of the input format.

A child made by one change (a number, a count, a character) says of the value it set whether the
validator takes it there. Per slot (its key in the format), the engines of texts (mutation, the
grammar) share:

* the values of a number or a count (:class:`LearntRange`): the lowest and highest accepted, and
  the nearest rejected beyond them. A bound seen only in the examples (``n`` was 1 to 20 there) is
  found where the validator puts it (1 to 25): a value past a rejected one is steered back, into
  the gap still unknown (halved each time, geometrically when it spans orders of magnitude: 20 to
  10^18 is closed in a dozen tries) or, once the bound is found, onto it and below;
* the lengths of a word, as a range (keyed ``slot#length``): ``R`` or ``L`` grows no second letter;
* the characters of a word (:class:`LearntAlphabet`): those accepted and those rejected. An
  alphabet widened from the examples (``B`` and ``G`` seen, ``A-Z`` inferred) narrows to what the
  validator takes: accepted characters are drawn most of the time, rejected ones not at all;
* the order of a list (:class:`LearntOrder`): when every valid input had it in one order and
  inputs with it out of order were rejected (scores given in non-increasing order), lists made
  are put in that order; strictly (no two equal neighbours) when no valid list had ties and
  ordered lists with ties were rejected (minutes in increasing order);
* patterns within a word and relations between integers (:mod:`divergent.engines.text.patterns`:
  one ``:`` between two runs of digits, ``m <= n``).

One try in :data:`RETRY_ONE_IN` goes past what was learnt (a
rejection may have had another cause, a relation with another token that has changed since).

When the format is a fixed shape of integers (one ``n``; ``a b``) and the validator's bounds of
every slot are found (the values next to them rejected), the valid inputs can be counted
(:class:`FixedSpace`): once each ran, the search has judged them all (``n`` in [1, 25]: 25 inputs,
fewer than a search's floor, yet not a thin search).
"""

from __future__ import annotations

import bisect
import itertools
import math
import random
from collections import defaultdict
from collections.abc import Sequence

from divergent.engines.text.patterns import (
    EVIDENCE,
    LearntDigits,
    LearntEnd,
    LearntRelations,
    LearntShape,
    shape_of,
)
from divergent.engines.text.slowness import Slowness
from divergent.formats.model import Kind
from divergent.formats.text_structure import Block, Line
from divergent.formats.values import SlotSpec

__all__ = ["FixedSpace", "LearntAlphabet", "LearntOrder", "LearntRange", "Lessons", "SetValue", "Word", "ordered"]

#: one try in this many goes past what was learnt
RETRY_ONE_IN = 25
#: valid inputs with a slot's lists in one order, and rejected ones with them out of it, before
#: the order is kept (:class:`LearntOrder`)
ORDER_EVIDENCE = 5
#: the most inputs a small input space (:class:`FixedSpace`) may have to be listed
LARGEST_SPACE = 10_000

#: the key of the lengths of a slot's words (learnt as a range, like a number's values)
LENGTH = "#length"
#: rejected values kept per slot (the nearest beyond the accepted ones are what matter)
_REFUSED_KEPT = 64


class Word(str):
    """A whole word set in a slot (a plain string is some characters of one): its shape is learnt
    too (:class:`~divergent.engines.text.patterns.LearntShape`)."""

    __slots__ = ()


#: a value one change set: the slot's key in the format, and the value (an integer: a number or
#: a count, the size of its lists; a string: the characters set in a word, a :class:`Word`: the
#: whole word)
SetValue = tuple[str, int | str]


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
                return value if rng.randrange(RETRY_ONE_IN) == 0 else _between(self.low, low, rng)
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
    middle, geometric when both have one sign and are far apart, a square root of the distance
    away from the accepted one when they have not (1 and -10^18: -10^9, then -31622...), sometimes
    one at random."""
    low, high = min(accepted, rejected), max(accepted, rejected)
    if rng.random() < 0.25:
        return rng.randint(low + 1, high - 1)
    middle = (low + high) // 2
    if low > 0 and high > 4 * low:
        middle = round(math.sqrt(low) * math.sqrt(high))
    elif high < 0 and low < 4 * high:
        middle = -round(math.sqrt(-low) * math.sqrt(-high))
    elif high - low > 4:
        step = round(math.sqrt(high - low))
        middle = accepted + step if rejected > accepted else accepted - step
    return max(low + 1, min(high - 1, middle))


def _within(learnt: LearntRange, end: int, rng: random.Random) -> int:
    """For a value past a known bound: the bound itself, or a value accepted before at random."""
    assert learnt.low is not None and learnt.high is not None
    return end if rng.random() < 0.6 else rng.randint(learnt.low, learnt.high)


class LearntAlphabet:
    """The characters the validator accepted and rejected in one slot's words."""

    def __init__(self) -> None:
        self.accepted: set[str] = set()
        self.refused: set[str] = set()

    def pick(self, alphabet: Sequence[str], rng: random.Random) -> str:
        """A character of ``alphabet`` for this slot: mostly one accepted before, else one not
        rejected, one of all in a try of :data:`RETRY_ONE_IN`."""
        allowed = [c for c in alphabet if c not in self.refused]
        if not allowed or rng.randrange(RETRY_ONE_IN) == 0:
            return rng.choice(alphabet)
        known = [c for c in allowed if c in self.accepted]
        return rng.choice(known if known and rng.random() < 0.8 else allowed)


class LearntOrder:
    """Whether the validator takes one slot's lists in one order only (scores in non-increasing
    order): every valid input had them in it, and inputs made with them out of it were rejected."""

    def __init__(self) -> None:
        self.ascending = 0
        self.descending = 0
        self.unordered = 0
        self.refused = 0
        #: valid lists in order with two equal neighbours, and rejected ones
        self.tied = 0
        self.tied_refused = 0

    def accepted(self, items: Sequence[int]) -> None:
        up, down = _directions(items)
        self.ascending += up and not down
        self.descending += down and not up
        self.unordered += not up and not down
        self.tied += (up or down) and has_ties(items)

    def strict(self) -> bool:
        """Whether lists are to be strictly in the order: no valid one had ties, and ordered ones
        with ties were rejected :data:`~divergent.engines.text.patterns.EVIDENCE` times."""
        return not self.tied and self.tied_refused >= EVIDENCE and self.order() is not None

    def order(self) -> str | None:
        """``ascending`` or ``descending`` once the evidence says so (lists in that order only were
        taken, :data:`ORDER_EVIDENCE` others were rejected), else None."""
        if self.unordered or self.refused < ORDER_EVIDENCE:
            return None
        if self.descending >= ORDER_EVIDENCE and not self.ascending:
            return "descending"
        if self.ascending >= ORDER_EVIDENCE and not self.descending:
            return "ascending"
        return None


def _directions(items: Sequence[int]) -> tuple[bool, bool]:
    """Whether a list is non-decreasing, and whether it is non-increasing."""
    return (all(a <= b for a, b in itertools.pairwise(items)),
            all(a >= b for a, b in itertools.pairwise(items)))


def ordered(items: Sequence[int]) -> bool:
    """Whether a list is in either order (non-decreasing or non-increasing)."""
    return any(_directions(items))


def has_ties(items: Sequence[int]) -> bool:
    """Whether two neighbours of a list are equal."""
    return any(a == b for a, b in itertools.pairwise(items))


class Lessons:
    """Per slot of the format: the range of its numbers, the alphabet of its words, the order of
    its lists."""

    def __init__(self) -> None:
        # (indexing makes a slot's lesson; ``get`` only reads)
        self.ranges: defaultdict[str, LearntRange] = defaultdict(LearntRange)
        self.alphabets: defaultdict[str, LearntAlphabet] = defaultdict(LearntAlphabet)
        self.orders: defaultdict[str, LearntOrder] = defaultdict(LearntOrder)
        self.shapes: defaultdict[str, LearntShape] = defaultdict(LearntShape)
        self.digits: defaultdict[str, LearntDigits] = defaultdict(LearntDigits)
        #: by a list slot's key and end (``1.0@first.last``: the last item of its first list)
        self.ends: defaultdict[str, LearntEnd] = defaultdict(LearntEnd)
        self.relations = LearntRelations()
        #: runs past the time limit keep the integers written after them small
        self.slowness = Slowness()
        #: the list slots that must be permutations of 1..n (the statement says so, or every example's is)
        self.permutations: set[str] = set()

    def order(self, slot: str) -> str | None:
        learnt = self.orders.get(slot)
        return learnt.order() if learnt is not None else None

    def accepted(self, slot: str, value: int | str) -> None:
        """A value (a number, or a word's characters) the slot held in a valid input."""
        if isinstance(value, int):
            self.ranges[slot].accepted(value)
            self.digits[slot].accept(value)
        else:
            learnt = self.alphabets[slot]
            learnt.accepted.update(value)
            learnt.refused.difference_update(value)
            if isinstance(value, Word):
                self.shapes[slot].accepted(value)
                self.ranges[slot + LENGTH].accepted(len(value))

    def refused_characters(self, slot: str) -> set[str]:
        """The characters that made words of the slot invalid (and were never in a valid one)."""
        learnt = self.alphabets.get(slot)
        return learnt.refused if learnt is not None else set()

    def refused(self, slot: str, value: int | str) -> None:
        """A value whose setting alone made an input invalid."""
        if isinstance(value, int):
            learnt = self.ranges[slot]
            if learnt.low is not None and learnt.high is not None and learnt.low <= value <= learnt.high:
                self.digits[slot].rejected(value)  # within the valid range: rejected for its digits?
            learnt.refused(value)
            return
        learnt = self.alphabets[slot]
        learnt.refused.update(c for c in value if c not in learnt.accepted)
        if isinstance(value, Word) and slot in self.shapes:
            self.shapes[slot].rejected(value)
            self.ranges[slot + LENGTH].refused(len(value))

    def novel(self, slot: str, value: int | str) -> bool:
        """Whether a value is beyond what the slot held in valid inputs (a number outside their
        range or with a digit none of their few had, a character none of their words had, a word
        of another shape): of a rejected input
        whose values are all known but one, that one is to blame."""
        if isinstance(value, int):
            learnt = self.ranges.get(slot)
            digits = self.digits.get(slot)
            return learnt is None or learnt.low is None or learnt.high is None or \
                not learnt.low <= value <= learnt.high or (digits is not None and digits.unusual(value))
        alphabet = self.alphabets.get(slot)
        if alphabet is None or any(c not in alphabet.accepted for c in value):
            return True
        if isinstance(value, Word) and self.novel(slot + LENGTH, len(value)):
            return True
        shape = self.shapes.get(slot)  # (a word of a new shape, where all had one)
        return isinstance(value, Word) and shape is not None and len(shape.shapes) == 1 and \
            shape_of(value)[0] not in shape.shapes

    def learnt(self) -> list[str]:
        """What the validator taught beyond the format, by slot (``line.token``, as keyed in the
        format): the bounds it was found to keep, the lists' order, the words' shapes, the
        relations between integers."""
        found = []
        for slot, learnt in sorted(self.ranges.items()):
            if (known := learnt.known()) is not None:
                found.append(f"{slot} in [{known[0]}, {known[1]}]")
        for slot, order in sorted(self.orders.items()):
            if (direction := order.order()) is not None:
                found.append(f"{slot} lists {'strictly ' if order.strict() else ''}{direction}")
        for slot, shape in sorted(self.shapes.items()):
            if (separators := shape.kept()) is not None:
                found.append(f"{slot} words shaped {'x'.join(('', *separators, ''))}")
        found.extend(f"{slot} written with the digits {''.join(sorted(digits.accepted))}"
                     for slot, digits in sorted(self.digits.items()) if digits.kept())
        found.extend(f"{end} is {value}" for end, learnt in sorted(self.ends.items())
                     if (value := learnt.kept()) is not None)
        found.extend(f"{a} <= {b}" for a, b in sorted(self.relations.kept()))
        return found

    def shaped(self, slot: str, word: str, rng: random.Random) -> str:
        """``word`` in the one shape the slot's words take (:meth:`LearntShape.mend`)."""
        shape = self.shapes.get(slot)
        return word if shape is None else shape.mend(word, rng, RETRY_ONE_IN)

    def steer(self, slot: str, value: int, rng: random.Random) -> int:
        """A value for a slot: ``value`` unless the validator is known to reject it
        (:meth:`LearntRange.steer`)."""
        learnt = self.ranges.get(slot)
        value = value if learnt is None else learnt.steer(value, rng)
        digits = self.digits.get(slot)
        return value if digits is None else digits.mend(value, rng, RETRY_ONE_IN)

    def length(self, slot: str, length: int, rng: random.Random) -> int:
        """A length for a word of the slot: ``length`` unless the validator is known to reject it."""
        return self.steer(slot + LENGTH, length, rng)

    def narrowed(self, slot: str) -> bool:
        """Whether the validator rejected characters in the slot's words (its alphabet is narrower
        than the format's)."""
        learnt = self.alphabets.get(slot)
        return learnt is not None and bool(learnt.refused) and bool(learnt.accepted)

    def character(self, slot: str, alphabet: Sequence[str], rng: random.Random, *, explore: bool = True) -> str:
        """A character for a word of the slot (:meth:`LearntAlphabet.pick`); without ``explore``, one
        the validator took there whenever it rejected some (for many characters at once: a word
        grown by ten, each with a chance of a new character, would hardly ever be valid)."""
        learnt = self.alphabets.get(slot)
        if learnt is None or not alphabet:
            return rng.choice(alphabet)
        if not explore and learnt.refused and learnt.accepted:
            known = [c for c in alphabet if c in learnt.accepted]
            if known:
                return rng.choice(known)
        return learnt.pick(alphabet, rng)


class FixedSpace:
    """The inputs of a format of one fixed shape of integers (``n``, or ``a b`` then ``c``): once
    the validator's bounds of every slot are known (or stated), every valid input there is."""

    def __init__(self, model: Block, specs: tuple[SlotSpec, ...]) -> None:
        self.model = model
        self.specs = specs

    @classmethod
    def of(cls, trees: Sequence[Block]) -> FixedSpace | None:
        """The space of the examples' trees, when they all have one such shape."""
        shapes = {_integer_slots(tree) for tree in trees}
        if len(shapes) != 1:
            return None
        specs = shapes.pop()
        return cls(trees[0], specs) if specs else None

    def values(self, tree: Block) -> tuple[int, ...] | None:
        """The integers of a tree of this shape (None: another shape)."""
        return _values(tree, self.specs)

    def inputs(self, lessons: Lessons) -> tuple[str, list[str]] | None:
        """What the space is and the text of each of its inputs, once the bounds of every slot are
        known (None before, or when the space is too large to list)."""
        bounds = []
        for spec in self.specs:
            learnt = lessons.ranges.get(spec.key)
            known = learnt.known() if learnt is not None else None
            if known is None and spec.hard_low and spec.hard_high and spec.low is not None and spec.high is not None:
                known = (spec.low, spec.high)
            if known is None:
                return None
            bounds.append(known)
        size = math.prod(high - low + 1 for low, high in bounds)
        if size > LARGEST_SPACE:
            return None
        texts = [self._render(values) for values in itertools.product(*(range(low, high + 1) for low, high in bounds))]
        ranges = " x ".join(f"[{low}, {high}]" for low, high in bounds)
        what = "an integer" if len(bounds) == 1 else f"{len(bounds)} integers"
        return f"all {size:,} inputs of {what} in {ranges}, the validator's bounds", texts

    def _render(self, values: tuple[int, ...]) -> str:
        numbers = iter(values)
        return "".join(" ".join(str(next(numbers)) for _ in node.parts) + "\n" for node in self.model)


def _integer_slots(tree: Block) -> tuple[SlotSpec, ...]:
    """The specs of a tree made of lines of integer tokens only (empty: another shape)."""
    specs: list[SlotSpec] = []
    for node in tree:
        if not isinstance(node, Line) or node.specs is None:
            return ()
        for part, spec in zip(node.parts, node.specs, strict=True):
            if not isinstance(part, str) or spec is None or spec.kind is not Kind.INT or spec.choices:
                return ()
            specs.append(spec)
    return tuple(specs)


def _values(tree: Block, specs: tuple[SlotSpec, ...]) -> tuple[int, ...] | None:
    if _integer_slots(tree) != specs:
        return None
    return tuple(int(part) for node in tree for part in node.parts)
