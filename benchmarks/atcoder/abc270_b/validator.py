# This problem's checks, run after the shared strict reader (../../contest/strict_input.py: line, ints,
# integer, word, end, fail); benchmarks/validators.py joins the two into one program.
x, y, z = ints(3, -1000, 1000, "X, Y, Z")
if 0 in (x, y, z) or len({x, y, z}) != 3:
    fail("zero or equal values")
end()
