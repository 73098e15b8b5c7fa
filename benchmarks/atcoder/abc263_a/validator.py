# This problem's checks, run after the shared strict reader (../../contest/strict_input.py: line, ints,
# integer, word, end, fail); benchmarks/validators.py joins the two into one program.
cards = ints(5, 1, 13, "A..E")
if len(set(cards)) == 1:
    fail("all five are the same")
end()
