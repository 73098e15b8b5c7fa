"""Patterns within the tokens of a text input and relations between them, learnt from the valid
inputs and from the ones the validator rejects (the lessons of :mod:`divergent.engines.text.lessons`
that are about more than one value at a time).

* A word's *shape* (:class:`LearntShape`): the punctuation that splits it into pieces (``11:20``,
  ``2A:13``: one ``:`` between two runs of digits and capitals) and how long the pieces were. When
  every valid word of a slot had one such shape and words without it were rejected, words made
  there are put back into it: the stray punctuation taken out, the shape's put between pieces of
  one character up to the longest seen.
* The digits of an integer (:class:`LearntDigits`): when valid values used a few digits only
  (``4`` and ``7``) and values within their range with other digits were rejected, values made
  there are written with those digits.
* The ends of a list (:class:`LearntEnd`): its first or last item, in the first or last of a
  slot's lists (the corners of a grid), when valid inputs had one value there and inputs with
  another were rejected: lists made there are given it.
* A relation between two integers of one input (:class:`LearntRelations`): ``m <= n`` when every
  valid input had it and inputs without it were rejected (``n m`` with ``m <= n``; ``n k`` with
  ``k <= n``). Inputs made with it broken are mended (the smaller side drawn again below the
  larger).

Each holds only on its own evidence (:data:`EVIDENCE` rejections with it broken, none valid), and
one try in :data:`~divergent.engines.text.lessons.RETRY_ONE_IN` goes past it: a valid input without
it undoes the lesson.
"""

from __future__ import annotations

import itertools
import random
from collections import Counter
from collections.abc import Sequence

__all__ = ["EVIDENCE", "LearntDigits", "LearntEnd", "LearntRelations", "LearntShape", "shape_of"]

#: rejected inputs with a pattern broken (and no valid one) before it is kept
EVIDENCE = 5
#: at most this many digits in a slot's valid integers for them to be its only ones
_FEW_DIGITS = 4
#: integers of one input whose pairs are watched (the first ones: sizes, bounds, parameters)
_WATCHED = 8


def shape_of(word: str) -> tuple[tuple[str, ...], tuple[int, ...]]:
    """A word's separators (its runs of characters that are neither letters nor digits) and the
    lengths of the pieces between them: ``2A:13`` gives ``((":",), (2, 2))``."""
    separators: list[str] = []
    pieces: list[int] = [0]
    previous_alnum = True
    for char in word:
        if char.isalnum():
            pieces[-1] += 1
            previous_alnum = True
            continue
        if previous_alnum or not separators:
            separators.append(char)
            pieces.append(0)
        else:
            separators[-1] += char
        previous_alnum = False
    return tuple(separators), tuple(pieces)


class LearntShape:
    """The shapes of one slot's valid words, and how many words of another shape were rejected."""

    def __init__(self) -> None:
        self.shapes: Counter[tuple[str, ...]] = Counter()
        #: per piece of the (one) shape, the shortest and longest piece seen in a valid word
        self.pieces: dict[tuple[str, ...], list[tuple[int, int]]] = {}
        self.refused = 0

    def accepted(self, word: str) -> None:
        separators, pieces = shape_of(word)
        self.shapes[separators] += 1
        known = self.pieces.get(separators)
        self.pieces[separators] = [(length, length) for length in pieces] if known is None else [
            (min(low, length), max(high, length)) for (low, high), length in zip(known, pieces, strict=True)]

    def rejected(self, word: str) -> None:
        if len(self.shapes) == 1 and shape_of(word)[0] not in self.shapes:
            self.refused += 1

    def kept(self) -> tuple[str, ...] | None:
        """The separators every valid word had, once words without them were rejected
        :data:`EVIDENCE` times (None: no shape is kept; a word with no punctuation has none)."""
        if len(self.shapes) != 1 or self.refused < EVIDENCE:
            return None
        separators = next(iter(self.shapes))
        return separators or None

    def mend(self, word: str, rng: random.Random, retry_one_in: int) -> str:
        """``word`` in the kept shape: unchanged when it has it (or on a retry), else its letters
        and digits cut into pieces of the lengths seen, the shape's separators between them."""
        separators = self.kept()
        if separators is None or rng.randrange(retry_one_in) == 0:
            return word
        have, lengths = shape_of(word)
        # a piece may be as short as one character (or empty, if one was): the examples' shortest
        # is rarely the problem's, and short ones are where solutions go wrong (``0:11``)
        bounds = [(min(low, 1), high) for low, high in self.pieces[separators]]
        if have == separators and all(low <= n <= high for n, (low, high) in zip(lengths, bounds, strict=True)):
            return word
        letters = [c for c in word if c.isalnum()] or ["0"]
        out: list[str] = []
        for index, (low, high) in enumerate(bounds):
            length = rng.randint(low, high)
            piece = [letters[(len(out) + i) % len(letters)] for i in range(length)] if length > len(letters) \
                else rng.sample(letters, length) if length else []
            out.append("".join(piece))
            if index < len(separators):
                out.append(separators[index])
        return "".join(out)


