# This problem's checks, run after the suite's strict reader (../strict_input.py: line, ints,
# integer, word, end, fail); benchmarks/validators.py joins the two into one program.
n, d = ints(2, 1, 10**4, "n, d")
if n > 100:
    fail(f"n = {n} exceeds 100")
ints(n, 1, 100, "t_i")
end()
