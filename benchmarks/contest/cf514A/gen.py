"""Random input generator (written from the statement): prints one valid input; the seed is argv[1]."""

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


digits = pick(1, 18)
alphabet = rng.choice(("0123456789", "9", "09", "45", "5678"))
first = rng.choice([c for c in alphabet if c != "0"] or ["9"])
text = first + "".join(rng.choice(alphabet) for _ in range(digits - 1))
print(text if rng.random() < 0.95 else 10**18)
