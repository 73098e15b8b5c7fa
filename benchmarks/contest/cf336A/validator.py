# This problem's checks, run after the suite's strict reader (../strict_input.py: line, ints,
# integer, word, end, fail); benchmarks/validators.py joins the two into one program.
x, y = ints(2, -10**9, 10**9, "x, y")
if x == 0 or y == 0:
    fail("a coordinate is 0")
end()
