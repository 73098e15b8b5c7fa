# This problem's checks, run after the suite's strict reader (../strict_input.py: line, ints,
# integer, word, end, fail); benchmarks/validators.py joins the two into one program.
n, x, y = ints(3, 1, 10**4, "n, x, y")
if x > n:
    fail(f"x = {x} exceeds n = {n}")
end()
