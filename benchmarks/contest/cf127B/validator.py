# This problem's checks, run after the suite's strict reader (../strict_input.py: line, ints,
# integer, word, end, fail); benchmarks/validators.py joins the two into one program.
n, = ints(1, 1, 100, "n")
ints(n, 1, 100, "a_i")
end()
