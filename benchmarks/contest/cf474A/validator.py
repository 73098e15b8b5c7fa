# This problem's checks, run after the suite's strict reader (../strict_input.py: line, ints,
# integer, word, end, fail); benchmarks/validators.py joins the two into one program.
rows = ("qwertyuiop", "asdfghjkl;", "zxcvbnm,./")
direction = word(r"[LR]", "L or R")
typed = word(r"[qwertyuiopasdfghjkl;zxcvbnm,./]{1,100}", "1 to 100 keyboard characters")
for c in typed:
    row = next(r for r in rows if c in r)
    if direction == "R" and row.index(c) == 0:
        fail(f"{c!r} has no key to its left")
    if direction == "L" and row.index(c) == len(row) - 1:
        fail(f"{c!r} has no key to its right")
end()
