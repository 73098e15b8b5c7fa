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


words = ["".join(rng.choice("ABWUXYZ") for _ in range(pick(1, 6))) for _ in range(pick(1, 8))]
words = [w for w in words if "WUB" not in w] or ["A"]
parts = ["WUB" * rng.randint(0, 2)]
for index, w in enumerate(words):
    if index:
        parts.append("WUB" * rng.randint(1, 3))
    parts.append(w)
parts.append("WUB" * rng.randint(0, 2))
remix = "".join(parts)
print(remix if len(remix) <= 200 else "WUB".join(words)[:200].strip("WUB") or "A")
