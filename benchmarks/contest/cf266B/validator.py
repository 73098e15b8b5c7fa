# This problem's checks, run after the suite's strict reader (../strict_input.py: line, ints,
# integer, word, end, fail); benchmarks/validators.py joins the two into one program.
n, t = ints(2, 1, 50, "n, t")
word(r"[BG]{%d}" % n, f"{n} letters B or G")
end()
