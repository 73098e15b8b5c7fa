# This problem's checks, run after the suite's strict reader (../strict_input.py: line, ints,
# integer, word, end, fail); benchmarks/validators.py joins the two into one program.
n, = ints(1, 1, 90, "n")
t = ints(n, 1, 90, "t_i")
if any(t[i] >= t[i + 1] for i in range(n - 1)):
    fail("the minutes are not strictly increasing")
end()
