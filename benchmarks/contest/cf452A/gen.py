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


names = ("vaporeon", "jolteon", "flareon", "espeon", "umbreon", "leafeon", "glaceon", "sylveon")
while True:
    name = rng.choice(names)
    keep = rng.random()
    pattern = "".join(c if rng.random() < keep else "." for c in name)
    fits = [m for m in names if len(m) == len(name) and all(p in (".", c) for p, c in zip(pattern, m))]
    if len(fits) == 1:
        break
print(len(name))
print(pattern)
