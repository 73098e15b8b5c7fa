# This problem's checks, run after the suite's strict reader (../strict_input.py: line, ints,
# integer, word, end, fail); benchmarks/validators.py joins the two into one program.
a, b = ints(2, 1, 10**5, "a, b")
if set(str(b)) - set("47"):
    fail(f"b = {b} is not a lucky number")
end()
