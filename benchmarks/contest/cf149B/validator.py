# This problem's checks, run after the suite's strict reader (../strict_input.py: line, ints,
# integer, word, end, fail); benchmarks/validators.py joins the two into one program.
word(r"[0-9A-Z]{1,5}:[0-9A-Z]{1,5}", "a:b with 1 to 5 digits or uppercase letters on each side")
end()
