# This problem's checks, run after the shared strict reader (../../contest/strict_input.py: line, ints,
# integer, word, end, fail); benchmarks/validators.py joins the two into one program.
l1, r1, l2, r2 = ints(4, 0, 100, "L_1, R_1, L_2, R_2")
if not (l1 < r1 and l2 < r2):
    fail("L < R does not hold")
end()
