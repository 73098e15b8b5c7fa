# This problem's checks, run after the shared strict reader (../../contest/strict_input.py: line, ints,
# integer, word, end, fail); benchmarks/validators.py joins the two into one program.
a, b = ints(2, 0, 10, "A, B")
if not (a >= 1 and b <= a):
    fail("1 <= A and B <= A do not hold")
end()
