# This problem's checks, run after the shared strict reader (../../contest/strict_input.py: line, ints,
# integer, word, end, fail); benchmarks/validators.py joins the two into one program.
n, x = ints(2, 1, 100, "N, X")
if x > n:
    fail("X > N")
p = ints(n, 1, n, "P_i")
if sorted(p) != list(range(1, n + 1)):
    fail("P is not a permutation of 1..N")
end()
