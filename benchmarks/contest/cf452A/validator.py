# This problem's checks, run after the suite's strict reader (../strict_input.py: line, ints,
# integer, word, end, fail); benchmarks/validators.py joins the two into one program.
names = ("vaporeon", "jolteon", "flareon", "espeon", "umbreon", "leafeon", "glaceon", "sylveon")
n, = ints(1, 6, 8, "n")
pattern = word(r"[a-z.]{%d}" % n, f"{n} lowercase letters or dots")
fits = [name for name in names if len(name) == n and all(p in (".", c) for p, c in zip(pattern, name))]
if len(fits) != 1:
    fail(f"{len(fits)} names fit the pattern, not exactly one")
end()
