# This problem's checks, run after the shared strict reader (../../contest/strict_input.py: line, ints,
# integer, word, end, fail); benchmarks/validators.py joins the two into one program.
ints(1, 0, 255, "N")
end()
