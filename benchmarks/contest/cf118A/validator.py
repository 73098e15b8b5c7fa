# This problem's checks, run after the suite's strict reader (../strict_input.py: line, ints,
# integer, word, end, fail); benchmarks/validators.py joins the two into one program.
word(r"[A-Za-z]{1,100}", "1 to 100 Latin letters")
end()
