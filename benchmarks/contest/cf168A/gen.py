# This problem's drawing, run after the suite's ../random_input.py (rng, pick);
# benchmarks/validators.py joins the two into one program.
n = pick(1, 10**4)
x = pick(1, n)
y = pick(1, 10**4) if rng.random() < 0.5 else pick(1, 100)
print(n, x, y)
