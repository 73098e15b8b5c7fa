# This problem's drawing, run after the suite's ../random_input.py (rng, pick);
# benchmarks/validators.py joins the two into one program.
names = ("vaporeon", "jolteon", "flareon", "espeon", "umbreon", "leafeon", "glaceon", "sylveon")
while True:
    name = rng.choice(names)
    keep = rng.random()
    pattern = "".join(c if rng.random() < keep else "." for c in name)
    fits = [m for m in names if len(m) == len(name) and all(p in (".", c) for p, c in zip(pattern, m))]
    if len(fits) == 1:
        break
print(len(name))
print(pattern)
