"""What every random input generator of the suite starts with (``rng``, seeded from argv[1], and
``pick``): a problem's ``gen.py`` holds only its own drawing, and runs after this file
(``benchmarks/validators.py`` joins the two into one program). A generator prints one valid input."""

import random
import sys

rng = random.Random(int(sys.argv[1]) if len(sys.argv) > 1 else 0)


def pick(low, high):
    """A value in [low, high]: small ones, the bounds and anything in between."""
    roll = rng.random()
    if roll < 0.15:
        return rng.choice((low, high))
    if roll < 0.55:
        return rng.randint(low, min(high, low + 10))
    if roll < 0.7:
        return rng.randint(max(low, high - 10), high)
    return rng.randint(low, high)
