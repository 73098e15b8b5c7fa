# This problem's drawing, run after the suite's ../random_input.py (rng, pick);
# benchmarks/validators.py joins the two into one program.
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
