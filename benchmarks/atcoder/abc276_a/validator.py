# This problem's checks, run after the shared strict reader (../../contest/strict_input.py: line, ints,
# integer, word, end, fail); benchmarks/validators.py joins the two into one program.
word(r"[a-z]{1,100}", "a string of 1 to 100 lower-case letters")
end()
