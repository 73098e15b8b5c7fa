"""One slot of an input tree as its format says it may be (:class:`SlotSpec`), and values drawn for it.

A slot is a token, the items of a list, a count or the characters of a word; its spec has the
format's bounds evaluated with the values the input holds (``a_i <= n`` with ``n = 5``: at most
5). Values are drawn where solutions differ: at the bounds and next to them, small ones, and
anywhere in the range; lists come with many equal values (ties) as often as with distinct ones,
sorted, reversed or not at all.
"""

from __future__ import annotations

import random
import re
import string
from dataclasses import dataclass

from divergent.formats.model import Kind

__all__ = ["DEFAULT_HIGH", "SlotSpec", "draw_items", "draw_value", "draw_word", "fits"]

_INTEGER = re.compile(r"^[+-]?\d+$")
_FLOAT = re.compile(r"^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$")
#: the upper end of an integer nobody bounded (a contest's usual 10^9)
DEFAULT_HIGH = 10**9
#: the longest word drawn when nothing bounds it
_DEFAULT_WORD = 20
_PRINTABLE = "".join(c for c in string.printable if not c.isspace())
#: sizes past which solutions change algorithm (insertion sort below 16 or 32 elements, small
#: hash tables, unrolled loops), and their neighbours
THRESHOLDS = (1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 32, 33, 63, 64, 65, 100, 127, 128, 129, 255, 256, 257, 1000)


@dataclass(frozen=True)
class SlotSpec:
    """What one slot may hold: an integer, a float or a word (bounds of its length), within bounds
    (evaluated; None: open); ``hard_*``: the bound was stated (never crossed)."""

    kind: Kind
    low: int | None = None
    high: int | None = None
    hard_low: bool = False
    hard_high: bool = False
    alphabet: str = ""
    choices: tuple[str, ...] = ()
    decimals: int | None = None
    #: where the slot is in its format (a key for what the validator says about it)
    key: str = ""

    @property
    def numeric(self) -> bool:
        return self.kind is not Kind.WORD

    def clamp(self, value: int) -> int:
        if self.low is not None and value < self.low and self.hard_low:
            value = self.low
        if self.high is not None and value > self.high and self.hard_high:
            value = self.high
        return value

    def inside(self, value: int) -> bool:
        """Within the bounds, soft ones included."""
        return (self.low is None or value >= self.low) and (self.high is None or value <= self.high)

    def allows(self, value: int) -> bool:
        """Within the stated bounds."""
        return (not self.hard_low or self.low is None or value >= self.low) and (
            not self.hard_high or self.high is None or value <= self.high)

    def range(self, *, default_high: int = DEFAULT_HIGH) -> tuple[int, int]:
        """The bounds, open ends closed: from 0 (or below a negative upper bound) to ``default_high``
        (a word: 20 characters)."""
        low = self.low
        if low is None:
            low = self.high - default_high if self.high is not None and self.high < 0 else 0
        high = self.high if self.high is not None else max(low, default_high if self.numeric else _DEFAULT_WORD)
        return low, max(low, high)


def fits(spec: SlotSpec, token: str, *, stated_only: bool = True) -> str | None:
    """Why ``token`` does not fit ``spec`` (None when it does): its kind, its range, its alphabet."""
    if spec.choices:
        return None if token in spec.choices else f"{token!r} is not one of {'/'.join(spec.choices)}"
    if spec.kind is Kind.INT:
        if not _INTEGER.match(token):
            return f"{token!r} is not an integer"
        value = int(token)
    elif spec.kind is Kind.FLOAT:
        if not _FLOAT.match(token):
            return f"{token!r} is not a number"
        try:
            value = float(token)  # type: ignore[assignment]
        except ValueError:
            return f"{token!r} is not a number"
    else:
        if spec.alphabet:
            stray = next((c for c in token if c not in spec.alphabet), None)
            if stray is not None:
                return f"{token!r} has {stray!r}, not in its alphabet"
        value = len(token)
    low_ok = spec.low is None or value >= spec.low or (stated_only and not spec.hard_low)
    high_ok = spec.high is None or value <= spec.high or (stated_only and not spec.hard_high)
    if low_ok and high_ok:
        return None
    what = "length" if spec.kind is Kind.WORD else "value"
    return f"{what} {value} of {token[:20]!r} is out of [{spec.low}, {spec.high}]"


