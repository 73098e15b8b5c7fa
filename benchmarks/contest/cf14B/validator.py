# This problem's checks, run after the suite's strict reader (../strict_input.py: line, ints,
# integer, word, end, fail); benchmarks/validators.py joins the two into one program.
n, x0 = ints(2, 0, 1000, "n, x0")
if not 1 <= n <= 100:
    fail(f"n = {n} is out of [1, 100]")
for _ in range(n):
    a, b = ints(2, 0, 1000, "a_i, b_i")
    if a == b:
        fail("a segment has a_i = b_i")
end()
