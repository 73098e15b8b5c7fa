# This problem's checks, run after the shared strict reader (../../contest/strict_input.py: line, ints,
# integer, word, end, fail); benchmarks/validators.py joins the two into one program.
a, b = ints(2, 1, 10, "a, b")
if not a < b:
    fail("a < b does not hold")
end()
