# This problem's checks, run after the suite's strict reader (../strict_input.py: line, ints,
# integer, word, end, fail); benchmarks/validators.py joins the two into one program.
n, = ints(1, 1, 100, "n")
for _ in range(n):
    word(r"[a-z]{1,100}", "a word of 1 to 100 lowercase letters")
end()
