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


n, m = pick(3, 50), pick(3, 50)
density = rng.choice((0.02, 0.1, 0.5))
while True:
    grid = [[1 if rng.random() < density else 0 for _ in range(m)] for _ in range(n)]
    for r, c in ((0, 0), (0, m - 1), (n - 1, 0), (n - 1, m - 1)):
        grid[r][c] = 0
    if any(1 in row for row in grid):
        break
    grid[rng.randint(1, n - 2)][rng.randint(1, m - 2)] = 1
    break
print(n, m)
for row in grid:
    print(*row)
