"""Special values drawn within a size: the mutator grows new values from small (``Mutator.size``),
so the boundary values, the values next to powers and the runs it reaches for are kept within the
magnitude the current size allows."""

from __future__ import annotations

import bisect
from random import Random

from divergent.engines.calls.shapes import INT_BOUNDARIES, NEAR_POWERS, RUN_LENGTHS

__all__ = ["boundary_within", "near_power_within", "run_length_within"]

_NEAR_POWER_MAGNITUDES = [abs(value) for value in NEAR_POWERS]
_SMALL_BOUNDARIES = (0, 1, -1, 127, 128, 255, 256)


def boundary_within(rng: Random, max_bits: int | None) -> int:
    """A boundary value of at most ``max_bits`` bits (any of them when None)."""
    limit = None if max_bits is None else 1 << max_bits
    for _ in range(8):
        value = rng.choice(INT_BOUNDARIES)
        if limit is None or abs(value) <= limit:
            return value
    return rng.choice(_SMALL_BOUNDARIES)


def near_power_within(rng: Random, max_bits: int) -> int:
    """A value next to a power of two or ten (or its negative) of at most ``max_bits`` bits."""
    end = bisect.bisect_right(_NEAR_POWER_MAGNITUDES, 1 << max_bits)
    return NEAR_POWERS[rng.randrange(max(1, end))]


def run_length_within(rng: Random, size: float) -> int:
    """How many times one element repeats in a run: 10 at size 0, up to 100 at size 1."""
    longest = 10 + int(90 * size)
    return rng.choice([n for n in RUN_LENGTHS if n <= longest])
