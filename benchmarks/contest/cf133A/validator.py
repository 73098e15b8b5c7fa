# This problem's checks, run after the suite's strict reader (../strict_input.py: line, ints,
# integer, word, end, fail); benchmarks/validators.py joins the two into one program.
word(r"[!-~]{1,100}", "1 to 100 characters with codes 33 to 126")
end()
