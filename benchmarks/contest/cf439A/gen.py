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


n = pick(1, 100)
t = [pick(1, 100) for _ in range(n)]
need = sum(t) + 10 * (n - 1)
d = max(1, min(10**4, need + rng.randint(-12, 40))) if rng.random() < 0.6 else pick(1, 10**4)
print(n, d)
print(*t)
