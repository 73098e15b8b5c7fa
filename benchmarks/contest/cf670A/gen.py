# This problem's drawing, run after the suite's ../random_input.py (rng, pick);
# benchmarks/validators.py joins the two into one program.
print(pick(1, 10**6) if rng.random() < 0.5 else pick(1, 30))
