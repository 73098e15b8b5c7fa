# This problem's checks, run after the suite's strict reader (../strict_input.py: line, ints,
# integer, word, end, fail); benchmarks/validators.py joins the two into one program.
n, m = ints(2, 3, 50, "n, m")
grid = [ints(m, 0, 1, "a_ij") for _ in range(n)]
if not any(1 in row for row in grid):
    fail("no good cell")
if grid[0][0] or grid[0][m - 1] or grid[n - 1][0] or grid[n - 1][m - 1]:
    fail("a corner is good")
end()
