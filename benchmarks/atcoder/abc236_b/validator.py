# This problem's checks, run after the shared strict reader (../../contest/strict_input.py: line, ints,
# integer, word, end, fail); benchmarks/validators.py joins the two into one program.
(n,) = ints(1, 1, 10**5, "N")
a = ints(4 * n - 1, 1, n, "A_i")
end()
counts = [0] * (n + 1)
for v in a:
    counts[v] += 1
if sorted(counts[1:]) != [3] + [4] * (n - 1):
    fail("not four of each but one three")
