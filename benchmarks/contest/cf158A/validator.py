# This problem's checks, run after the suite's strict reader (../strict_input.py: line, ints,
# integer, word, end, fail); benchmarks/validators.py joins the two into one program.
n, k = ints(2, 1, 50, "n, k")
if k > n:
    fail(f"k = {k} exceeds n = {n}")
a = ints(n, 0, 100, "a_i")
if any(a[i] < a[i + 1] for i in range(n - 1)):
    fail("the scores are not in non-increasing order")
end()
