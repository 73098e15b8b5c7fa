# This problem's drawing, run after the suite's ../random_input.py (rng, pick);
# benchmarks/validators.py joins the two into one program.
digits = pick(1, 9)
if rng.random() < 0.2:
    print(0)
else:
    print(rng.randint(10 ** (digits - 1), 10**digits - 1))