def draw_value(spec: SlotSpec, rng: random.Random, *, cap: int | None = None) -> int:
    """An integer for a numeric slot (a word's length for a word): a bound, next to one, small, or
    anywhere; at most ``cap`` when the range allows (sizes grow level by level)."""
    low, high = spec.range()
    if cap is not None:
        high = max(low, min(high, max(cap, low)))
    roll = rng.random()
    if roll < 0.3:
        return rng.choice((low, min(low + 1, high), high, max(high - 1, low)))
    if roll < 0.55:
        near = [t for t in THRESHOLDS if low <= t <= high]
        if near:
            return rng.choice(near)
    if roll < 0.75:  # log-uniform: small values as often as large ones
        span = high - low
        return low + min(span, int(span ** rng.random()) if span > 1 else rng.randint(0, span))
    return rng.randint(low, high)


def draw_token(spec: SlotSpec, rng: random.Random, *, cap: int | None = None, alphabet: str = "") -> str:
    """One token for ``spec``."""
    if spec.choices:
        return rng.choice(spec.choices)
    if spec.kind is Kind.WORD:
        return draw_word(spec, rng, cap=cap, fallback=alphabet)
    if spec.kind is Kind.FLOAT:
        low, high = spec.range(default_high=10**6)
        decimals = spec.decimals if spec.decimals is not None else 2
        value = rng.choice((low, high, rng.uniform(low, high), rng.uniform(low, min(high, low + 10))))
        return f"{value:.{decimals}f}"
    return str(draw_value(spec, rng, cap=None))


def draw_word(spec: SlotSpec, rng: random.Random, *, length: int | None = None, cap: int | None = None,
              fallback: str = "") -> str:
    alphabet = spec.alphabet or fallback or string.ascii_lowercase
    if length is None:
        length = draw_value(spec, rng, cap=cap if cap is not None else 64)
    roll = rng.random()
    if roll < 0.2:  # one character repeated
        return rng.choice(alphabet) * length
    if roll < 0.4 and len(alphabet) > 1:  # two characters
        pair = rng.sample(alphabet, 2)
        return "".join(rng.choice(pair) for _ in range(length))
    return "".join(rng.choice(alphabet) for _ in range(length))


def draw_items(spec: SlotSpec, count: int, rng: random.Random) -> list[str]:
    """``count`` tokens for a list: distinct-looking ones, or many equal ones (a palette of one to
    three values: ties past every sorting threshold), sorted, reversed or as drawn."""
    if count <= 0:
        return []
    if spec.choices or spec.kind is Kind.WORD or spec.kind is Kind.FLOAT:
        palette = [draw_token(spec, rng) for _ in range(rng.choice((1, 2, 3, 8)))]
        items = [rng.choice(palette) if rng.random() < 0.6 else draw_token(spec, rng) for _ in range(count)]
    else:
        roll = rng.random()
        if roll < 0.35:  # ties: a few values, many times each
            palette = [draw_value(spec, rng) for _ in range(rng.choice((1, 2, 2, 3, 4)))]
            items = [str(rng.choice(palette)) for _ in range(count)]
        elif roll < 0.5:  # a small range: equal values here and there
            low, high = spec.range()
            top = min(high, low + max(1, count // 4))
            items = [str(rng.randint(low, top)) for _ in range(count)]
        else:
            items = [str(draw_value(spec, rng)) for _ in range(count)]
    arrange = rng.random()
    if arrange < 0.2:
        items.sort(key=_order)
    elif arrange < 0.3:
        items.sort(key=_order, reverse=True)
    return items


def _order(token: str) -> tuple[int, float | str]:
    try:
        return (0, float(token))
    except ValueError:
        return (1, token)


def token_kind(token: str) -> Kind:
    """What a token looks like: an integer, a float, or a word."""
    if _INTEGER.match(token):
        return Kind.INT
    if _FLOAT.match(token) and any(c.isdigit() for c in token):
        return Kind.FLOAT
    return Kind.WORD


def is_number(token: str) -> bool:
    return token_kind(token) is not Kind.WORD


#: what every printable character but a space is, for words nothing else describes
PRINTABLE = _PRINTABLE
