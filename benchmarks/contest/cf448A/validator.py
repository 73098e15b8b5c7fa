# This problem's checks, run after the suite's strict reader (../strict_input.py: line, ints,
# integer, word, end, fail); benchmarks/validators.py joins the two into one program.
ints(3, 0, 100, "a_i")
ints(3, 0, 100, "b_i")
ints(1, 1, 100, "n")
end()