class LearntDigits:
    """The digits of one slot's valid integers, and how often values within their range were
    rejected for a digit none of them had."""

    def __init__(self) -> None:
        self.accepted: set[str] = set()
        self.refused = 0

    def accept(self, value: int) -> None:
        self.accepted.update(str(abs(value)))

    def rejected(self, value: int) -> None:
        """A value rejected though within the range of valid ones."""
        if self.accepted and not set(str(abs(value))) <= self.accepted:
            self.refused += 1

    def unusual(self, value: int) -> bool:
        """Whether a value has a digit none of the few valid ones had."""
        return len(self.accepted) <= _FEW_DIGITS and not set(str(abs(value))) <= self.accepted

    def kept(self) -> bool:
        """Whether values are written with the accepted digits only: a few (:data:`_FEW_DIGITS`),
        and values with another were rejected :data:`EVIDENCE` times."""
        return self.refused >= EVIDENCE and len(self.accepted) <= _FEW_DIGITS

    def mend(self, value: int, rng: random.Random, retry_one_in: int) -> int:
        """``value`` written with the accepted digits (each other digit replaced by one of them)."""
        if not self.kept() or rng.randrange(retry_one_in) == 0:
            return value
        text = str(abs(value))
        if set(text) <= self.accepted:
            return value
        digits = sorted(self.accepted)
        mended = int("".join(c if c in self.accepted else rng.choice(digits) for c in text))
        return -mended if value < 0 else mended


class LearntEnd:
    """The values one end of a slot's lists took in valid inputs (two: no longer one), and how
    often lists with another there were rejected."""

    def __init__(self) -> None:
        self.values: set[str] = set()
        self.refused = 0

    def accepted(self, value: str) -> None:
        if len(self.values) < 2:
            self.values.add(value)

    def rejected(self, value: str) -> None:
        if len(self.values) == 1 and value not in self.values:
            self.refused += 1

    def kept(self) -> str | None:
        """The one value the end takes, once others were rejected :data:`EVIDENCE` times."""
        return next(iter(self.values)) if len(self.values) == 1 and self.refused >= EVIDENCE else None


class LearntRelations:
    """Between the integers of one input, by their slots' keys: the pairs ``a <= b`` that held in
    every valid input, and how often inputs with one broken were rejected."""

    def __init__(self) -> None:
        #: ordered pairs (a, b) with ``a > b`` in some valid input (never kept)
        self.broken: set[tuple[str, str]] = set()
        #: pairs seen together in valid inputs
        self.together: Counter[tuple[str, str]] = Counter()
        self.refused: Counter[tuple[str, str]] = Counter()

    def accepted(self, values: Sequence[tuple[str, int]]) -> None:
        for (a, x), (b, y) in itertools.permutations(_distinct(values), 2):
            self.together[a, b] += 1
            if x > y:
                self.broken.add((a, b))

    def rejected(self, values: Sequence[tuple[str, int]], changed: str | None = None) -> None:
        """The integers of a rejected input: made by one change of the slot ``changed`` (a pair
        without it is no suspect), or drawn whole with nothing else to blame (None)."""
        for (a, x), (b, y) in itertools.permutations(_distinct(values), 2):
            if x > y and changed in (None, a, b) and (a, b) not in self.broken and self.together[a, b] >= EVIDENCE:
                self.refused[a, b] += 1

    def kept(self) -> list[tuple[str, str]]:
        """The pairs ``a <= b`` the validator is known to require."""
        return [pair for pair, count in self.refused.items() if count >= EVIDENCE and pair not in self.broken]


def _distinct(values: Sequence[tuple[str, int]]) -> list[tuple[str, int]]:
    """The first :data:`_WATCHED` integers of an input, one per slot."""
    seen: dict[str, int] = {}
    for key, value in values:
        if key not in seen:
            seen[key] = value
            if len(seen) >= _WATCHED:
                break
    return list(seen.items())
