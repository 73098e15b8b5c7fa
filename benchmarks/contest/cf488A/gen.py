# This problem's drawing, run after the suite's ../random_input.py (rng, pick);
# benchmarks/validators.py joins the two into one program.
a = pick(0, 10**9)
if rng.random() < 0.5:
    a = -a
print(a)
