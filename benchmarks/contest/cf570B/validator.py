# This problem's checks, run after the suite's strict reader (../strict_input.py: line, ints,
# integer, word, end, fail); benchmarks/validators.py joins the two into one program.
n, m = ints(2, 1, 10**9, "n, m")
if m > n:
    fail(f"m = {m} exceeds n = {n}")
end()
