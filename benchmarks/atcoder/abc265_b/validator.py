# This problem's checks, run after the shared strict reader (../../contest/strict_input.py: line, ints,
# integer, word, end, fail); benchmarks/validators.py joins the two into one program.
n, m, t = ints(3, 0, 10**9, "N, M, T")
if not (2 <= n <= 10**5 and 0 <= m <= n - 2 and t >= 1):
    fail("N, M or T out of range")
ints(n - 1, 1, 10**9, "A_i")
last = 1
for _ in range(m):
    x, y = ints(2, 1, 10**9, "X_i, Y_i")
    if not last < x < n:
        fail("X_i not increasing within (1, N)")
    last = x
end()
